CREATE OR REPLACE FUNCTION public.xls_merge_trr(p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  perform public.xls_staging_exigir('TRR');
  perform public.xls_travar(array['bi_trr']);
  drop table if exists pg_temp.xls_src_trr;
  create temp table xls_src_trr on commit drop as
  select s.linha, nullif(regexp_replace(s.cnpj, '\D', '', 'g'), '') as cnpj, nullif(btrim(s.razao_social), '') as razao_social,
         nullif(btrim(s.municipio), '') as municipio, nullif(upper(btrim(s.uf)), '') as uf,
         nullif(btrim(s.tipo_instalacao), '') as tipo_instalacao, nullif(btrim(s.qualificacao_empresa), '') as qualificacao_empresa,
         s.capacidade_m3
    from pg_temp.xls_stg_trr s;
  return app.xls_aplicar('public.bi_trr', 'pg_temp.xls_src_trr', 'tabela', null, p_meta -> 'linhas_rejeitadas');
end;
$function$
;

comment on function public.xls_merge_trr(jsonb) is 'Merge of TRR from the staging table trr into bi_trr (app.xls_aplicar; scope: the whole table; an empty file deletes nothing). p_meta = {linhas_rejeitadas}.';
