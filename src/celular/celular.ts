/**
 * The reference phone: a small client that does, with the engine's own client
 * (@powersync/node on Node's built-in SQLite), what the sales team's app must do on a phone.
 * `npm run celular` (cli.ts) shows what a phone sees; the engine test lane drives it as its
 * phone. Its schema is esquema.ts (generated; the file the mobile team copies).
 *
 * THE ultimo_nuke RULE — the contract every phone app implements:
 *
 *   `bi_configuracao` (bucket `configuracao`, priority 0: it arrives before every other
 *   bucket, also while uploads are pending) holds the row `chave = 'ultimo_nuke'`, an instant
 *   the server advances when it resets the replication (docs/replicacao.md, "The reset": the
 *   engine's storage is dropped and rebuilt, so what a phone holds no longer matches it).
 *
 *   1. The phone remembers the last `ultimo_nuke` it saw, in local-only storage that survives
 *      restarts and is NOT cleared with the synced data (here: the local-only table
 *      `celular_estado`, cleared with `disconnectAndClear({ clearLocal: false })`).
 *   2. Whenever the synced value changes (watch `bi_configuracao`), compare it with the
 *      remembered one:
 *      - nothing remembered yet (first install, first sync): remember it, nothing else;
 *      - the same value: nothing;
 *      - a different value: disconnect, clear the local data (`disconnectAndClear`), THEN
 *        remember the new value, then connect again: the phone syncs from zero.
 *      The order matters: a phone that dies between the clear and the remembering clears once
 *      more at the next start (harmless); remembering first could leave stale data for ever.
 *   3. No value (the row is absent, e.g. right after a clear): nothing.
 *
 * The API is stable (the engine test lane uses it): abrir → conectar → aguardarSincronia →
 * linhas/contagens/ultimoNuke/ultimaSincronizacao/limpezas → aoMudar → desconectar → fechar.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PowerSyncDatabase } from '@powersync/node';
import { column, LogLevels, Schema, Table, type LogRecord, type PowerSyncBackendConnector } from '@powersync/common';
import { AppSchema } from './esquema.js';

/** Every table a phone receives (the generated schema's), in the schema's order. */
export const TABELAS: readonly string[] = AppSchema.tables.map((t) => t.name);

/** The phone's own state (local-only: never uploaded, kept when the synced data is cleared). */
const ESTADO = 'celular_estado';
const CHAVE_NUKE = 'ultimo_nuke';

const esquemaCelular = new Schema([...AppSchema.tables, new Table({ valor: column.text }, { localOnly: true }).copyWithName(ESTADO)]);

export type CodigoErro = 'TOKEN_RECUSADO' | 'TEMPO_ESGOTADO' | 'DESCONECTADO' | 'MOTOR_INACESSIVEL' | 'TABELA_DESCONHECIDA';

/** A failure with a pt-BR message for staff and a code for callers. */
export class ErroCelular extends Error {
  constructor(readonly codigo: CodigoErro, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ErroCelular';
  }
}

export interface OpcoesCelular {
  /** The engine's base URL (e.g. http://127.0.0.1:8080). */
  url: string;
  /** A fresh token for the phone's user (tokenCelular), asked for at every (re)connection. */
  token: () => string | Promise<string>;
  /** The phone's SQLite file (its folder is created). */
  arquivo: string;
  /** The phone's own events, one pt-BR line each (a clear after a new ultimo_nuke, …). */
  log?: (linha: string) => void;
  /** The engine client's own log records (default: discarded). */
  logSdk?: (registro: LogRecord) => void;
  /** Delay between reconnection attempts after an error (default 1000 ms; the SDK's is 5 s). */
  retryDelayMs?: number;
}

export interface Mudanca {
  /** the bi_* tables that changed */
  tabelas: string[];
  quando: Date;
}

type Linha = Record<string, unknown>;

