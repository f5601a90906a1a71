CREATE OR REPLACE FUNCTION public.xls_merge(p_processamento_id uuid, p_meta jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_tipo text;
  v_res jsonb;
begin
  v_tipo := app.xls_merge_tipo(p_processamento_id, p_meta);
  -- the type is described in app.xls_alvo: the declarative merge applies its description
  v_res := app.xls_merge_fim(v_tipo, coalesce(p_meta, '{}'));
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

comment on function public.xls_merge(uuid,jsonb) is 'Merge of a PROCESSANDO processing, dispatched by looking its tipo up in app.xls_alvo (the declarative merge: app.xls_merge_chunk / app.xls_merge_fim), from the staging tables filled in this transaction. Records linhas_enviadas, linhas_efetivas, linhas_removidas, metricas, avisos and linhas_rejeitadas on the processing and returns {linhas_enviadas, linhas_efetivas, linhas_removidas, avisos, linhas_rejeitadas, tabelas}. Pass the reader''s row errors in p_meta.linhas_rejeitadas. Errors: XL404, XL409 (not PROCESSANDO / no tipo), XL422 (type without import, invalid period), XL424 (seller missing: transient FK), XL500 (staging not prepared).';
