/**
 * Intake of the order webhook (POST /webhook/partner) after the secret check: group commit
 * to the database, with the local spool of this replica as the fallback, and the spool's
 * replay. docs/webhook.md ("Group commit", "Local spool") is the operator's view.
 *
 * - Group commit: deliveries waiting together are stored by one call of
 *   partner_webhook_receber_lote (one multi-row insert, one commit; its `lote` is this batch), flushed when
 *   `groupCommit.max` wait or `groupCommit.waitMs` after the first (0: once the deliveries read in this
 *   turn of the event loop are queued, by setImmediate); at most `groupCommit.inFlight` flushes in
 *   flight. A delivery is answered only after the commit of its flush.
 * - Budget: a delivery the database has not taken within `spool.orcamentoMs` of its arrival
 *   (failures are retried after 100, 400, 1000 ms inside the budget) is appended to the spool
 *   (fdatasync) and answered 200. While the database is known to be down, deliveries go to
 *   the spool at once. Without a spool (max 0) or with the spool full: 503.
 * - Replay: as soon as the database answers, the spool is stored in arrival order by the same
 *   SQL function, with the id chosen at intake and the arrival instant, so a record stored
 *   twice (a crash between the insert and the removal of its segment, a flush that committed
 *   after its budget ran out) is one row. Normalisation and its dedup are the database's, as
 *   for any delivery.
 * The spool is per replica and in-process state only for speed: what it holds is on disk.
 */
import { randomUUIDv7 } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { ConfigError, type PartnerConfig } from '../config.js';
import { partnerWebhookReceberLote, type EventoRecebido } from './db.js';
import { reportWarning } from '../integrations/errtracker.js';
import { readSegment, SpoolFull, WebhookSpool, type SpoolState, type SpoolRecord } from './spool.js';

declare module '../context.js' {
  interface AppContext {
    /** the order webhook's group commit, local spool and replay; buildApp makes it when absent */
    partnerIntake?: PartnerIntake;
  }
}

/** Delays between attempts to store a delivery when the database fails, inside the budget. */
export const STORE_RETRY_DELAYS_MS = [100, 400, 1000];
/** Bytes of bodies one group-commit flush carries at most (a large body goes with fewer others). */
const FLUSH_MAX_BYTES = 8 * 1024 * 1024;
/** Records and bytes the replay stores per transaction. */
const REPLAY_BATCH = 500;
const REPLAY_BATCH_BYTES = 8 * 1024 * 1024;
/** Wait between replay attempts while the database does not answer. */
const REPLAY_ESPERA_MS = 500;

export type Destino = 'banco' | 'spool';

/** Neither the database (within the budget) nor the spool took the delivery: 503. */
export class NaoGravado extends Error {
  constructor(message: string, readonly causa: unknown, readonly spoolCheio: boolean) {
    super(message);
  }
}

interface Item {
  evento: EventoRecebido;
  cancelado: boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
}

class Timeout extends Error {}

/**
 * Arrival instants as ISO-8601 with microseconds: the wall clock's milliseconds, and a
 * counter in the microseconds so that they are strictly increasing in this process.
 */
