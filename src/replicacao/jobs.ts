/**
 * The reset of the replication to the phones (job `replicacao_resetar`, one per execution,
 * claimed once across replicas). The ten steps of docs/replicacao.md run one at a time,
 * each recorded by SQL (replicacao_passo) before and after; SQL also decides the outcome
 * (replicacao_finalizar: ultimo_nuke; replicacao_falhar: ERRO). The job holds the
 * execution's advisory lock on a connection of its own for as long as it runs, so a process
 * that dies leaves an execution the orphan rule recognises (replicacao_recuperar).
 *
 * Failure rules: DROP_DOCSTORE fails -> RESUME is still attempted, then ERRO; any other
 * step fails -> ERRO at once, no automatic cleanup (replicacao_instrucoes says what to do).
 */
import pg from 'pg';
import type { AppContext } from '../context.js';
import type { Job, JobContext, JobHandler } from '../jobs/runner.js';
import { parseDocstoreUrl, type DocstoreAlvo, type ReplicatorConfig } from '../config.js';
import {
  replicacaoAssumir, replicacaoFalhar, replicacaoFinalizar, replicacaoLiberar, replicacaoParidadeConferir, replicacaoPasso,
  replicacaoPublicacaoRecriar, replicacaoSlots, replicacaoSlotsRemover, type Execucao, type Passo, type StatusPasso,
} from './db.js';
import { getService, resumeService, suspendService } from './hosting.js';
import { descreverDocstore, dropDocstore } from './docstore.js';
import { descreverDiferencas, lerMotor } from './paridade.js';
import { carregarConsultas } from './consultas.js';
import { flushErrtracker } from '../integrations/errtracker.js';

export const MSG_ORFA = 'interrompida após reinício da aplicação';

interface Resultado { status?: Exclude<StatusPasso, 'EM_ANDAMENTO' | 'ERRO'>; mensagem: string; slotNovo?: string }

