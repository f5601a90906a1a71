/**
 * `npm run celular -- [--usuario X] [--seguir] [--json] [--limite S]`: what a salesperson's
 * phone sees — the reference phone (celular.ts) connects to the sync engine as `usuario`,
 * waits until it holds the engine's latest checkpoint, and prints rows per table,
 * `ultimo_nuke` and the last sync, in pt-BR. `--seguir` keeps running and prints every change
 * as it arrives (and a clear after a new ultimo_nuke); `--json` prints exactly one JSON object
 * and exits 0 once the phone has caught up.
 *
 * Settings: SYNC_ENGINE_URL (the engine's base URL) and SYNC_ENGINE_JWT_SECRET (its key,
 * base64url); when unset, the development values `npm start` keeps under .data/ (motor-url,
 * dev-secrets.json; APP_DATA_DIR moves .data). The phone's SQLite file is
 * .data/celular/<usuario>.db: a second run is the same phone again, with what it held.
 *
 * Every refusal is one pt-BR line on stderr and an exit code (no stack trace): 2 wrong
 * arguments, 78 configuration missing or invalid, 69 engine unreachable or not caught up in
 * time, 77 token refused by the engine.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../paths.js';
import { Celular, ErroCelular, sondarMotor, type CodigoErro } from './celular.js';
import { tokenCelular } from './token.js';

export const USO = `uso: npm run celular -- [--usuario X] [--seguir | --json] [--limite S]
  --usuario X   login do vendedor (sub do token; padrão: suporte); o celular é .data/celular/X.db
  --seguir      continua rodando e mostra cada mudança que chega (Ctrl-C encerra)
  --json        imprime um objeto JSON {"tabelas", "ultimo_nuke", "ultima_sincronizacao"} e sai
  --limite S    segundos para alcançar o motor (padrão: 120)
variáveis: SYNC_ENGINE_URL (URL do motor), SYNC_ENGINE_JWT_SECRET (chave do motor, base64url);
sem elas, os valores de desenvolvimento do npm start em .data/ (motor-url, dev-secrets.json)
saída: 0 ok; 2 argumentos; 78 configuração; 69 motor inacessível ou atrasado; 77 token recusado`;

export const SAIDA = { ok: 0, uso: 2, motor: 69, token: 77, config: 78 } as const;

/** A refusal with its exit code: one line for the operator. */
export class Recusa extends Error {
  constructor(readonly codigo: number, message: string) {
    super(message);
    this.name = 'Recusa';
  }
}

export interface Argumentos { usuario: string; seguir: boolean; json: boolean; limiteS: number; ajuda: boolean }

const USUARIO = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export function lerArgumentos(argv: readonly string[]): Argumentos {
  const a: Argumentos = { usuario: 'suporte', seguir: false, json: false, limiteS: 120, ajuda: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const [nome, embutido] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const valor = (): string => {
      const v = embutido ?? argv[++i];
      if (v === undefined || v === '' || (embutido === undefined && v.startsWith('--'))) throw new Recusa(SAIDA.uso, `${nome} precisa de um valor\n${USO}`);
      return v;
    };
    switch (nome) {
      case '--usuario': a.usuario = valor(); break;
      case '--limite': {
        const v = valor();
        a.limiteS = Number(v);
        if (!Number.isInteger(a.limiteS) || a.limiteS <= 0) throw new Recusa(SAIDA.uso, `--limite deve ser um número inteiro de segundos maior que zero (recebido: ${v})`);
        break;
      }
      case '--seguir': a.seguir = true; break;
      case '--json': a.json = true; break;
      case '--ajuda': case '--help': case '-h': a.ajuda = true; break;
      default: throw new Recusa(SAIDA.uso, `argumento desconhecido: ${arg}\n${USO}`);
    }
    if (embutido !== undefined && !['--usuario', '--limite'].includes(nome)) throw new Recusa(SAIDA.uso, `${nome} não recebe valor\n${USO}`);
  }
  if (!USUARIO.test(a.usuario)) throw new Recusa(SAIDA.uso, `usuário inválido: ${a.usuario} (letras, dígitos, . _ @ -; até 64)`);
  if (a.seguir && a.json) throw new Recusa(SAIDA.uso, `--seguir e --json não combinam: --json imprime um objeto e sai\n${USO}`);
  return a;
}