let ultimoMicros = 0;
function agoraMicros(): number {
  const micros = Math.max(Date.now() * 1000, ultimoMicros + 1);
  ultimoMicros = micros;
  return micros;
}
/** `micros` (of agoraMicros) as ISO-8601; formatted only when needed (a spooled delivery), not for every one. */
function isoMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  return new Date(ms).toISOString().replace(/Z$/, `${String(micros % 1000).padStart(3, '0')}Z`);
}
export function agoraIso(): string {
  return isoMicros(agoraMicros());
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class PartnerIntake {
  readonly spool: WebhookSpool;
  private pending: Item[] = [];
  private timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  private emVoo = 0;
  /** set when a delivery had to be spooled or a replay failed; cleared by a commit */
  private dbUnavailable = false;
  /** a spooling episode: from the first record spooled to the spool emptied by the replay */
  private episodio: { desde: string; registros: number } | null = null;
  private running = false;
  private replayLoop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private danosReportados = new Set<string>();

  constructor(private readonly pool: pg.Pool, private readonly cfg: PartnerConfig, private readonly log: FastifyBaseLogger) {
    this.spool = new WebhookSpool(cfg.spool.dir, cfg.spool.maxBytes);
    this.spool.onAppend(() => this.wake?.());
  }

  /** Opens the spool (counting what a previous process left) and starts the replay. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.spool.open();
    } catch (err) {
      this.running = false;
      throw new ConfigError(`spool do webhook do parceiro inacessível em ${this.spool.dir} (PARTNER_WEBHOOK_SPOOL_DIR): ${(err as Error).message}`);
    }
    const st = this.spool.estado();
    if (st.registros > 0) {
      this.episodio = { desde: st.maisAntigoEm ?? agoraIso(), registros: st.registros };
      const msg = `Webhook do parceiro: ${st.registros} evento(s) no spool local deixados por um processo anterior (desde ${st.maisAntigoEm}): reenviando ao banco`;
      this.log.warn({ registros: st.registros, bytes: st.bytes, maisAntigoEm: st.maisAntigoEm, dir: this.spool.dir }, msg);
      reportWarning(msg, { registros: st.registros, dir: this.spool.dir }, { area: 'partner_webhook' });
    }
    if (this.spool.habilitado) this.replayLoop = this.replay();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.replayLoop;
    await this.spool.close().catch(() => undefined);
  }

  /** Deliveries waiting for a group-commit flush right now. */
  get emEspera(): number {
    return this.pending.length;
  }

  /** The spool block of GET /api/partner/status: its keys are that JSON's (kept), not identifiers. */
  estado(): SpoolState & { ativo: boolean; bancoIndisponivel: boolean; idadeSegundos: number | null } {
    const st = this.spool.estado();
    const idade = st.maisAntigoEm ? Math.max(0, (Date.now() - Date.parse(st.maisAntigoEm)) / 1000) : null;
    return { ...st, ativo: this.episodio !== null, bancoIndisponivel: this.dbUnavailable, idadeSegundos: idade };
  }

  /**
   * Stores one delivery: in the database (group commit) within the budget, else in the spool.
   * Resolves with the id and where it went, once it is durable; NaoGravado otherwise.
   */
  async receber(corpo: Buffer, meta: { contentType: string | null; ip: string | null; userAgent: string | null }): Promise<{ id: string; destino: Destino }> {
    const chegada = agoraMicros();
    // UUIDv7 (time first): partner_webhook's primary key grows at its right edge instead of
    // taking each insert on a random leaf page (docs/webhook.md, "Group commit")
    const evento: EventoRecebido = { id: randomUUIDv7(), corpo, ...meta, recebidoEm: null };
    const prazo = Date.now() + this.cfg.spool.orcamentoMs;
    let causa: unknown = null;
    if (!(this.spool.habilitado && this.dbUnavailable)) {
      for (let attempt = 0; ; attempt++) {
        try {
          await this.noBanco(evento, prazo);
          return { id: evento.id, destino: 'banco' };
        } catch (err) {
          causa = err;
          const espera = STORE_RETRY_DELAYS_MS[attempt];
          if (err instanceof Timeout || espera === undefined || Date.now() + espera >= prazo) break;
          this.log.warn({ err, tentativa: attempt + 1 }, 'falha ao gravar o webhook do parceiro; tentando de novo');
          await sleep(espera);
        }
      }
    }
    if (!this.spool.habilitado) {
      throw new NaoGravado('webhook do parceiro NÃO gravado: banco indisponível', causa, false);
    }
    const recebidoEm = isoMicros(chegada);
    try {
      await this.spool.append({ id: evento.id, recebidoEm, contentType: meta.contentType, ip: meta.ip, userAgent: meta.userAgent, corpo });
    } catch (err) {
      const cheio = err instanceof SpoolFull;
      throw new NaoGravado(cheio
        ? `webhook do parceiro NÃO gravado: banco indisponível e ${err.message}`
        : 'webhook do parceiro NÃO gravado: banco indisponível e falha ao gravar no spool local', err, cheio);
    }
    // later deliveries go straight to the spool until the replay gets through
    this.dbUnavailable = true;
    if (!this.episodio) {
      this.episodio = { desde: recebidoEm, registros: 0 };
      const msg = `Webhook do parceiro: banco indisponível, eventos gravados no spool local desde ${recebidoEm}`;
      this.log.warn({ err: causa, dir: this.spool.dir }, msg);
      reportWarning(msg, { dir: this.spool.dir, causa: causa instanceof Error ? causa.message : String(causa) }, { area: 'partner_webhook' });
    }
    this.episodio.registros += 1;
    return { id: evento.id, destino: 'spool' };
  }

  /** Waits for the commit of the flush that carries `evento`, at most until `prazo`. */
  private noBanco(evento: EventoRecebido, prazo: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const item: Item = { evento, cancelado: false, resolve: () => undefined, reject: () => undefined };
      const t = setTimeout(() => {
        item.cancelado = true; // not flushed yet: it never will be; in flight: a late commit is deduped by id
        reject(new Timeout(`o banco não gravou o evento em ${this.cfg.spool.orcamentoMs} ms`));
      }, Math.max(0, prazo - Date.now()));
      item.resolve = () => { clearTimeout(t); resolve(); };
      item.reject = (err) => { clearTimeout(t); reject(err); };
      this.pending.push(item);
      if (this.pending.length >= this.cfg.groupCommit.max) this.kick();
      // 0: flushed once the deliveries read in this turn of the event loop are queued (a free
      // slot takes them at once; while every slot is busy they gather for the next flush)
      else this.timer ??= this.cfg.groupCommit.waitMs === 0 ? setImmediate(() => this.kick()) : setTimeout(() => this.kick(), this.cfg.groupCommit.waitMs);
    });
  }

  private kick(): void {
    if (this.timer) {
      if (this.cfg.groupCommit.waitMs === 0) clearImmediate(this.timer as NodeJS.Immediate);
      else clearTimeout(this.timer as NodeJS.Timeout);
      this.timer = null;
    }
    while (this.pending.length > 0 && this.emVoo < this.cfg.groupCommit.inFlight) {
      // at most groupCommit.max deliveries and FLUSH_MAX_BYTES of bodies (at least one) per flush
      let n = 0;
      for (let bytes = 0; n < this.pending.length && n < this.cfg.groupCommit.max; n++) {
        bytes += this.pending[n]!.evento.corpo.length;
        if (n > 0 && bytes > FLUSH_MAX_BYTES) break;
      }
      const batch = this.pending.splice(0, n).filter((i) => !i.cancelado);
      if (batch.length === 0) continue;
      this.emVoo += 1;
      void this.flush(batch).finally(() => {
        this.emVoo -= 1;
        // what arrived during the flush has waited already: flush it now
        if (this.pending.length > 0) this.kick();
      });
    }
  }

  private async flush(batch: Item[]): Promise<void> {
    try {
      await partnerWebhookReceberLote(this.pool, batch.map((i) => i.evento));
    } catch (err) {
      for (const i of batch) i.reject(err);
      return;
    }
    this.dbUnavailable = false;
    for (const i of batch) i.resolve();
  }

  /** Replays the spool into the database, oldest segment first, while the service runs. */
  private async replay(): Promise<void> {
    while (this.running) {
      if (this.spool.estado().registros === 0 && this.spool.selados().length === 0) {
        if (this.episodio) this.fimDoEpisodio();
        // nothing to replay: the next delivery tries the database again
        this.dbUnavailable = false;
        await new Promise<void>((r) => {
          this.wake = r;
          setTimeout(r, 1000).unref();
        });
        this.wake = null;
        continue;
      }
      try {
        await this.replayUmaVez();
      } catch (err) {
        if (!this.dbUnavailable) this.log.warn({ err }, 'spool do webhook do parceiro: o banco ainda não aceita o reenvio');
        this.dbUnavailable = true;
        await new Promise<void>((r) => {
          this.wake = null;
          setTimeout(r, REPLAY_ESPERA_MS).unref();
        });
      }
    }
  }

  private async replayUmaVez(): Promise<void> {
    if (this.spool.selados().length === 0) {
      // seal the segment being written only when the database answers: one segment per outage, not one per attempt
      await this.pool.query('select 1');
      await this.spool.seal();
    }
    for (const seg of this.spool.selados()) {
      if (!this.running) return;
      let batch: SpoolRecord[] = [];
      let bytes = 0;
      let fim = seg.offset;
      let danificado = false;
      const gravar = async (proximo: string | null) => {
        if (batch.length > 0) {
          await partnerWebhookReceberLote(this.pool, batch.map((r) => ({
            id: r.id, corpo: r.corpo, contentType: r.contentType, ip: r.ip, userAgent: r.userAgent, recebidoEm: r.recebidoEm,
          })));
          this.dbUnavailable = false;
        }
        this.spool.avancar(seg, batch.length, fim, proximo);
        batch = [];
        bytes = 0;
      };
      for await (const it of readSegment(this.spool.path(seg), seg.offset)) {
        if (it.tipo === 'dano') {
          danificado = true;
          const chave = `${seg.nome}:${it.inicio}`;
          if (!this.danosReportados.has(chave)) {
            this.danosReportados.add(chave);
            // ERROR: the error tracker hears it through the logger
            this.log.error({ arquivo: this.spool.path(seg), offset: it.inicio, bytes: it.bytes, motivo: it.motivo },
              `spool do webhook do parceiro: registro danificado em ${seg.nome} (offset ${it.inicio}, ${it.bytes} bytes: ${it.motivo}); descartado, os demais são reenviados`);
          }
          fim = it.fim;
          continue;
        }
        if (batch.length >= REPLAY_BATCH || bytes + it.bytes > REPLAY_BATCH_BYTES) {
          // stopping: the segment stays; the next start replays it (what was stored is skipped by id)
          if (!this.running) return;
          await gravar(it.registro.recebidoEm);
        }
        batch.push(it.registro);
        bytes += it.bytes;
        fim = it.fim;
      }
      await gravar(null);
      const guardado = await this.spool.remover(seg, danificado);
      if (guardado) this.log.warn({ arquivo: guardado }, 'spool do webhook do parceiro: segmento com registro danificado guardado para inspeção');
    }
  }

  private fimDoEpisodio(): void {
    const ep = this.episodio!;
    this.episodio = null;
    const msg = `Webhook do parceiro: spool local esvaziado, ${ep.registros} evento(s) gravados no spool desde ${ep.desde} reenviados ao banco`;
    this.log.warn({ registros: ep.registros, desde: ep.desde }, msg);
    reportWarning(msg, { registros: ep.registros, desde: ep.desde }, { area: 'partner_webhook' });
  }
}