class PassoFalhou extends Error {
  constructor(readonly passo: Passo, message: string) {
    super(message);
    this.name = 'PassoFalhou';
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('a aplicação está encerrando'));
    const t = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(new Error('a aplicação está encerrando')); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const segundos = (ms: number) => `${Math.round(ms / 100) / 10} s`;
const erroTexto = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function replicacaoJobHandler(ctx: AppContext): JobHandler {
  return async (job: Job, jctx: JobContext) => {
    const id = String(job.payload.id ?? '');
    if (!/^[0-9a-f-]{36}$/i.test(id)) throw new Error(`job ${job.id} sem payload.id de reset`);
    const cfg = ctx.config.replicator;
    // the connection that holds the execution's advisory lock for the whole run
    const conn = new pg.Client({ connectionString: ctx.config.databaseUrl, application_name: 'bi-comercial-replicacao', keepAlive: true });
    await conn.connect();
    conn.on('error', (err) => jctx.log.warn({ err }, 'conexão do reset da replicação caiu'));
    try {
      const exec = await replicacaoAssumir(conn, id, jctx.workerId, cfg.restart);
      if (!exec) {
        jctx.log.warn({ resetId: id }, 'reset da replicação já é executado por outra sessão');
        return;
      }
      if (exec.status !== 'EM_ANDAMENTO') {
        if (exec.status === 'ERRO' && exec.erro_mensagem === MSG_ORFA) await reportarErro(exec, jctx);
        return;
      }
      await executar(conn, exec, cfg, jctx);
    } finally {
      await replicacaoLiberar(conn, id).catch(() => undefined);
      await conn.end().catch(() => undefined);
    }
  };
}

export async function reportarErro(exec: Execucao, jctx: Pick<JobContext, 'log'>): Promise<void> {
  // ERROR logs reach the error tracker (src/integrations/errtracker.ts)
  jctx.log.error({ alerta: 'reset_replicacao_erro', resetId: exec.id, step: exec.step_falho ?? exec.step_atual, erro: exec.erro_mensagem },
    `Reset da replicação ${exec.id} terminou com ERRO (passo ${exec.step_falho ?? exec.step_atual ?? '—'}): ${exec.erro_mensagem}`);
  await flushErrtracker(5_000);
}

async function executar(conn: pg.Client, exec: Execucao, cfg: ReplicatorConfig, jctx: JobContext): Promise<void> {
  const id = exec.id;
  const { signal, log } = jctx;
  const hosting = cfg.restart === 'hosting' ? cfg.hosting : null;

  async function passo(nome: Passo, inicio: string | null, fn: () => Promise<Resultado>): Promise<Resultado> {
    await replicacaoPasso(conn, id, nome, 'EM_ANDAMENTO', inicio);
    let r: Resultado;
    try {
      if (signal.aborted) throw new Error('a aplicação está encerrando');
      r = await fn();
    } catch (err) {
      const msg = erroTexto(err);
      await replicacaoPasso(conn, id, nome, 'ERRO', msg);
      throw new PassoFalhou(nome, `${nome}: ${msg}`);
    }
    await replicacaoPasso(conn, id, nome, r.status ?? 'SUCESSO', r.mensagem, r.slotNovo ?? null);
    if (r.status === 'AVISO' || r.status === 'PULADO') log.warn({ resetId: id, step: nome }, r.mensagem);
    else log.info({ resetId: id, step: nome }, r.mensagem);
    return r;
  }

  async function falhar(err: unknown): Promise<void> {
    const fim = await replicacaoFalhar(conn, id, err instanceof PassoFalhou ? err.message : erroTexto(err));
    await reportarErro(fim, jctx);
  }

  /** Polls the prefixed slots of this database until `pronto` holds, within `limiteMs`. */
  async function aguardarSlots(limiteMs: number, pronto: (slots: Awaited<ReturnType<typeof replicacaoSlots>>) => boolean) {
    const fim = Date.now() + limiteMs;
    for (;;) {
      const slots = await replicacaoSlots(conn, cfg.slotPrefix);
      if (pronto(slots)) return slots;
      if (Date.now() >= fim) return null;
      await sleep(Math.min(cfg.pollMs, Math.max(fim - Date.now(), 10)), signal);
    }
  }

  let docstore: DocstoreAlvo | null = null;
  try {
    await passo('VALIDAR', 'conferindo configuração e conexões', async () => {
      if (!cfg.docstoreUrl) throw new Error('REPLICATOR_DOCSTORE_URL não definida: não há como apagar o docstore do motor');
      docstore = parseDocstoreUrl(cfg.docstoreUrl);
      const { rows } = await conn.query<{ wal: string; pode: boolean; papel: string }>(
        `select current_setting('wal_level') wal, (r.rolsuper or r.rolreplication) pode, r.rolname papel
           from pg_roles r where r.rolname = current_user`);
      if (rows[0]?.wal !== 'logical') throw new Error(`wal_level do banco é '${rows[0]?.wal}', e o motor de sincronização exige 'logical'`);
      if (!rows[0]?.pode) throw new Error(`o papel ${rows[0]?.papel} não tem o atributo REPLICATION: não pode remover slots`);
      // what the phones must hold, from this replica's sync configuration (VERIFICAR_PARIDADE compares with it)
      const tabelas = await carregarConsultas(conn);
      const partes = [`banco ok (wal_level=logical)`, `docstore: ${descreverDocstore(docstore)}`, `prefixo de slot: ${cfg.slotPrefix}`,
        `publicação: ${cfg.publication}`, `${tabelas} tabela(s) sincronizada(s)`];
      if (hosting) {
        const svc = await getService(hosting, signal);
        partes.push(`plataforma de hospedagem: serviço ${svc.name ?? svc.id} (${svc.suspended ?? 'estado desconhecido'})`);
      } else {
        partes.push('reinício do motor: MANUAL (REPLICATOR_RESTART=manual)');
      }
      return { mensagem: partes.join('; ') };
    });

    await passo('PAUSAR', hosting ? 'suspendendo o serviço do motor na plataforma de hospedagem' : null, async () => {
      if (!hosting) {
        return { status: 'AVISO', mensagem: `reinício manual: pare o motor de sincronização agora; o reset aguarda até ${segundos(cfg.paradaLimiteMs)} que todo slot ${cfg.slotPrefix}* fique inativo` };
      }
      await suspendService(hosting, signal);
      return { mensagem: `suspensão do serviço ${hosting.serviceId} pedida à plataforma de hospedagem` };
    });

    await passo('AGUARDAR_PARADA', `aguardando todo slot ${cfg.slotPrefix}* ficar inativo (limite ${segundos(cfg.paradaLimiteMs)})`, async () => {
      const inicio = Date.now();
      const slots = await aguardarSlots(cfg.paradaLimiteMs, (ss) => ss.every((s) => !s.active));
      if (!slots) {
        const ativos = (await replicacaoSlots(conn, cfg.slotPrefix)).filter((s) => s.active)
          .map((s) => `${s.slot_name} (pid ${s.active_pid ?? '?'})`);
        throw new Error(`slot(s) ainda ativo(s) após ${segundos(cfg.paradaLimiteMs)}: ${ativos.join(', ') || '—'}`);
      }
      return { mensagem: `motor parado em ${segundos(Date.now() - inicio)}: ${slots.length} slot(s) inativo(s)` };
    });

    await passo('RESET_SLOT', null, async () => {
      const removidos = await replicacaoSlotsRemover(conn, cfg.slotPrefix, id);
      return { mensagem: removidos.length ? `slot(s) removido(s): ${removidos.join(', ')}` : `nenhum slot ${cfg.slotPrefix}* existia` };
    });
  } catch (err) {
    await falhar(err);
    return;
  }

  let falhaDocstore: PassoFalhou | null = null;
  try {
    await passo('DROP_DOCSTORE', docstore ? `apagando ${descreverDocstore(docstore)}` : null, async () => ({
      mensagem: await dropDocstore(docstore!, cfg.docstoreTimeoutMs),
    }));
  } catch (err) {
    falhaDocstore = err as PassoFalhou;
  }

  try {
    if (falhaDocstore) {
      await replicacaoPasso(conn, id, 'RECRIAR_PUBLICACAO', 'PULADO', 'pulado: DROP_DOCSTORE falhou; a publicação existente foi mantida');
    } else {
      await passo('RECRIAR_PUBLICACAO', null, async () => {
        const n = await replicacaoPublicacaoRecriar(conn, cfg.publication);
        return { mensagem: `publicação ${cfg.publication} recriada com ${n} tabela(s) bi_*` };
      });
    }
    await passo('RESUME', hosting ? 'retomando o serviço do motor na plataforma de hospedagem' : null, async () => {
      if (!hosting) return { status: 'AVISO', mensagem: 'reinício manual: inicie o motor de sincronização agora' };
      await resumeService(hosting, signal);
      return { mensagem: `retomada do serviço ${hosting.serviceId} pedida à plataforma de hospedagem` };
    });
  } catch (err) {
    await falhar(falhaDocstore ? new Error(`${falhaDocstore.message}; ${erroTexto(err)}`) : err);
    return;
  }
  if (falhaDocstore) {
    await replicacaoPasso(conn, id, 'AGUARDAR_REPLICACAO', 'PULADO', 'pulado: DROP_DOCSTORE falhou');
    await falhar(falhaDocstore);
    return;
  }

  try {
    await passo('AGUARDAR_REPLICACAO', hosting ? `aguardando um slot ${cfg.slotPrefix}* ativo (limite ${segundos(cfg.replicacaoLimiteMs)})` : null, async () => {
      if (!hosting) {
        return { status: 'PULADO', mensagem: 'reinício manual: a volta da replicação não é aguardada; confira se um slot ficou ativo (select * from replicacao_slots();)' };
      }
      const inicio = Date.now();
      const slots = await aguardarSlots(cfg.replicacaoLimiteMs, (ss) => ss.some((s) => s.active));
      if (!slots) throw new Error(`nenhum slot ${cfg.slotPrefix}* ficou ativo em ${segundos(cfg.replicacaoLimiteMs)}`);
      const novo = slots.find((s) => s.active)!.slot_name;
      return { mensagem: `slot ${novo} ativo em ${segundos(Date.now() - inicio)}`, slotNovo: novo };
    });
    await passo('VERIFICAR_PARIDADE', `aguardando a cópia inicial do motor e conferindo a paridade com o Postgres (limite ${segundos(cfg.paridadeLimiteMs)})`, async () => {
      const inicio = Date.now();
      const fim = inicio + cfg.paridadeLimiteMs;
      if (docstore!.kind !== 'postgres') {
        return { status: 'AVISO', mensagem: `paridade não conferida: o armazenamento do motor é MongoDB (${descreverDocstore(docstore!)}); só um armazenamento Postgres é lido` };
      }
      let ultimo = '';
      // whether the engine's copy was done at the last look: a done copy is served to the phones,
      // whatever ultimo_nuke says (the engine's client syncs it without clearing); an unfinished one is not
      let copiaConcluida = false;
      for (;;) {
        const leitura = await lerMotor(docstore, cfg.docstoreTimeoutMs);
        copiaConcluida = leitura.lida;
        if (!leitura.lida) {
          // manual: nobody knows when the engine is back, so the reset does not wait for it
          if (!hosting) return { status: 'AVISO', mensagem: `reinício manual: paridade não conferida (${leitura.motivo}); confira-a na tela Replicação quando o motor voltar` };
          ultimo = leitura.motivo;
        } else {
          const r = await replicacaoParidadeConferir(conn, id, leitura.contagens);
          if (r.igual) {
            const linhas = r.tabelas.reduce((n, t) => n + t.postgres, 0);
            return { mensagem: `motor completo em ${segundos(Date.now() - inicio)}: ${r.tabelas.length} tabela(s), ${linhas} linha(s) iguais ao Postgres (checkpoint ${leitura.estado.checkpoint}, slot ${leitura.estado.slot ?? '?'})` };
          }
          ultimo = `tabelas diferentes: ${descreverDiferencas(r.tabelas)}`;
        }
        if (Date.now() >= fim) {
          const aparelhos = copiaConcluida
            ? 'ultimo_nuke não avançou (nenhum aparelho foi mandado limpar os dados), mas a cópia do motor está concluída: os aparelhos conectados já recebem o que ele serve, diferente do Postgres.'
            : 'ultimo_nuke não avançou: os aparelhos mantêm os dados que têm enquanto o motor não concluir a cópia.';
          throw new Error(`o motor não ficou igual ao Postgres em ${segundos(cfg.paridadeLimiteMs)}; ${aparelhos} ${ultimo}`);
        }
        await sleep(Math.min(cfg.pollMs, Math.max(fim - Date.now(), 10)), signal);
      }
    });
    await replicacaoPasso(conn, id, 'FINALIZAR', 'EM_ANDAMENTO', 'avançando ultimo_nuke');
    const fim = await replicacaoFinalizar(conn, id);
    log.info({ resetId: id, ultimoNuke: fim.ultimo_nuke }, 'reset da replicação concluído');
  } catch (err) {
    await falhar(err);
  }
}