export interface Configuracao { url: string; segredo: string; arquivo: string }

/** The engine's URL and key from the environment, else from `npm start`'s .data/. */
export function lerConfiguracao(env: NodeJS.ProcessEnv, usuario: string): Configuracao {
  const dataDir = resolve(env.APP_DATA_DIR ?? join(projectRoot, '.data'));
  const arquivoUrl = join(dataDir, 'motor-url');
  const url = env.SYNC_ENGINE_URL?.trim() || (existsSync(arquivoUrl) ? readFileSync(arquivoUrl, 'utf8').trim() : '');
  if (!url) {
    throw new Recusa(SAIDA.config, `SYNC_ENGINE_URL não definida e ${arquivoUrl} não existe: defina SYNC_ENGINE_URL com a URL do motor`
      + ' (ou rode npm start com o motor, que grava a URL ali)');
  }
  let u: URL;
  try { u = new URL(url); } catch { throw new Recusa(SAIDA.config, `URL do motor inválida: ${url}`); }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Recusa(SAIDA.config, `URL do motor inválida (http ou https): ${url}`);

  const arquivoSegredos = join(dataDir, 'dev-secrets.json');
  let segredo = env.SYNC_ENGINE_JWT_SECRET?.trim() ?? '';
  if (!segredo && existsSync(arquivoSegredos)) {
    try {
      const s = (JSON.parse(readFileSync(arquivoSegredos, 'utf8')) as Record<string, unknown>).SYNC_ENGINE_JWT_SECRET;
      segredo = typeof s === 'string' ? s.trim() : '';
    } catch {
      throw new Recusa(SAIDA.config, `${arquivoSegredos} não é um JSON válido`);
    }
  }
  if (!segredo) {
    throw new Recusa(SAIDA.config, `sem a chave do motor: SYNC_ENGINE_JWT_SECRET não definida e ${arquivoSegredos} não a tem`
      + ' (defina SYNC_ENGINE_JWT_SECRET com a mesma chave do motor, PS_JWT_SECRET, em base64url)');
  }
  if (!/^[A-Za-z0-9_-]+$/.test(segredo) || Buffer.from(segredo, 'base64url').length < 16) {
    throw new Recusa(SAIDA.config, 'SYNC_ENGINE_JWT_SECRET inválida: esperada a chave do motor em base64url (pelo menos 16 bytes)');
  }
  return { url: u.toString().replace(/\/$/, ''), segredo, arquivo: join(dataDir, 'celular', `${usuario}.db`) };
}

const CODIGO: Record<CodigoErro, number> = {
  MOTOR_INACESSIVEL: SAIDA.motor, TEMPO_ESGOTADO: SAIDA.motor, DESCONECTADO: SAIDA.motor, TOKEN_RECUSADO: SAIDA.token, TABELA_DESCONHECIDA: SAIDA.uso,
};

export interface Saidas { out: (s: string) => void; err: (s: string) => void }

const hora = (d: Date) => d.toLocaleTimeString('pt-BR', { hour12: false });
const dataHora = (d: Date | null) => (d ? d.toLocaleString('pt-BR', { hour12: false }) : 'nunca');
const linhasTxt = (n: number) => `${n.toLocaleString('pt-BR')} ${n === 1 ? 'linha' : 'linhas'}`;

