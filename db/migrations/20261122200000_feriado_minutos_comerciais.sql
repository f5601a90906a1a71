-- migrate:up
set local lock_timeout = '5s';

-- Business time: Monday to Friday, 08:00 to 18:00 in America/Sao_Paulo, except the days
-- listed in public.feriado. The order-webhook watchdog measures silence with it.

create table public.feriado (
  data date primary key,
  nome text not null check (btrim(nome) <> ''),
  abrangencia text not null default 'nacional' check (abrangencia in ('nacional', 'estadual', 'municipal', 'empresa')),
  criado_em timestamptz not null default now()
);
comment on table public.feriado is 'Days that are not business days even when they fall Monday to Friday. Seeded with the Brazilian national holidays 2026-2040 (fixed dates and Good Friday). DBAs add state, municipal or company days (e.g. Carnaval, Corpus Christi) with a plain INSERT and remove them with DELETE; public.minutos_comerciais honours every row.';
comment on column public.feriado.abrangencia is 'nacional (seeded), estadual, municipal or empresa: informative only, every row counts.';

create function app.pascoa(p_ano integer) returns date
language plpgsql immutable strict
set search_path to pg_catalog, pg_temp
as $$
declare
  -- anonymous Gregorian algorithm (Meeus/Jones/Butcher)
  a integer := p_ano % 19;
  b integer := p_ano / 100;
  c integer := p_ano % 100;
  d integer := b / 4;
  e integer := b % 4;
  f integer := (b + 8) / 25;
  g integer := (b - f + 1) / 3;
  h integer := (19 * a + b - d - g + 15) % 30;
  i integer := c / 4;
  k integer := c % 4;
  l integer := (32 + 2 * e + 2 * i - h - k) % 7;
  m integer := (a + 11 * h + 22 * l) / 451;
  v_mes integer := (h + l - 7 * m + 114) / 31;
  v_dia integer := ((h + l - 7 * m + 114) % 31) + 1;
begin
  return make_date(p_ano, v_mes, v_dia);
end;
$$;
comment on function app.pascoa(integer) is 'Easter Sunday of a Gregorian year (used to seed Good Friday in public.feriado).';

insert into public.feriado (data, nome)
select make_date(y, m, d), nome
  from generate_series(2026, 2040) y
 cross join (values
   (1, 1, 'Confraternização Universal'),
   (4, 21, 'Tiradentes'),
   (5, 1, 'Dia do Trabalho'),
   (9, 7, 'Independência do Brasil'),
   (10, 12, 'Nossa Senhora Aparecida'),
   (11, 2, 'Finados'),
   (11, 15, 'Proclamação da República'),
   (11, 20, 'Dia Nacional de Zumbi e da Consciência Negra'),
   (12, 25, 'Natal')) f(m, d, nome)
union all
select app.pascoa(y) - 2, 'Sexta-feira Santa' from generate_series(2026, 2040) y
on conflict (data) do nothing;

create function public.dia_util(p_data date) returns boolean
language sql stable
set search_path to pg_catalog, public, pg_temp
as $$
  select extract(isodow from p_data) < 6
     and not exists (select from public.feriado f where f.data = p_data);
$$;
comment on function public.dia_util(date) is 'True when p_data is Monday to Friday and not in public.feriado.';

create function public.minutos_comerciais(p_de timestamptz, p_ate timestamptz) returns numeric
language sql stable
set search_path to pg_catalog, public, pg_temp
as $$
  select coalesce(round(sum(extract(epoch from least(p_ate, j.fim) - greatest(p_de, j.ini)) / 60), 3), 0)
    from (
      select (g.dia::date + time '08:00') at time zone 'America/Sao_Paulo' as ini,
             (g.dia::date + time '18:00') at time zone 'America/Sao_Paulo' as fim
        from generate_series((p_de at time zone 'America/Sao_Paulo')::date::timestamp,
                             (p_ate at time zone 'America/Sao_Paulo')::date::timestamp,
                             interval '1 day') g(dia)
       where public.dia_util(g.dia::date)
    ) j
   where p_ate > p_de
     and least(p_ate, j.fim) > greatest(p_de, j.ini);
$$;
comment on function public.minutos_comerciais(timestamptz, timestamptz) is 'Business minutes between two instants: the part of [p_de, p_ate] that falls Monday to Friday, 08:00-18:00 America/Sao_Paulo, on days not in public.feriado. Fractional (3 decimals); 0 when p_ate <= p_de.';

create function public.apos_minutos_comerciais(p_de timestamptz, p_minutos numeric) returns timestamptz
language plpgsql stable
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_dia date := (p_de at time zone 'America/Sao_Paulo')::date;
  v_resto numeric := greatest(p_minutos, 0);
  v_ini timestamptz;
  v_fim timestamptz;
  v_disponivel numeric;
begin
  if p_de is null or p_minutos is null then
    return null;
  end if;
  if v_resto = 0 then
    return p_de;
  end if;
  for v_n in 1 .. 3700 loop -- ten years of days at most
    if public.dia_util(v_dia) then
      v_ini := greatest(p_de, (v_dia + time '08:00') at time zone 'America/Sao_Paulo');
      v_fim := (v_dia + time '18:00') at time zone 'America/Sao_Paulo';
      if v_fim > v_ini then
        v_disponivel := extract(epoch from v_fim - v_ini) / 60;
        if v_resto <= v_disponivel then
          return v_ini + v_resto * interval '1 minute';
        end if;
        v_resto := v_resto - v_disponivel;
      end if;
    end if;
    v_dia := v_dia + 1;
  end loop;
  return null;
end;
$$;
comment on function public.apos_minutos_comerciais(timestamptz, numeric) is 'The instant at which p_minutos business minutes will have passed since p_de (inverse of minutos_comerciais). A zero count at a non-business instant gives p_de itself.';

-- migrate:down
set local lock_timeout = '5s';
drop function public.apos_minutos_comerciais(timestamptz, numeric);
drop function public.minutos_comerciais(timestamptz, timestamptz);
drop function public.dia_util(date);
drop function app.pascoa(integer);
drop table public.feriado;
