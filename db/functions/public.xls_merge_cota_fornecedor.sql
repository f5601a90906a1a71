CREATE OR REPLACE FUNCTION public.xls_merge_cota_fornecedor(p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  perform public.xls_staging_exigir('COTA_FORNECEDOR');
  perform public.xls_travar(array['bi_cota_fornecedor']);
  drop table if exists pg_temp.xls_src_cota;
  create temp table xls_src_cota on commit drop as
  select s.linha, case when btrim(s.aba) ~ '^\d{4}$' then btrim(s.aba)::smallint end as ano,
         nullif(btrim(s.polo), '') as polo, nullif(btrim(s.produto), '') as produto,
         case when s.mes between 1 and 12 then s.mes::smallint end as mes, s.quantidade
    from pg_temp.xls_stg_cota s;
  return app.xls_aplicar('public.bi_cota_fornecedor', 'pg_temp.xls_src_cota', 'tabela', null, p_meta -> 'linhas_rejeitadas');
end;
$function$
;

comment on function public.xls_merge_cota_fornecedor(jsonb) is 'Merge of COTA_FORNECEDOR from the staging table cota (unpivoted by the reader: aba = the year tab, mes 1..12) into bi_cota_fornecedor (app.xls_aplicar; scope: the whole table, each send replaces the whole matrix; a send without data rows deletes nothing and warns ''envio vazio: nada removido''). p_meta = {linhas_rejeitadas}.';
