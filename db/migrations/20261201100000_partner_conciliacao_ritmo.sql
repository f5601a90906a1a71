-- migrate:up

-- Area B: the daily reconciliation ledger of orders, and the silence alarm that
-- learns the shop's rhythm (docs/webhook.md, "Reconciliation" and "Learned silence alarm").

-- 1. The ledger: one row per day (America/Sao_Paulo), its verdict, and its items.
create table public.partner_conciliacao (
  dia date primary key,
  status text not null default 'PENDENTE'
    check (status in ('PENDENTE', 'EM_ANDAMENTO', 'CONCILIADO', 'INCOMPLETO', 'INACESSIVEL')),
  motivo text not null default 'manual' check (motivo in ('agendada', 'manual')),
  solicitada_em timestamptz not null,
  job_id bigint,
  tentativas integer not null default 0,
  iniciada_em timestamptz,
  conciliada_em timestamptz,
  na_plataforma integer,
  aqui integer,
  por_webhook integer,
  recuperados integer,
  faltando integer,
  preenchidos integer,
  faltando_apos integer,
  divergentes integer,
  ilegiveis integer,
  erro text,
  avisado text check (avisado in ('INCOMPLETO', 'INACESSIVEL'))
);
comment on table public.partner_conciliacao is 'Reconciliation ledger of area B: one row per day (America/Sao_Paulo) whose orders were compared, by code and status, with the platform''s REST list of that day (public.partner_conciliar). Counts: na_plataforma (distinct codes the platform listed), aqui (of those, stored here after the backfill), por_webhook (stored and delivered by the webhook), recuperados (stored only through the poll, the contingency or by hand), faltando (on the platform, not stored: backfilled through the same normalisation), preenchidos (of those, backfilled), faltando_apos (still missing after the backfill: unreadable), divergentes (platform status differs from ours, listed, never changed), ilegiveis (list entries without a code). status: PENDENTE/EM_ANDAMENTO (the job), CONCILIADO (nothing missing), INCOMPLETO (missing orders after the backfill, or unreadable entries), INACESSIVEL (the platform could not be reached for the whole window of the job''s attempts). avisado: the status last alerted (one alert per day and status).';
comment on column public.partner_conciliacao.erro is 'The last failure of the job (platform unreachable, an HTTP status, a page out of shape).';

create table public.partner_conciliacao_item (
  dia date not null references public.partner_conciliacao (dia) on delete cascade,
  code text not null,
  tipo text not null check (tipo in ('recuperado', 'faltando', 'divergente')),
  status_plataforma text,
  atualizado_plataforma timestamptz,
  status_aqui text,
  estado_aqui text,
  atualizado_aqui timestamptz,
  preenchido boolean,
  erro text,
  primary key (dia, tipo, code)
);
comment on table public.partner_conciliacao_item is 'The orders behind a day''s verdict in public.partner_conciliacao: recuperado (stored only by the poll, the contingency or by hand: no webhook delivery of the code), faltando (not stored when the day was first reconciled; preenchido = backfilled, else erro says why), divergente (the platform''s status differs from the stored one: listed, never changed here; the gate''s rules stay). Rewritten whole by each run of the day.';

-- the order's origin may now be the reconciliation's backfill
alter table public.partner_pedido drop constraint partner_pedido_origem_check;
alter table public.partner_pedido add constraint partner_pedido_origem_check
  check (origem = any (array['webhook', 'poll', 'contingencia', 'manual', 'conciliacao']));

-- the notice of a day that cannot be proved complete
alter table public.partner_aviso drop constraint partner_aviso_tipo_check;
alter table public.partner_aviso add constraint partner_aviso_tipo_check
  check (tipo = any (array['webhook_parado', 'webhook_voltou', 'contingencia_ligada', 'contingencia_desligada', 'conciliacao_incompleta']));

-- 2. The learned silence alarm: its settings, the learned rate, the episode's reason
alter table public.partner_configuracao
  add column aprendido_semanas integer not null default 8 check (aprendido_semanas between 0 and 52),
  add column aprendido_limiar numeric not null default 0.01 check (aprendido_limiar > 0 and aprendido_limiar < 1);
comment on column public.partner_configuracao.aprendido_semanas is 'PARTNER_WATCHDOG_APRENDIDO_SEMANAS: weeks of stored orders the learned silence alarm learns the expected rate from (per weekday and hour, holidays apart); 0 turns the learned alarm off (fixed thresholds only).';
comment on column public.partner_configuracao.aprendido_limiar is 'PARTNER_WATCHDOG_APRENDIDO_LIMIAR_PCT / 100: the learned alarm fires when the probability of the silence under the expected rate, exp(-expected orders), falls below this.';

create table public.partner_ritmo (
  tipo_dia smallint not null check (tipo_dia between 0 and 7),
  hora smallint not null check (hora between 0 and 23),
  pedidos integer not null,
  dias integer not null,
  semanas integer not null,
  aprendido_para timestamptz not null,
  primary key (tipo_dia, hora)
);
comment on table public.partner_ritmo is 'The learned order rhythm of the learned silence alarm: per day type (1-7 = ISO weekday, 0 = holiday: public.feriado_nacional or public.feriado, whatever the weekday) and local hour (America/Sao_Paulo), the orders first delivered by the webhook in that slot over the last semanas weeks before aprendido_para (pedidos) and the days of that type observed (dias); the expected rate is pedidos / dias orders an hour, used only when dias >= 3. Rebuilt by public.partner_ritmo_aprender (partner_tick, at most hourly).';

alter table public.partner_episodio drop constraint partner_episodio_motivo_check;
alter table public.partner_episodio add constraint partner_episodio_motivo_check
  check (motivo = any (array['limite_min_comercial', 'limite_horas', 'ritmo_aprendido']));

-- the daily request of the reconciliation (pg_cron runs in UTC: 09:30 UTC = 06:30 in Brasília;
-- the function itself skips non-business days)
select app.schedule('partner_conciliacao', '30 9 * * *', 'select public.partner_conciliacao_agendar(now())');

-- migrate:down
select app.unschedule('partner_conciliacao');
alter table public.partner_episodio drop constraint partner_episodio_motivo_check;
update public.partner_episodio set motivo = 'limite_min_comercial' where motivo = 'ritmo_aprendido';
alter table public.partner_episodio add constraint partner_episodio_motivo_check
  check (motivo = any (array['limite_min_comercial', 'limite_horas']));
drop table public.partner_ritmo;
alter table public.partner_configuracao drop column aprendido_semanas, drop column aprendido_limiar;
alter table public.partner_aviso drop constraint partner_aviso_tipo_check;
delete from public.partner_aviso where tipo = 'conciliacao_incompleta';
alter table public.partner_aviso add constraint partner_aviso_tipo_check
  check (tipo = any (array['webhook_parado', 'webhook_voltou', 'contingencia_ligada', 'contingencia_desligada']));
alter table public.partner_pedido drop constraint partner_pedido_origem_check;
update public.partner_pedido set origem = 'manual' where origem = 'conciliacao';
alter table public.partner_pedido add constraint partner_pedido_origem_check
  check (origem = any (array['webhook', 'poll', 'contingencia', 'manual']));
drop table public.partner_conciliacao_item;
drop table public.partner_conciliacao;