const mensagem = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The whole chain of an error's messages (the SDK wraps the HTTP answer in causes). */
function mensagens(e: unknown): string {
  const out: string[] = [];
  for (let c: unknown = e, i = 0; c != null && i < 5; c = (c as { cause?: unknown }).cause, i += 1) out.push(mensagem(c));
  return out.join(': ');
}

/**
 * One line for an engine error: the engine's JSON answer (`401 PSYNC_S2101: signature
 * verification failed`) when the chain carries one, else the messages.
 */
export function resumoErro(e: unknown): string {
  const texto = mensagens(e);
  const m = /"code":"([^"]+)","status":(\d+),"description":"([^"]*)"/.exec(texto);
  return m ? `${m[2]} ${m[1]}: ${m[3]}` : texto;
}

/** Is this download error the engine refusing the token (401/403, PSYNC_S21xx)? */
export function tokenRecusado(e: unknown): boolean {
  return /\b(401|403)\b|PSYNC_S21\d\d/.test(mensagens(e));
}

/**
 * Does the engine answer at `url`? Any HTTP answer counts (the probe path may be closed by
 * a proxy); only a network failure or no answer within `timeoutMs` is MOTOR_INACESSIVEL.
 */
export async function sondarMotor(url: string, timeoutMs = 5000): Promise<void> {
  try {
    await fetch(new URL('/probes/liveness', url), { signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw new ErroCelular('MOTOR_INACESSIVEL', `motor de sincronização inacessível em ${url} (${resumoErro(e)})`, { cause: e });
  }
}

export class Celular {
  private readonly db: PowerSyncDatabase;
  private readonly conector: PowerSyncBackendConnector;
  private querConectado = false;
  private _limpezas = 0;
  /** the ultimo_nuke checks, one at a time, in order */
  private fila: Promise<void> = Promise.resolve();
  private readonly pararVigia: () => void;
  private ultimoErro: unknown;

  private constructor(private readonly opcoes: OpcoesCelular) {
    mkdirSync(dirname(opcoes.arquivo), { recursive: true });
    this.db = new PowerSyncDatabase({
      schema: esquemaCelular,
      // the whole path as the file name: the engine's client keys its sync lock (one sync at a time per
      // database, across instances of a process) by that name, so files named alike in different folders
      // would wait for each other
      database: { dbFilename: resolve(opcoes.arquivo), implementation: { type: 'node:sqlite' }, readWorkerCount: 1 },
      logger: { log: (r: LogRecord) => { if (r.level >= LogLevels.warn) opcoes.logSdk?.(r); } },
    });
    this.conector = {
      fetchCredentials: async () => ({ endpoint: opcoes.url, token: await opcoes.token() }),
      uploadData: async () => undefined, // the phones only read
    };
    // the rule: every change of bi_configuracao is checked (the value, not the event, decides)
    this.pararVigia = this.db.onChange({ onChange: () => { void this.verificarNuke().catch(() => undefined); } }, { tables: ['bi_configuracao'], throttleMs: 0 });
    this.db.registerListener({ statusChanged: (s) => { if (s.dataFlowStatus.downloadError) this.ultimoErro = s.dataFlowStatus.downloadError; } });
  }

  /** Opens (or creates) the phone's database and applies the rule to what it already holds. */
  static async abrir(opcoes: OpcoesCelular): Promise<Celular> {
    const c = new Celular(opcoes);
    await c.db.init();
    await c.verificarNuke();
    return c;
  }

  /** Starts syncing (in the background: aguardarSincronia waits for the data). */
  async conectar(): Promise<void> {
    this.querConectado = true;
    this.ultimoErro = undefined;
    await this.db.connect(this.conector, this.opcoesSync());
  }

  async desconectar(): Promise<void> {
    this.querConectado = false;
    await this.db.disconnect();
  }

  /** Disconnects and closes the database; the instance cannot be used afterwards. */
  async fechar(): Promise<void> {
    this.querConectado = false;
    this.pararVigia();
    await this.fila.catch(() => undefined);
    await this.db.close({ disconnect: true });
  }

  /** The engine client's database underneath (for tests and diagnostics: raw SQL, the sync status). */
  get banco(): PowerSyncDatabase {
    return this.db;
  }

  /** Connected to the engine right now? */
  get conectado(): boolean {
    return this.db.currentStatus.connected;
  }

  /** How many times this instance cleared its data because ultimo_nuke changed. */
  get limpezas(): number {
    return this._limpezas;
  }

  /**
   * Resolves once the phone holds the engine's latest checkpoint: it asks the engine for a
   * checkpoint (a checkpoint request: the engine answers with one at least as recent as the
   * source database's current position, so a row committed before the call is in it), waits
   * until that checkpoint is applied locally (complete, every priority) and nothing is
   * downloading, and applies the ultimo_nuke rule to it (a clear starts over: connect,
   * sync from zero). Fails with TOKEN_RECUSADO at once when the engine refuses the token,
   * TEMPO_ESGOTADO after `timeoutMs` (with the last sync error), DESCONECTADO when not
   * connected.
   */
  async aguardarSincronia(timeoutMs = 60_000): Promise<void> {
    const limite = AbortSignal.timeout(timeoutMs);
    const esgotado = () => new ErroCelular('TEMPO_ESGOTADO', `o celular não alcançou o motor em ${Math.round(timeoutMs / 1000)} s`
      + (this.ultimoErro ? ` (último erro: ${resumoErro(this.ultimoErro)})` : ''), { cause: this.ultimoErro });
    // the engine refusing the token ends the wait at once, whichever step is waiting
    let recusar: (e: ErroCelular) => void = () => undefined;
    const recusa = new Promise<never>((_, reject) => { recusar = reject; });
    recusa.catch(() => undefined);
    const pararVigia = this.db.registerListener({ statusChanged: (s) => {
      const erro = s.dataFlowStatus.downloadError;
      if (erro && tokenRecusado(erro)) recusar(this.recusado(erro));
    } });
    const esperar = <T>(p: Promise<T>) => Promise.race([this.comLimite(p, limite), recusa]);
    try {
      for (;;) {
        await esperar(this.fila);
        if (!this.querConectado) throw new ErroCelular('DESCONECTADO', 'o celular não está conectado (conectar() antes de aguardarSincronia)');
        const limpezasAntes = this._limpezas;
        let pedido;
        try {
          pedido = await esperar(this.db.requestCheckpoint());
        } catch (e) {
          if (limite.aborted || e instanceof ErroCelular) throw e;
          if (tokenRecusado(e)) throw this.recusado(e);
          this.ultimoErro = e; // the engine restarting, a network error: ask again
          await esperar(new Promise((r) => setTimeout(r, 500)));
          continue;
        }
        const feito = pedido;
        await esperar(this.db.waitForStatus((s) => this._limpezas !== limpezasAntes
          || (feito.hasSynced && !s.dataFlowStatus.downloading), limite));
        if (limite.aborted) throw esgotado();
        await esperar(this.verificarNuke());
        await esperar(this.fila);
        if (this._limpezas === limpezasAntes) return;
        // cleared meanwhile: the checkpoint asked for belonged to the data before the clear
      }
    } catch (e) {
      if (limite.aborted && !(e instanceof ErroCelular && e.codigo === 'TOKEN_RECUSADO')) throw esgotado();
      throw e;
    } finally {
      pararVigia();
    }
  }

  /** The rows of a synced table, ordered by id, with the synced columns (id first). */
  async linhas(tabela: string): Promise<Linha[]> {
    const t = AppSchema.tables.find((x) => x.name === tabela);
    if (!t) throw new ErroCelular('TABELA_DESCONHECIDA', `tabela desconhecida no celular: ${tabela}`);
    const colunas = ['id', ...t.columns.map((c) => c.name)].map((c) => `"${c}"`).join(', ');
    return this.db.getAll<Linha>(`select ${colunas} from "${tabela}" order by id`);
  }

  /** Rows per synced table ({ bi_…: n }), tables in alphabetical order. */
  async contagens(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const t of [...TABELAS].sort()) {
      out[t] = (await this.db.get<{ n: number }>(`select count(*) as n from "${t}"`)).n;
    }
    return out;
  }

  /** The synced `ultimo_nuke` (null before the first sync or right after a clear). */
  async ultimoNuke(): Promise<string | null> {
    const r = await this.db.getOptional<{ valor: string | null }>('select valor from bi_configuracao where chave = ?', [CHAVE_NUKE]);
    return r?.valor ?? null;
  }

  /** When the phone last applied a complete checkpoint (kept across restarts), or null. */
  ultimaSincronizacao(): Date | null {
    return this.db.currentStatus.lastSyncedAt ?? null;
  }

  /**
   * Calls `cb` as synced tables change (rows arriving, a clear emptying them), at most every
   * `throttleMs`. Returns the function that stops it.
   */
  aoMudar(cb: (m: Mudanca) => void, throttleMs = 100): () => void {
    return this.db.onChange({
      onChange: (e) => {
        const tabelas = [...new Set(e.changedTables.map((t) => t.replace(/^ps_data__/, '')))].filter((t) => TABELAS.includes(t)).sort();
        if (tabelas.length > 0) cb({ tabelas, quando: new Date() });
      },
    }, { tables: [...TABELAS], throttleMs });
  }

  /** The ultimo_nuke rule (header), queued so that checks never overlap. */
  private verificarNuke(): Promise<void> {
    const passo = this.fila.then(() => this.aplicarRegra());
    this.fila = passo.catch((e: unknown) => { this.opcoes.log?.(`falha ao aplicar a regra do ultimo_nuke: ${mensagens(e)}`); });
    return passo;
  }

  private async aplicarRegra(): Promise<void> {
    if (this.db.closed) return;
    const atual = await this.ultimoNuke();
    if (atual === null) return;
    const lembrado = (await this.db.getOptional<{ valor: string | null }>(`select valor from ${ESTADO} where id = ?`, [CHAVE_NUKE]))?.valor ?? null;
    if (lembrado === atual) return;
    if (lembrado === null) {
      await this.lembrar(atual);
      this.opcoes.log?.(`ultimo_nuke ${atual} (primeira vez: guardado)`);
      return;
    }
    this.opcoes.log?.(`ultimo_nuke mudou de ${lembrado} para ${atual}: limpando os dados e sincronizando do zero`);
    const reconectar = this.querConectado;
    await this.db.disconnectAndClear({ clearLocal: false });
    await this.lembrar(atual);
    this._limpezas += 1;
    if (reconectar && this.querConectado) {
      await this.db.connect(this.conector, this.opcoesSync());
    }
  }

  /** Checkpoint requests (engine 1.24+): what aguardarSincronia asks for. */
  private opcoesSync() {
    return { checkpointMode: 'requests' as const, retryDelayMs: this.opcoes.retryDelayMs ?? 1000 };
  }

  private async lembrar(valor: string): Promise<void> {
    await this.db.writeTransaction(async (tx) => {
      await tx.execute(`delete from ${ESTADO} where id = ?`, [CHAVE_NUKE]);
      await tx.execute(`insert into ${ESTADO} (id, valor) values (?, ?)`, [CHAVE_NUKE, valor]);
    });
  }

  private recusado(e: unknown): ErroCelular {
    return new ErroCelular('TOKEN_RECUSADO', `o motor recusou o token do celular (${resumoErro(e)})`, { cause: e });
  }

  /** `p`, or a rejection when `limite` aborts first. */
  private comLimite<T>(p: Promise<T>, limite: AbortSignal): Promise<T> {
    if (limite.aborted) return Promise.reject(limite.reason);
    return new Promise<T>((resolve, reject) => {
      const abortar = () => reject(limite.reason);
      limite.addEventListener('abort', abortar, { once: true });
      p.then((v) => { limite.removeEventListener('abort', abortar); resolve(v); },
        (e: unknown) => { limite.removeEventListener('abort', abortar); reject(e); });
    });
  }
}
