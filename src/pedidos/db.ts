/**
 * Typed wrappers of the area-B SQL functions (order webhook, gate, watchdog, pulls).
 * One thin function each: the SQL function decides, these pass parameters and shape results.
 */
import * as db from 'zapatos/db';
import type * as s from 'zapatos/schema';
import type { PartnerConfig } from '../config.js';

export type Pedido = s.partner_pedido.Selectable;

export interface EventoRecebido {
  /** chosen by the edge at intake: partner_webhook.id */
  id: string;
  corpo: Buffer;
  contentType: string | null;
  ip: string | null;
  userAgent: string | null;
  /** arrival at the edge (spool replay); null = the database's clock at the insert */
  recebidoEm: string | null;
}

/**
 * Stores many deliveries with one multi-row insert (partner_webhook_receber_lote), in one
 * transaction: on return they are committed. An id already stored is skipped (inserido false).
 * The bodies travel as one binary parameter and their lengths (partner_webhook_receber_lote_juntos),
 * not as a bytea[] literal in hex.
 */
export async function partnerWebhookReceberLote(q: db.Queryable, eventos: EventoRecebido[]): Promise<Array<{ id: string; inserido: boolean }>> {
  return db.sql<db.SQL, Array<{ id: string; inserido: boolean }>>`
    select id, inserido from public.partner_webhook_receber_lote_juntos(
      ${db.param(eventos.map((e) => e.id))}::uuid[], ${db.param(Buffer.concat(eventos.map((e) => e.corpo)))}::bytea,
      ${db.param(eventos.map((e) => e.corpo.length))}::integer[],
      ${db.param(eventos.map((e) => e.contentType))}::text[], ${db.param(eventos.map((e) => e.ip))}::text[],
      ${db.param(eventos.map((e) => e.userAgent))}::text[], ${db.param(eventos.map((e) => e.recebidoEm))}::timestamptz[])`.run(q);
}

export async function partnerWebhookNormalizar(q: db.Queryable, id: string): Promise<string | null> {
  const [row] = await db.sql<db.SQL, Array<{ r: string | null }>>`
    select public.partner_webhook_normalizar(${db.param(id)}::uuid) as r`.run(q);
  return row?.r ?? null;
}

export async function partnerWebhookNormalizarLote(q: db.Queryable, limite: number): Promise<{ tratados: number; revisar: number }> {
  const [row] = await db.sql<db.SQL, Array<{ r: { tratados: number; revisar: number } }>>`
    select public.partner_webhook_normalizar_lote(${db.param(limite)}::integer) as r`.run(q);
  return row!.r;
}

export async function partnerNormalizarConcluir(q: db.Queryable, workerId: string, jobId: number): Promise<boolean> {
  const [row] = await db.sql<db.SQL, Array<{ ok: boolean }>>`
    select public.partner_normalizar_concluir(${db.param(workerId)}, ${db.param(jobId)}::bigint) as ok`.run(q);
  return row!.ok;
}

export async function partnerConfigurar(q: db.Queryable, cfg: PartnerConfig, agora?: Date): Promise<void> {
  const w = cfg.watchdog;
  await db.sql`
    select public.partner_configurar(
      p_watchdog_habilitado => ${db.param(w.habilitado)},
      p_limite_min_comercial => ${db.param(w.limiteMinComercial)}::integer,
      p_limite_horas => ${db.param(w.limiteHoras)}::integer,
      p_contingencia_apos_min_comercial => ${db.param(w.contingenciaAposMinComercial)}::integer,
      p_contingencia_intervalo_min => ${db.param(w.contingenciaIntervaloMin)}::integer,
      p_poll_intervalo_horas => ${db.param(w.pollIntervaloHoras)}::integer,
      p_gate_primeira_captura_desde => ${db.param(cfg.gatePrimeiraCapturaDesde)}::text,
      p_api_configurada => ${db.param(Boolean(cfg.apiUrl && cfg.apiToken))},
      p_aprendido_semanas => ${db.param(w.aprendidoSemanas)}::integer,
      p_aprendido_limiar_pct => ${db.param(w.aprendidoLimiarPct)}::numeric,
      p_agora => coalesce(${db.param(agora ?? null)}::timestamptz, now()))`.run(q);
}

export async function partnerTick(q: db.Queryable, agora?: Date): Promise<Record<string, unknown>> {
  const [row] = await db.sql<db.SQL, Array<{ r: Record<string, unknown> }>>`
    select public.partner_tick(coalesce(${db.param(agora ?? null)}::timestamptz, now())) as r`.run(q);
  return row!.r;
}

