CREATE OR REPLACE FUNCTION public.xls_merge_meta_carteira(p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_faltam text;
  v_n integer;
begin
  perform public.xls_staging_exigir('META_CARTEIRA');
  perform public.xls_travar(array['bi_meta_carteira']);
  drop table if exists pg_temp.xls_src_meta_carteira;
  create temp table xls_src_meta_carteira on commit drop as
  select s.linha, date_trunc('month', s.competencia)::date as competencia,
         left(nullif(btrim(s.cliente), ''), 20) as cliente, nullif(btrim(s.produto), '') as produto, s.meta_volume
    from pg_temp.xls_stg_meta_carteira s;
  -- hook: the customer must exist (created by the batch's master report), XL424 as META's seller
  select count(*), string_agg(format('%s (%s %s)', f.cliente, case when f.n = 1 then 'linha' else 'linhas' end, f.linhas), ', ' order by f.cliente)
                     filter (where f.ordem <= 20)
    into v_n, v_faltam
    from (select s.cliente, count(*) as n,
                 array_to_string((array_agg(s.linha order by s.linha))[1:10], ', ') || case when count(*) > 10 then ', …' else '' end as linhas,
                 row_number() over (order by s.cliente) as ordem
            from pg_temp.xls_src_meta_carteira s
           where s.cliente is not null and not exists (select from public.bi_cliente c where c.codigo = s.cliente)
           group by s.cliente) f;
  if v_n > 0 then
    v_faltam := v_faltam || case when v_n > 20 then format(' e mais %s', v_n - 20) else '' end;
    raise exception 'cliente não cadastrado em bi_cliente: %', v_faltam
      using errcode = 'XL424',
            hint = 'o cliente é criado pelo RELATORIO18; dentro de um lote a META_CARTEIRA é refeita depois que o relatório mestre concluir';
  end if;
  begin
    return app.xls_aplicar('public.bi_meta_carteira', 'pg_temp.xls_src_meta_carteira', 'valores', 'competencia', p_meta -> 'linhas_rejeitadas');
  exception when foreign_key_violation then
    raise exception 'cliente não cadastrado em bi_cliente (%)', sqlerrm using errcode = 'XL424';
  end;
end;
$function$
;

comment on function public.xls_merge_meta_carteira(jsonb) is 'Merge of META_CARTEIRA from the staging table meta_carteira into bi_meta_carteira (app.xls_aplicar; scope: the competências present). Hook: every customer must exist in bi_cliente, else XL424 naming the customers and rows (transient FK failure: the batch logic retries it once after the master report, as META). p_meta = {linhas_rejeitadas}.';
