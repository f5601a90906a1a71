-- migrate:up
set local lock_timeout = '5s';

-- Area D: replication of the bi_* tables to the phones. The functions named here live in
-- db/functions (replicacao_*, app.tg__publicar_bi); this migration holds the tables, the
-- publication, the event trigger and the schedule.

-- Publications the service keeps equal to "every bi_* table of public, and nothing else".
create table app.replicacao_publicacao (
  nome text primary key,
  registrada_em timestamptz not null default now(),
  constraint replicacao_publicacao_nome_formato check (nome ~ '^[a-z_][a-z0-9_]{0,62}$')
);
comment on table app.replicacao_publicacao is 'Publications of the sync engine that the service keeps covering exactly the bi_* tables of public (event trigger _200_bi_publicar, and the reset step RECRIAR_PUBLICACAO, which registers REPLICATOR_PUBLICATION here). Default: powersync.';
insert into app.replicacao_publicacao (nome) values ('powersync');

-- First text of the two functions the event trigger needs while later migrations run (the
-- files of db/functions are applied only after every migration); their files are the
-- current text.
CREATE OR REPLACE FUNCTION public.replicacao_publicacao_sincronizar(p_nome text DEFAULT NULL::text)
 RETURNS integer
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_pub text;
  v_tabelas text;
  v_n integer;
  v_rel record;
begin
  select string_agg(format('%I.%I', n.nspname, c.relname), ', ' order by c.relname), count(*)
    into v_tabelas, v_n
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relname like 'bi\_%'
     and not c.relispartition;
  for v_pub in
    select r.nome from app.replicacao_publicacao r where p_nome is null or r.nome = p_nome order by r.nome
  loop
    if not exists (select from pg_publication where pubname = v_pub) then
      execute format('create publication %I', v_pub);
    end if;
    if v_tabelas is not null then
      execute format('alter publication %I set table %s', v_pub, v_tabelas);
    else
      for v_rel in select * from pg_publication_tables where pubname = v_pub loop
        execute format('alter publication %I drop table %I.%I', v_pub, v_rel.schemaname, v_rel.tablename);
      end loop;
    end if;
  end loop;
  return coalesce(v_n, 0);
end;
$function$
;

comment on function public.replicacao_publicacao_sincronizar(text) is 'Sets the publication p_nome (or, with null, every publication of app.replicacao_publicacao) to exactly the bi_* tables of public, creating it when missing. Returns how many tables it covers. Called by the event trigger _200_bi_publicar and by replicacao_publicacao_recriar.';
revoke execute on function public.replicacao_publicacao_sincronizar(text) from public;

CREATE OR REPLACE FUNCTION app.tg__publicar_bi()
 RETURNS event_trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_cmd record;
  v_nome text;
  v_mudou boolean := false;
begin
  -- a bi_* table not yet published (created, or renamed to bi_*), or a published table
  -- that is no longer bi_* (renamed away): the registered publications are set again
  for v_cmd in
    select * from pg_event_trigger_ddl_commands()
     where object_type in ('table', 'table column') and schema_name = 'public'
  loop
    select c.relname into v_nome from pg_class c where c.oid = v_cmd.objid and c.relkind in ('r', 'p');
    if v_nome is null then
      continue;
    end if;
    if exists (select from app.replicacao_publicacao r join pg_publication p on p.pubname = r.nome
                where (v_nome like 'bi\_%') <> exists (select from pg_publication_rel pr
                                                       where pr.prpubid = p.oid and pr.prrelid = v_cmd.objid)) then
      v_mudou := true;
    end if;
  end loop;
  if v_mudou then
    perform public.replicacao_publicacao_sincronizar(null);
  end if;
end;
$function$
;

comment on function app.tg__publicar_bi() is 'Event trigger (_200_bi_publicar): when a table of public becomes bi_* (created or renamed) or a published table stops being bi_*, the publications of app.replicacao_publicacao are set again to exactly the bi_* tables (replicacao_publicacao_sincronizar). Dropped tables leave publications by themselves.';

create event trigger _200_bi_publicar on ddl_command_end
  when tag in ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE')
  execute function app.tg__publicar_bi();

select public.replicacao_publicacao_sincronizar('powersync');
comment on publication powersync is 'Publication of the sync engine: every bi_* table of public, also those created later (event trigger _200_bi_publicar), and nothing else.';

