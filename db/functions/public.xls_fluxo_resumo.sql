CREATE OR REPLACE FUNCTION public.xls_fluxo_resumo(p_processamento_id uuid)
 RETURNS TABLE(tipo text, posicao date, atual boolean, titulos integer, total numeric, titulos_vencidos integer, vencido numeric)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
#variable_conflict use_column
declare
  v_tipo text;
  v_pos date;
begin
  select p.tipo, (p.metricas #>> '{fluxo,posicao}')::date into v_tipo, v_pos
    from public.xls_processamento p where p.id = p_processamento_id;
  if not found then
    raise exception 'processamento % não existe', p_processamento_id using errcode = 'XL404';
  end if;
  if v_tipo is distinct from 'FLUXO_PAGAR_RECEBER' then
    raise exception 'processamento % não é um FLUXO_PAGAR_RECEBER (tipo %)', p_processamento_id, coalesce(v_tipo, 'nenhum') using errcode = 'XL422';
  end if;
  if v_pos is null then
    return; -- not imported (refused, or not processed yet)
  end if;
  return query
  select k.tipo::text, v_pos,
         coalesce(bool_or(t.atual), false),
         count(t.id)::integer,
         coalesce(sum(t.saldo), 0),
         (count(t.id) filter (where t.vencimento < v_pos and t.saldo > 0))::integer,
         coalesce(sum(t.saldo) filter (where t.vencimento < v_pos and t.saldo > 0), 0)
    from (values ('PAGAR'), ('RECEBER')) k (tipo)
    left join public.bi_titulo t on t.posicao = v_pos and t.tipo = k.tipo
   group by k.tipo
   order by k.tipo;
end;
$function$
;

comment on function public.xls_fluxo_resumo(uuid) is 'For the import page: payable and receivable totals of the position a FLUXO_PAGAR_RECEBER processing imported, one row per tipo (PAGAR, RECEBER): titles, total = sum of saldo, and the overdue part (vencimento before the position date and saldo > 0: titulos_vencidos, vencido); atual says whether that position is still the current one. No rows when the processing wrote nothing (refused or not processed). XL404 unknown processing, XL422 not a FLUXO_PAGAR_RECEBER.';
