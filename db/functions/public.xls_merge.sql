CREATE OR REPLACE FUNCTION public.xls_merge(p_processamento_id uuid, p_meta jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_tipo text;
  v_status text;
  v_res jsonb;
  v_fn regprocedure;
begin
  select p.tipo, p.status into v_tipo, v_status from public.xls_processamento p where p.id = p_processamento_id for update;
  if not found then
    raise exception 'processamento % não existe', p_processamento_id using errcode = 'XL404';
  end if;
  if v_status <> 'PROCESSANDO' then
    raise exception 'processamento % está em %: só se importa um processamento em PROCESSANDO', p_processamento_id, v_status
      using errcode = 'XL409';
  end if;
  if p_meta is not null and jsonb_typeof(p_meta) <> 'object' then
    raise exception 'p_meta deve ser um objeto JSON' using errcode = 'XL400';
  end if;
  if v_tipo is null then
    raise exception 'processamento % sem tipo: chame xls_definir_tipo antes do merge', p_processamento_id using errcode = 'XL409';
  end if;
  -- dispatch by name: the merge of type T is public.xls_merge_<lower(T)>(jsonb)
  v_fn := pg_catalog.to_regprocedure(format('public.%I(jsonb)', 'xls_merge_' || lower(v_tipo)));
  if v_fn is null then
    raise exception 'o tipo % ainda não tem importação', v_tipo using errcode = 'XL422';
  end if;
  execute format('select %s($1)', v_fn::regproc) into v_res using coalesce(p_meta, '{}');
  update public.xls_processamento p
     set linhas_enviadas = (v_res ->> 'linhas_enviadas')::integer,
         linhas_efetivas = (v_res ->> 'linhas_efetivas')::integer,
         linhas_removidas = (v_res ->> 'linhas_removidas')::integer,
         metricas = v_res -> 'tabelas',
         avisos = v_res -> 'avisos',
         linhas_rejeitadas = v_res -> 'linhas_rejeitadas'
   where p.id = p_processamento_id;
  return v_res;
end;
$function$
;

comment on function public.xls_merge(uuid,jsonb) is 'Merge of a PROCESSANDO processing, dispatched by its tipo to public.xls_merge_<lower(tipo)>(jsonb) (xls_merge_relatorio18, xls_merge_meta, xls_merge_margem_consolidada, xls_merge_margem_dia, xls_merge_meta_carteira, xls_merge_postos, xls_merge_trr, xls_merge_compras, xls_merge_cota_fornecedor, xls_merge_fluxo_pagar_receber), from the staging tables filled in this transaction. Records linhas_enviadas, linhas_efetivas, linhas_removidas, metricas, avisos and linhas_rejeitadas on the processing and returns {linhas_enviadas, linhas_efetivas, linhas_removidas, avisos, linhas_rejeitadas, tabelas}. Pass the reader''s row errors in p_meta.linhas_rejeitadas. Errors: XL404, XL409 (not PROCESSANDO / no tipo), XL422 (type without import, invalid period, FLUXO_PAGAR_RECEBER refused), XL424 (seller or customer missing: transient FK), XL500 (staging not prepared).';