-- Audit of the resets (spec: xls_resetar_<replicator>).
create table public.xls_resetar_replicator (
  id uuid primary key default gen_random_uuid(),
  status text not null default 'EM_ANDAMENTO',
  step_atual text,
  step_falho text,
  erro_mensagem text,
  motivo text,
  solicitante text,
  estrategia text,
  job_id bigint,
  worker text,
  assumido_em timestamptz,
  slots_removidos text[] not null default '{}',
  slot_novo text,
  ultimo_nuke text,
  iniciado_em timestamptz not null default now(),
  finalizado_em timestamptz,
  constraint xls_resetar_replicator_status_valido check (status in ('EM_ANDAMENTO', 'SUCESSO', 'ERRO')),
  constraint xls_resetar_replicator_step_valido check (step_atual in ('VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA', 'RESET_SLOT',
    'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'FINALIZAR')),
  constraint xls_resetar_replicator_step_falho_valido check (step_falho in ('VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA', 'RESET_SLOT',
    'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'FINALIZAR')),
  constraint xls_resetar_replicator_motivo_tamanho check (char_length(motivo) <= 500),
  constraint xls_resetar_replicator_estrategia_valida check (estrategia in ('hosting', 'manual')),
  constraint xls_resetar_replicator_fim check ((status = 'EM_ANDAMENTO') = (finalizado_em is null)),
  constraint xls_resetar_replicator_erro_tem_mensagem check (status <> 'ERRO' or erro_mensagem is not null)
);
comment on table public.xls_resetar_replicator is 'One row per reset of the replication to the phones (start: replicacao_resetar). status EM_ANDAMENTO -> SUCESSO | ERRO; step_atual is the last step started (kept on ERRO), step_falho the step that failed; at most one EM_ANDAMENTO (partial unique index). The steps are in xls_resetar_replicator_passo.';
comment on column public.xls_resetar_replicator.assumido_em is 'When a worker took the execution (holding the advisory lock of the execution for as long as it runs); an EM_ANDAMENTO execution already taken whose lock nobody holds is an orphan (replicacao_recuperar).';
comment on column public.xls_resetar_replicator.ultimo_nuke is 'The value FINALIZAR wrote to bi_configuracao.ultimo_nuke.';
create unique index xls_resetar_replicator_um_em_andamento on public.xls_resetar_replicator ((true)) where status = 'EM_ANDAMENTO';
create index xls_resetar_replicator_iniciado_em_idx on public.xls_resetar_replicator (iniciado_em desc, id desc);

create table public.xls_resetar_replicator_passo (
  id bigint generated always as identity primary key,
  execucao_id uuid not null references public.xls_resetar_replicator (id) on delete cascade,
  ordem smallint not null,
  step text not null,
  status text not null default 'EM_ANDAMENTO',
  mensagem text,
  iniciado_em timestamptz not null default now(),
  finalizado_em timestamptz,
  constraint xls_resetar_replicator_passo_unico unique (execucao_id, step),
  constraint xls_resetar_replicator_passo_step_valido check (step in ('VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA', 'RESET_SLOT',
    'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'FINALIZAR')),
  constraint xls_resetar_replicator_passo_status_valido check (status in ('EM_ANDAMENTO', 'SUCESSO', 'AVISO', 'PULADO', 'ERRO')),
  constraint xls_resetar_replicator_passo_fim check ((status = 'EM_ANDAMENTO') = (finalizado_em is null))
);
comment on table public.xls_resetar_replicator_passo is 'Per-step log of a reset: one row per step started, with its outcome (SUCESSO, AVISO = done with a warning, PULADO = skipped, ERRO), timestamps and the last message.';

-- the orphan rule also runs every minute (a safety net for the application-startup run)
select app.schedule('replicacao_recuperar', '* * * * *', 'select count(*) from public.replicacao_recuperar()');

-- migrate:down
set local lock_timeout = '5s';
select app.unschedule('replicacao_recuperar');
-- the functions of db/functions that belong to these tables (their files go with a revert)
drop function if exists public.replicacao_resetar(text, text);
drop function if exists public.replicacao_assumir(uuid, text, text);
drop function if exists public.replicacao_liberar(uuid);
drop function if exists public.replicacao_passo(uuid, text, text, text, text);
drop function if exists public.replicacao_finalizar(uuid);
drop function if exists public.replicacao_falhar(uuid, text);
drop function if exists public.replicacao_recuperar();
drop function if exists public.replicacao_texto_bot(public.xls_resetar_replicator);
drop function if exists public.replicacao_instrucoes(text, text);
drop function if exists public.replicacao_ultimo_nuke_avancar();
drop function if exists public.replicacao_slots_remover(text, uuid);
drop function if exists public.replicacao_slots(text);
drop function if exists public.replicacao_publicacao_recriar(text);
drop table public.xls_resetar_replicator_passo;
drop table public.xls_resetar_replicator;
drop event trigger if exists _200_bi_publicar;
drop function app.tg__publicar_bi();
drop function public.replicacao_publicacao_sincronizar(text);
drop publication if exists powersync;
drop table app.replicacao_publicacao;
