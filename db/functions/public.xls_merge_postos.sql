CREATE OR REPLACE FUNCTION public.xls_merge_postos(p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  perform public.xls_staging_exigir('POSTOS');
  perform public.xls_travar(array['bi_posto']);
  drop table if exists pg_temp.xls_src_posto;
  create temp table xls_src_posto on commit drop as
  select s.linha, nullif(regexp_replace(s.cnpj, '\D', '', 'g'), '') as cnpj, nullif(btrim(s.razao_social), '') as razao_social,
         nullif(btrim(s.nome_fantasia), '') as nome_fantasia, nullif(btrim(s.bandeira), '') as bandeira,
         nullif(btrim(s.endereco), '') as endereco, nullif(btrim(s.bairro), '') as bairro, nullif(btrim(s.municipio), '') as municipio,
         nullif(upper(btrim(s.uf)), '') as uf, nullif(regexp_replace(s.cep, '\D', '', 'g'), '') as cep,
         nullif(btrim(s.tipo_instalacao), '') as tipo_instalacao
    from pg_temp.xls_stg_posto s;
  return app.xls_aplicar('public.bi_posto', 'pg_temp.xls_src_posto', 'tabela', null, p_meta -> 'linhas_rejeitadas');
end;
$function$
;

comment on function public.xls_merge_postos(jsonb) is 'Merge of POSTOS from the staging table posto into bi_posto (app.xls_aplicar; scope: the whole table, the file is the full registry; an empty file deletes nothing). p_meta = {linhas_rejeitadas}.';
