CREATE OR REPLACE FUNCTION public.xls_r18_lote(p_meta jsonb, p_final boolean DEFAULT false)
 RETURNS integer
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET work_mem TO '64MB'
AS $function$
declare
  v_n integer;
begin
  v_n := public.xls_r18_absorver(p_meta);
  if to_regclass('pg_temp.xls_r18_chave') is null then
    create temp table xls_r18_chave (aba text, h bigint) on commit drop;
  end if;
  perform public.xls_r18_candidatos('pg_temp.xls_lote_faturamento', 'pg_temp.xls_lote_movimento');
  -- the hash of each accepted key (a lot has no repeated key left): xls_merge_relatorio18
  -- groups them to find a key repeated across lots (a collision only costs the exact check).
  -- Not needed for the last call when no earlier lot had rows of the tab.
  insert into pg_temp.xls_r18_chave
  select '20', hashtextextended(l.filial || chr(31) || l.nota_fiscal || chr(31) || l.serie || chr(31) || l.item, 0)
    from pg_temp.xls_lote_faturamento l
   where not p_final or exists (select from pg_temp.xls_r18_chave c where c.aba = '20')
  union all
  select '30', hashtextextended(l.filial || chr(31) || l.lancamento || chr(31) || l.conta, 0)
    from pg_temp.xls_lote_movimento l
   where not p_final or exists (select from pg_temp.xls_r18_chave c where c.aba = '30');
  return v_n;
end;
$function$
;

comment on function public.xls_r18_lote(jsonb,boolean) is 'One lot of a RELATORIO18 merge: xls_r18_absorver (bi_faturamento and bi_movimento written diff-aware), then, from the lot''s accepted rows, the reference-table candidates (xls_r18_candidatos) and the hash of each natural key (xls_r18_chave: xls_merge_relatorio18 groups them to find a key repeated across lots, then settles it exactly). p_final: the call of xls_merge_relatorio18 for whatever is still staged. Returns the rows taken. Called through xls_merge_lote / xls_merge.';
