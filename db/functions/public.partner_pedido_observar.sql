CREATE OR REPLACE FUNCTION public.partner_pedido_observar(p_recurso jsonb, p_origem text, p_evento text DEFAULT NULL::text, p_tempo_evento jsonb DEFAULT NULL::jsonb, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS text
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_lido app.partner_pedido_lido;
begin
  -- the rules live in the two set-based functions, here with a set of one (the webhook's batches
  -- call them with the whole batch)
  v_lido := (app.partner_pedido_ler(array[p_recurso], array[p_evento], array[p_tempo_evento]))[1];
  if v_lido.erro is not null then
    raise exception '%', v_lido.erro using errcode = 'PW422';
  end if;
  return (app.partner_pedido_aplicar(array[v_lido], p_origem, p_agora))[1];
end;
$function$
;

comment on function public.partner_pedido_observar(jsonb,text,text,jsonb,timestamp with time zone) is 'The one idempotent normalisation path of an order (webhook, poll, contingency): upserts the order by code. The newest observation (updated_at, then lifecycle rank) wins; an older one never overwrites the state but still counts as gate evidence. Returns criado | atualizado | obsoleto | repetido. A payload it cannot read raises PW422 (no code, unknown status, bad date or number). p_evento fills a missing status (order.paid -> received, order.cancelled -> cancelled); p_tempo_evento (the event''s time) stands in for a missing updated_at. A newer cancelled status moves the order to CANCELADO; then the gate decides. The rules are app.partner_pedido_ler and app.partner_pedido_aplicar, which the webhook''s batches call with a whole batch.';