async function resumo(c: Celular, usuario: string, url: string): Promise<string> {
  const contagens = await c.contagens();
  const largura = Math.max(...Object.keys(contagens).map((t) => t.length));
  const total = Object.values(contagens).reduce((a, b) => a + b, 0);
  return [
    `celular de ${usuario} (motor ${url})`,
    ...Object.entries(contagens).map(([t, n]) => `  ${t.padEnd(largura)}  ${linhasTxt(n)}`),
    `  ${'total'.padEnd(largura)}  ${linhasTxt(total)}`,
    `ultimo_nuke: ${(await c.ultimoNuke()) ?? '(ausente)'}`,
    `última sincronização: ${dataHora(c.ultimaSincronizacao())}`,
  ].join('\n');
}

/**
 * The command: parses, connects, prints; resolves to the exit code. `parar` (--seguir) ends
 * it when it resolves (Ctrl-C in the entry point below).
 */
export async function executar(argv: readonly string[], env: NodeJS.ProcessEnv, io: Saidas, parar?: Promise<void>): Promise<number> {
  let celular: Celular | null = null;
  try {
    const a = lerArgumentos(argv);
    if (a.ajuda) { io.out(USO); return SAIDA.ok; }
    const cfg = lerConfiguracao(env, a.usuario);
    await sondarMotor(cfg.url);
    const aviso = (l: string) => io.err(`[celular] ${l}`);
    const c = await Celular.abrir({
      url: cfg.url,
      arquivo: cfg.arquivo,
      token: () => tokenCelular(cfg.segredo, a.usuario),
      log: a.seguir ? (l) => io.out(`[${hora(new Date())}] ${l}`) : aviso,
    });
    celular = c;
    const inicio = Date.now();
    await c.conectar();
    await c.aguardarSincronia(a.limiteS * 1000);
    if (a.json) {
      io.out(JSON.stringify({
        tabelas: await c.contagens(),
        ultimo_nuke: await c.ultimoNuke(),
        ultima_sincronizacao: c.ultimaSincronizacao()?.toISOString() ?? null,
      }));
      return SAIDA.ok;
    }
    io.out(await resumo(c, a.usuario, cfg.url));
    if (!a.seguir) {
      io.err(`[celular] sincronizado em ${((Date.now() - inicio) / 1000).toFixed(1)} s; arquivo ${cfg.arquivo}`);
      return SAIDA.ok;
    }
    io.out(`seguindo as mudanças (Ctrl-C encerra)…`);
    let anterior = await c.contagens();
    let fila = Promise.resolve();
    const pararMudancas = c.aoMudar((m) => {
      // one change after the other, each with the counts of its moment
      fila = fila.then(async () => {
        const agora = await c.contagens();
        for (const t of m.tabelas) {
          const d = (agora[t] ?? 0) - (anterior[t] ?? 0);
          io.out(`[${hora(m.quando)}] ${t}: ${linhasTxt(agora[t] ?? 0)} (${d > 0 ? `+${d}` : d < 0 ? String(d) : 'alteradas'})`);
        }
        anterior = agora;
      }).catch(() => undefined);
    });
    await (parar ?? new Promise<void>(() => undefined));
    pararMudancas();
    await fila;
    io.out(`encerrado; limpezas por ultimo_nuke nesta execução: ${c.limpezas}`);
    return SAIDA.ok;
  } catch (e) {
    if (e instanceof Recusa) { io.err(e.message); return e.codigo; }
    if (e instanceof ErroCelular) { io.err(`celular: ${e.message}`); return CODIGO[e.codigo]; }
    io.err(`celular: falha inesperada: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    await celular?.fechar().catch(() => undefined);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const parar = new Promise<void>((r) => {
    for (const sinal of ['SIGINT', 'SIGTERM'] as const) process.once(sinal, () => r());
  });
  const codigo = await executar(process.argv.slice(2), process.env, {
    out: (s) => process.stdout.write(`${s}\n`),
    err: (s) => process.stderr.write(`${s}\n`),
  }, parar);
  process.exit(codigo);
}
