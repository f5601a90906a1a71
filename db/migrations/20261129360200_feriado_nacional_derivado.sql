-- migrate:up

-- National holidays are derived for any year (public.feriado_nacional: fixed dates and Good
-- Friday from Easter), no longer seeded for 2026-2040 only (after 2040 every day counted as a
-- business day). public.feriado keeps the other days off: the seeded national rows go.
delete from public.feriado f
 where f.abrangencia = 'nacional'
   and (to_char(f.data, 'MM-DD') in ('01-01', '04-21', '05-01', '09-07', '10-12', '11-02', '11-15', '11-20', '12-25')
        or f.data = app.pascoa(extract(year from f.data)::integer) - 2);
comment on table public.feriado is 'Days that are not business days even when they fall Monday to Friday, besides the national holidays (public.feriado_nacional derives those for any year: fixed dates and Good Friday). DBAs add state, municipal or company days (e.g. Carnaval, Corpus Christi) with a plain INSERT and remove them with DELETE; public.dia_util and public.minutos_comerciais honour every row.';
comment on column public.feriado.abrangencia is 'estadual, municipal, empresa or nacional (a national day the derivation lacks): informative only, every row counts.';

-- migrate:down
comment on column public.feriado.abrangencia is 'nacional (seeded), estadual, municipal or empresa: informative only, every row counts.';
comment on table public.feriado is 'Days that are not business days even when they fall Monday to Friday. Seeded with the Brazilian national holidays 2026-2040 (fixed dates and Good Friday). DBAs add state, municipal or company days (e.g. Carnaval, Corpus Christi) with a plain INSERT and remove them with DELETE; public.minutos_comerciais honours every row.';
insert into public.feriado (data, nome)
select make_date(y, m, d), nome
  from generate_series(2026, 2040) y
 cross join (values
   (1, 1, 'Confraternização Universal'), (4, 21, 'Tiradentes'), (5, 1, 'Dia do Trabalho'),
   (9, 7, 'Independência do Brasil'), (10, 12, 'Nossa Senhora Aparecida'), (11, 2, 'Finados'),
   (11, 15, 'Proclamação da República'), (11, 20, 'Dia Nacional de Zumbi e da Consciência Negra'),
   (12, 25, 'Natal')) f(m, d, nome)
union all
select app.pascoa(y) - 2, 'Sexta-feira Santa' from generate_series(2026, 2040) y
on conflict (data) do nothing;
