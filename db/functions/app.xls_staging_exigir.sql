CREATE OR REPLACE FUNCTION app.xls_staging_exigir(p_tipo text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_staging text;
begin
  for v_staging in select distinct d.staging from public.xls_staging_definicao(p_tipo) d loop
    if to_regclass('pg_temp.xls_stg_' || v_staging) is null then
      raise exception 'staging % ausente: chame xls_staging_preparar(%) e o COPY na mesma transação do merge', v_staging, p_tipo
        using errcode = 'XL500';
    end if;
  end loop;
end;
$function$
;

comment on function app.xls_staging_exigir(text) is 'Raises XL500 unless every staging temp table of the type exists in this transaction.';
