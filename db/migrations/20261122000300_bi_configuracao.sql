-- migrate:up
set local lock_timeout = '5s';

create function public.configuracao_valor_valido(p_tipo text, p_valor text) returns boolean
language sql immutable
set search_path to pg_catalog, pg_temp
as $$
  select case p_tipo
    when 'string' then p_valor is not null
    when 'integer' then p_valor ~ '^-?[0-9]{1,18}$'
    when 'boolean' then p_valor in ('true', 'false')
    -- ISO-8601 duration (PT30S, P1DT2H) or a Postgres interval literal ('30 seconds')
    when 'duration' then p_valor ~ '^P(?!$)([0-9]+Y)?([0-9]+M)?([0-9]+W)?([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+(\.[0-9]+)?S)?)?$'
                      or p_valor ~ '^[0-9]+ ?(ms|milliseconds?|s|seconds?|min|minutes?|h|hours?|d|days?)$'
    else false
  end;
$$;
comment on function public.configuracao_valor_valido(text, text) is 'True when p_valor is a valid value for the configuration type p_tipo (string, integer, boolean, duration).';

create table public.bi_configuracao (
  id uuid primary key default gen_random_uuid(),
  chave text not null,
  valor text not null,
  tipo text not null check (tipo in ('string', 'integer', 'boolean', 'duration')),
  sistema boolean not null default false,
  descricao text,
  atualizado_em timestamptz not null default now(),
  constraint bi_configuracao_chave_key unique (chave),
  constraint bi_configuracao_chave_formato check (chave ~ '^[a-z][a-z0-9_]{0,62}$'),
  constraint bi_configuracao_valor_valido check (public.configuracao_valor_valido(tipo, valor))
);
comment on table public.bi_configuracao is 'Global key/value configuration, replicated to the mobile clients (sync stream at priority 0). Rows with sistema = true are written only by the service itself (e.g. ultimo_nuke by the replication reset).';

create function public.tg_bi_configuracao__notify() returns trigger
language plpgsql
set search_path to pg_catalog, public, pg_temp
as $$
begin
  perform pg_notify('app_config', coalesce(new.chave, old.chave));
  return null;
end;
$$;
comment on function public.tg_bi_configuracao__notify() is 'Invalidates the 30-second configuration cache of every replica: NOTIFY app_config with the changed key.';

create function public.tg__touch_atualizado_em() returns trigger
language plpgsql
set search_path to pg_catalog, pg_temp
as $$
begin
  new.atualizado_em := now();
  return new;
end;
$$;
comment on function public.tg__touch_atualizado_em() is 'Generic BEFORE UPDATE trigger: keeps atualizado_em current.';

create trigger _100_touch before update on public.bi_configuracao
  for each row execute function public.tg__touch_atualizado_em();
create trigger _900_notify after insert or update or delete on public.bi_configuracao
  for each row execute function public.tg_bi_configuracao__notify();


create function public.configuracao_definir(p_chave text, p_valor text, p_versao_esperada timestamptz default null)
returns public.bi_configuracao
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_row public.bi_configuracao;
begin
  select * into v_row from public.bi_configuracao where chave = p_chave for update;
  if not found then
    raise exception 'chave de configuração % não existe', p_chave using errcode = 'CF404';
  end if;
  if v_row.sistema then
    raise exception 'a chave % é do sistema e não pode ser alterada', p_chave using errcode = 'CF403';
  end if;
  if p_valor is null or not public.configuracao_valor_valido(v_row.tipo, p_valor) then
    raise exception 'valor ''%'' inválido para a chave % do tipo %', p_valor, p_chave, v_row.tipo using errcode = 'CF400';
  end if;
  -- compared at millisecond precision: the version travels through JSON as an ISO-8601 string
  if p_versao_esperada is not null and date_trunc('milliseconds', v_row.atualizado_em) <> date_trunc('milliseconds', p_versao_esperada) then
    raise exception 'a chave % foi alterada por outra pessoa em %; recarregue e tente de novo', p_chave, v_row.atualizado_em
      using errcode = 'CF409';
  end if;
  if v_row.valor is distinct from p_valor then
    update public.bi_configuracao set valor = p_valor where id = v_row.id returning * into v_row;
  end if;
  return v_row;
end;
$$;
comment on function public.configuracao_definir(text, text, timestamptz) is 'Changes the value of a non-system configuration key. Errors, in this order of precedence: CF404 unknown key, CF403 system key, CF400 value invalid for the key''s type, CF409 the row changed since p_versao_esperada (its atualizado_em). Writing the same value is a no-op.';

insert into public.bi_configuracao (chave, valor, tipo, sistema, descricao) values
  ('ultimo_nuke', '1970-01-01T00:00:00.000Z', 'string', true,
   'Instante (UTC, ISO-8601) do último reset da replicação. Só cresce; clientes que veem um valor novo limpam os dados locais e sincronizam do zero.'),
  ('slow_query_timeout_ms', '5000', 'integer', false,
   'Tempo (ms) a partir do qual o aplicativo considera uma consulta local lenta.');

-- migrate:down
set local lock_timeout = '5s';
drop function public.configuracao_definir(text, text, timestamptz);
drop table public.bi_configuracao;
drop function public.tg__touch_atualizado_em();
drop function public.tg_bi_configuracao__notify();
drop function public.configuracao_valor_valido(text, text);
