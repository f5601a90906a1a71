CREATE OR REPLACE FUNCTION public.xls_merge_margem_consolidada(p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  perform public.xls_staging_exigir('MARGEM_CONSOLIDADA');
  perform public.xls_travar(array['bi_margem_consolidada']);
  drop table if exists pg_temp.xls_src_margem_consolidada;
  create temp table xls_src_margem_consolidada on commit drop as
  select s.linha, date_trunc('month', s.competencia)::date as competencia,
         nullif(btrim(s.filial), '') as filial, nullif(btrim(s.produto), '') as produto,
         s.volume, s.receita_liquida, s.cmv, s.margem_total, s.margem_por_litro
    from pg_temp.xls_stg_margem_consolidada s;
  -- hook: branches by code only (município and UF are manual registry data)
  insert into public.bi_filial (codigo)
  select distinct left(s.filial, 20) from pg_temp.xls_src_margem_consolidada s where s.filial is not null order by 1
  on conflict (codigo) do nothing;
  return app.xls_aplicar('public.bi_margem_consolidada', 'pg_temp.xls_src_margem_consolidada', 'valores', 'competencia',
                         p_meta -> 'linhas_rejeitadas');
end;
$function$
;

comment on function public.xls_merge_margem_consolidada(jsonb) is 'Merge of MARGEM_CONSOLIDADA from the staging table margem_consolidada into bi_margem_consolidada (app.xls_aplicar; scope: the competências present in the file). New branch codes go to bi_filial, code only. p_meta = {linhas_rejeitadas}. Returns the metrics; xls_merge records them.';