export async function partnerStatus(q: db.Queryable, agora?: Date): Promise<Record<string, unknown>> {
  const [row] = await db.sql<db.SQL, Array<{ r: Record<string, unknown> }>>`
    select public.partner_status(coalesce(${db.param(agora ?? null)}::timestamptz, now())) as r`.run(q);
  return row!.r;
}

export async function partnerPedidoEnfileirar(q: db.Queryable, code: string, por: string): Promise<Pedido> {
  const [row] = await db.sql<db.SQL, Pedido[]>`
    select * from public.partner_pedido_enfileirar(${db.param(code)}, ${db.param(por)})`.run(q);
  return row!;
}

/** An event in REVISAR back to PENDENTE (PW404 unknown, PW409 not REVISAR). */
export async function partnerWebhookReprocessar(q: db.Queryable, id: string): Promise<void> {
  await db.sql`select public.partner_webhook_reprocessar(${db.param(id)}::uuid)`.run(q);
}

export interface Alerta {
  id: number;
  tipo: 'webhook_parado' | 'webhook_voltou' | 'contingencia_ligada' | 'contingencia_desligada' | 'conciliacao_incompleta';
  criado_em: string;
  dados: Record<string, unknown>;
  registrado_em: string | null;
  rastreador_em: string | null;
  concluido_em: string | null;
  episodio: Record<string, unknown> | null;
  contingencia: Record<string, unknown> | null;
  /** conciliacao_incompleta: the day's verdict (partner_conciliacao_dia) */
  conciliacao?: Record<string, unknown> | null;
  pendentes: string[];
}

export async function partnerAvisoCarregar(q: db.Queryable, id: number): Promise<Alerta | null> {
  const [row] = await db.sql<db.SQL, Array<{ r: Alerta | null }>>`
    select public.partner_aviso_carregar(${db.param(id)}::bigint) as r`.run(q);
  return row?.r ?? null;
}

export async function partnerAvisoMarcar(q: db.Queryable, id: number, etapa: 'registrado' | 'rastreador' | 'concluido'): Promise<void> {
  await db.sql`select public.partner_aviso_marcar(${db.param(id)}::bigint, ${db.param(etapa)})`.run(q);
}

export async function partnerAvisoEnvioResultado(q: db.Queryable, id: number, email: string, erro: string | null): Promise<void> {
  await db.sql`select public.partner_aviso_envio_resultado(${db.param(id)}::bigint, ${db.param(email)}, ${db.param(erro)})`.run(q);
}

export interface PuxadaInicio {
  atualizado_desde: Date;
  motivo: 'poll' | 'contingencia' | 'manual';
  status: string;
}

export async function partnerPuxadaIniciar(q: db.Queryable, id: number): Promise<PuxadaInicio> {
  const [row] = await db.sql<db.SQL, PuxadaInicio[]>`
    select * from public.partner_puxada_iniciar(${db.param(id)}::bigint)`.run(q);
  return row!;
}

export type PaginaContagem = Record<'criado' | 'atualizado' | 'obsoleto' | 'repetido' | 'invalido', number>;

export async function partnerPuxadaPagina(q: db.Queryable, id: number, pedidos: unknown[]): Promise<PaginaContagem> {
  const [row] = await db.sql<db.SQL, Array<{ r: PaginaContagem }>>`
    select public.partner_puxada_pagina(${db.param(id)}::bigint, ${db.param(JSON.stringify(pedidos))}::jsonb) as r`.run(q);
  return row!.r;
}

export async function partnerPuxadaConcluir(q: db.Queryable, id: number): Promise<void> {
  await db.sql`select public.partner_puxada_concluir(${db.param(id)}::bigint)`.run(q);
}

export async function partnerPuxadaFalhar(q: db.Queryable, id: number, erro: string, definitiva: boolean): Promise<void> {
  await db.sql`select public.partner_puxada_falhar(${db.param(id)}::bigint, ${db.param(erro)}, ${db.param(definitiva)})`.run(q);
}

export async function destinatarioSalvar(q: db.Queryable, o: { id: string | null; email: string; nome: string | null; ativo: boolean; versaoEsperada: string | null }): Promise<s.destinatario.JSONSelectable> {
  const [row] = await db.sql<s.destinatario.SQL, s.destinatario.JSONSelectable[]>`
    select * from public.destinatario_salvar(${db.param(o.id)}::uuid, ${db.param(o.email)}, ${db.param(o.nome)}, ${db.param(o.ativo)}, ${db.param(o.versaoEsperada)}::timestamptz)`.run(q);
  return row!;
}

export async function destinatarioRemover(q: db.Queryable, id: string): Promise<void> {
  await db.sql`select public.destinatario_remover(${db.param(id)}::uuid)`.run(q);
}
