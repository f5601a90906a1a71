CREATE OR REPLACE FUNCTION public.xls_staging_preparar(p_tipo text)
 RETURNS TABLE(staging text, tabela text, colunas text[])
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
#variable_conflict use_column
declare
  v record;
begin
  if p_tipo is null or not public.xls_tipo_valido(p_tipo) then
    raise exception 'tipo de planilha desconhecido: %', coalesce(p_tipo, 'null') using errcode = 'XL400';
  end if;
  if not exists (select from public.xls_staging_definicao(p_tipo)) then
    raise exception 'o tipo % ainda não tem importação' , p_tipo using errcode = 'XL422';
  end if;
  -- a new merge in this transaction: drop the work tables of an earlier one (lots, state)
  for v in select c.relname from pg_catalog.pg_class c
            where c.relnamespace = pg_catalog.pg_my_temp_schema() and c.relkind = 'r' and c.relname like 'xls\_%'
  loop
    execute format('drop table pg_temp.%I', v.relname);
  end loop;
  for v in
    select d.staging,
           array_agg(d.coluna order by d.ordem) as colunas,
           string_agg(format('%I %s%s', d.coluna, d.tipo_sql, case when d.coluna = 'linha' then ' not null' else '' end),
                      ', ' order by d.ordem) as ddl
      from public.xls_staging_definicao(p_tipo) d
     group by d.staging
     order by d.staging
  loop
    execute format('drop table if exists pg_temp.%I', 'xls_stg_' || v.staging);
    execute format('create temp table %I (%s) on commit drop', 'xls_stg_' || v.staging, v.ddl);
    staging := v.staging;
    tabela := 'pg_temp.xls_stg_' || v.staging;
    colunas := v.colunas;
    return next;
  end loop;
end;
$function$
;

comment on function public.xls_staging_preparar(text) is 'Starts a merge in this transaction: drops the xls_* work tables of an earlier one, creates the staging temp tables of a type (ON COMMIT DROP: call it inside the merge transaction) and returns, per staging name (faturamento, movimento, meta), the table to COPY into and its columns in COPY order. Values: COPY text format, codes as text, numbers with ''.'', dates YYYY-MM-DD, NULL for empty. XL400 unknown type, XL422 type without import yet.';
