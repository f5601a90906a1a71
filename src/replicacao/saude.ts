/**
 * Replication health (docs/replicacao.md, "Replication health"): the sync engine's prefixed
 * slots as public.replicacao_saude sees them, the engine's liveness probe, and the situation
 * in staff words. One reading serves the panel of /admin/replicacao and
 * GET /api/transporte/admin/replicacao/saude.
 */
import type pg from 'pg';
import type { ReplicatorConfig } from '../config.js';
import { replicacaoSaude, type SlotSaudeRow } from './db.js';

/** The liveness probe's time limit: a panel must not wait long for an engine that hangs. */
export const SONDA_TIMEOUT_MS = 2000;

/** Lag that deserves attention when it stays (an import of a spreadsheet makes it rise for a while). */
export const ATRASO_BYTES_ATENCAO = 256 * 1000 * 1000;
export const ATRASO_SEGUNDOS_ATENCAO = 5 * 60;

export type Nivel = 'ok' | 'atencao' | 'erro';

export interface MotorSaude {
  /** SYNC_ENGINE_URL set */
  configurado: boolean;
  /** GET {url}/probes/liveness answered 2xx within SONDA_TIMEOUT_MS; null when not configured */
  acessivel: boolean | null;
  /** the probe's HTTP status, null when nothing answered */
  httpStatus: number | null;
  /** why it is not reachable, in words */
  erro: string | null;
  /** how long the probe took */
  duracaoMs: number | null;
}

export interface SlotSaude {
  slotName: string;
  active: boolean;
  activePid: number | null;
  confirmedFlushLsn: string | null;
  currentLsn: string | null;
  lagBytes: number | null;
  retainedBytes: number | null;
  writeLagSeconds: number | null;
  flushLagSeconds: number | null;
  replayLagSeconds: number | null;
  walStatus: string | null;
  safeWalSize: number | null;
  inactiveSince: string | null;
  inactiveAtLeast: boolean | null;
}

export interface Situacao { nivel: Nivel; titulo: string; texto: string }

export interface Saude {
  verificadoEm: string;
  situacao: Situacao;
  motor: MotorSaude;
  slots: SlotSaude[];
}

/** GET {url}/probes/liveness: reachable when it answers 2xx within the limit (redirects are not followed). */
export async function sondarMotor(url: string | null, timeoutMs = SONDA_TIMEOUT_MS): Promise<MotorSaude> {
  if (!url) return { configurado: false, acessivel: null, httpStatus: null, erro: null, duracaoMs: null };
  const inicio = Date.now();
  try {
    const res = await fetch(`${url.replace(/\/+$/, '')}/probes/liveness`, {
      method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' },
    });
    await res.body?.cancel().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return { configurado: true, acessivel: ok, httpStatus: res.status, erro: ok ? null : `respondeu HTTP ${res.status}`, duracaoMs: Date.now() - inicio };
  } catch (err) {
    return { configurado: true, acessivel: false, httpStatus: null, erro: motivoFalha(err, timeoutMs), duracaoMs: Date.now() - inicio };
  }
}

function motivoFalha(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `sem resposta em ${segundosTexto(timeoutMs / 1000)}`;
  const code = e.cause?.code;
  if (code === 'ECONNREFUSED') return 'conexão recusada (nada escuta nesse endereço)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'nome do servidor não encontrado';
  if (code === 'ECONNRESET') return 'a conexão caiu';
  return e.cause?.message ?? e.message ?? String(err);
}

export function toSlotSaude(r: SlotSaudeRow): SlotSaude {
  return {
    slotName: r.slot_name, active: r.active, activePid: r.active_pid,
    confirmedFlushLsn: r.confirmed_flush_lsn, currentLsn: r.current_lsn,
    lagBytes: r.lag_bytes, retainedBytes: r.retained_bytes,
    writeLagSeconds: r.write_lag_s, flushLagSeconds: r.flush_lag_s, replayLagSeconds: r.replay_lag_s,
    walStatus: r.wal_status, safeWalSize: r.safe_wal_size,
    inactiveSince: r.inactive_since === null ? null : new Date(r.inactive_since).toISOString(),
    inactiveAtLeast: r.inactive_at_least,
  };
}

/** The time lag staff read: what the engine has applied, else flushed, else received (null: no recent measure). */
export function atrasoSegundos(s: SlotSaude): number | null {
  return s.replayLagSeconds ?? s.flushLagSeconds ?? s.writeLagSeconds;
}

/** One slot's level: lost WAL or no client is an error; a large lag or WAL at risk needs attention. */
export function nivelSlot(s: SlotSaude): Nivel {
  if (s.walStatus === 'lost' || !s.active) return 'erro';
  const t = atrasoSegundos(s);
  if (s.walStatus === 'unreserved' || (s.lagBytes ?? 0) >= ATRASO_BYTES_ATENCAO || (t ?? 0) >= ATRASO_SEGUNDOS_ATENCAO) return 'atencao';
  return 'ok';
}

/** The panel's headline: the worst of the engine and the slots, in staff words. */
export function situacao(motor: MotorSaude, slots: SlotSaude[], agora = new Date()): Situacao {
  const ativos = slots.filter((s) => s.active);
  const motorFora = motor.configurado && !motor.acessivel;
  if (slots.some((s) => s.walStatus === 'lost')) {
    return { nivel: 'erro', titulo: 'Replicação perdida',
      texto: 'O banco já descartou parte do histórico de alterações de que o motor precisava: o motor não consegue continuar. Faça um reset da replicação (abaixo).' };
  }
  if (motorFora && ativos.length === 0) {
    return { nivel: 'erro', titulo: 'Replicação parada: motor inacessível',
      texto: 'O motor de sincronização não responde e não está lendo o banco: os celulares não recebem novidades nem conseguem sincronizar. Confira se o serviço do motor está no ar.' };
  }
  if (motorFora) {
    return { nivel: 'erro', titulo: 'Replicação interrompida: motor inacessível',
      texto: 'O motor ainda lê o banco, mas não responde pela rede: os celulares não conseguem sincronizar. Confira se o serviço do motor está no ar e se SYNC_ENGINE_URL aponta para ele.' };
  }
  if (slots.length === 0) {
    return { nivel: 'erro', titulo: 'Replicação parada: nenhum slot do motor',
      texto: 'O motor de sincronização não está ligado a este banco: os celulares não recebem novidades. Normal só logo depois de um reset, até o motor voltar; senão, confira o motor.' };
  }
  if (ativos.length === 0) {
    // the phones stopped receiving when the last slot lost its client
    const ultimo = slots.filter((s) => s.inactiveSince !== null).sort((a, b) => a.inactiveSince!.localeCompare(b.inactiveSince!)).at(-1);
    const ha = ultimo ? ` (há ${ultimo.inactiveAtLeast ? 'pelo menos ' : ''}${duracaoTexto((agora.getTime() - Date.parse(ultimo.inactiveSince!)) / 1000)})` : '';
    return { nivel: 'erro', titulo: 'Replicação parada',
      texto: `Nenhum slot do motor tem cliente${ha}: o motor parou ou perdeu a conexão com o banco, e os celulares não recebem novidades. Enquanto isso o banco guarda todo o histórico de alterações, e o disco enche com o tempo.` };
  }
  if (ativos.length < slots.length) {
    return { nivel: 'atencao', titulo: 'Replicação com slot sem cliente',
      texto: 'A replicação funciona, mas há um slot do motor sem cliente: ele segura histórico de alterações no disco do banco. Um reset da replicação remove os slots antigos.' };
  }
  if (ativos.some((s) => nivelSlot(s) === 'atencao')) {
    return { nivel: 'atencao', titulo: 'Replicação atrasada',
      texto: 'Os celulares recebem as novidades com atraso. É normal durante a importação de uma planilha grande; se continuar assim por mais de 15 minutos depois dela, confira o motor.' };
  }
  return { nivel: 'ok', titulo: 'Replicação em dia', texto: 'O motor está lendo as alterações do banco: os celulares recebem as novidades em instantes.' };
}

/** Everything at once: the slots (SQL) and the engine's probe, side by side. */
export async function carregarSaude(pool: pg.Pool, cfg: Pick<ReplicatorConfig, 'slotPrefix' | 'syncEngineUrl'>): Promise<Saude> {
  const [rows, motor] = await Promise.all([replicacaoSaude(pool, cfg.slotPrefix), sondarMotor(cfg.syncEngineUrl)]);
  const slots = rows.map(toSlotSaude);
  const agora = new Date();
  return { verificadoEm: agora.toISOString(), situacao: situacao(motor, slots, agora), motor, slots };
}

const decimal = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 1 });

/** Bytes as staff read them: 0 bytes, 830 bytes, 12,5 kB, 3,2 MB, 1,1 GB (powers of 1000; a no-break space before the unit). */
export function bytesTexto(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return '—';
  if (n < 1000) return `${Math.max(0, Math.round(n))}\u00a0bytes`;
  for (const [base, unidade] of [[1e3, 'kB'], [1e6, 'MB'], [1e9, 'GB']] as const) {
    // 999.960 bytes would print as "1.000 kB": the next unit says it
    if (Math.round((n / base) * 10) / 10 < 1000) return `${decimal.format(n / base)}\u00a0${unidade}`;
  }
  return `${decimal.format(n / 1e12)}\u00a0TB`;
}

function segundosTexto(s: number): string {
  return `${decimal.format(s)}\u00a0s`;
}

/** A duration in words: 0,4 s, 42 s, 3 min 20 s, 2 h 5 min, 3 dias 4 h (a no-break space before each unit). */
export function duracaoTexto(segundos: number | null): string {
  if (segundos === null || !Number.isFinite(segundos)) return '—';
  const s = Math.max(0, segundos);
  if (s < 10) return segundosTexto(Math.round(s * 10) / 10);
  if (s < 60) return `${Math.round(s)}\u00a0s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 >= 1 ? `${m}\u00a0min ${Math.floor(s % 60)}\u00a0s` : `${m}\u00a0min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}\u00a0h ${m % 60}\u00a0min` : `${h}\u00a0h`;
  const d = Math.floor(h / 24);
  return `${d}\u00a0${d === 1 ? 'dia' : 'dias'}${h % 24 ? ` ${h % 24}\u00a0h` : ''}`;
}

/** pg_replication_slots.wal_status in words. */
export const WAL_STATUS: Record<string, string> = {
  reserved: 'guardado (normal)',
  extended: 'guardado além de max_wal_size',
  unreserved: 'em risco: pode ser descartado no próximo checkpoint',
  lost: 'perdido: o slot não serve mais',
};

export interface SlotTela {
  nome: string;
  nivel: Nivel;
  situacao: string;
  atrasoBytes: string;
  atrasoTempo: string;
  walRetido: string;
  walStatus: string;
  posicao: string;
}

export interface SaudeTela {
  situacao: Situacao;
  /** estado: acessível / inacessível (configurado), and the probe's detail */
  motor: { nivel: Nivel; configurado: boolean; estado: string; detalhe: string | null };
  slots: SlotTela[];
  verificadoEm: string;
}

/** The panel's rows in staff words (dates through the screens' formatter). */
export function saudeTela(s: Saude, dataHora: (v: unknown) => string): SaudeTela {
  const agora = Date.parse(s.verificadoEm);
  const ms = s.motor.duracaoMs ?? 0;
  const motor: SaudeTela['motor'] = !s.motor.configurado
    ? { nivel: 'atencao', configurado: false, estado: 'motor não configurado', detalhe: null }
    : s.motor.acessivel
      ? { nivel: 'ok', configurado: true, estado: 'acessível', detalhe: `respondeu em ${ms < 1000 ? `${ms}\u00a0ms` : duracaoTexto(ms / 1000)}` }
      : { nivel: 'erro', configurado: true, estado: 'inacessível', detalhe: s.motor.erro ?? 'sem resposta' };
  const slots = s.slots.map((x): SlotTela => {
    let situacaoSlot: string;
    if (x.active) situacaoSlot = `Ativo${x.activePid ? ` (processo ${x.activePid})` : ''}`;
    else if (x.inactiveSince) {
      const ha = duracaoTexto((agora - Date.parse(x.inactiveSince)) / 1000);
      situacaoSlot = x.inactiveAtLeast
        ? `Inativo desde ${dataHora(x.inactiveSince)} ou antes (há pelo menos ${ha})`
        : `Inativo desde ${dataHora(x.inactiveSince)} (há ${ha})`;
    } else situacaoSlot = 'Inativo (sem registro de quando parou)';
    const t = atrasoSegundos(x);
    return {
      nome: x.slotName,
      nivel: nivelSlot(x),
      situacao: situacaoSlot,
      atrasoBytes: bytesTexto(x.lagBytes),
      atrasoTempo: !x.active ? '— (sem cliente)' : t === null ? '— (sem medida recente)' : duracaoTexto(t),
      walRetido: bytesTexto(x.retainedBytes),
      walStatus: x.walStatus ? WAL_STATUS[x.walStatus] ?? x.walStatus : '—',
      posicao: x.confirmedFlushLsn ?? '—',
    };
  });
  return { situacao: s.situacao, motor, slots, verificadoEm: dataHora(s.verificadoEm) };
}
