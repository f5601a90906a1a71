CREATE OR REPLACE FUNCTION public.partner_pedido_enfileirar(p_code text, p_por text DEFAULT 'console'::text, p_agora timestamp with time zone DEFAULT now())
 RETURNS public.partner_pedido
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.partner_pedido;
begin
  select * into v_row from public.partner_pedido where code = p_code for update;
  if not found then
    raise exception 'pedido % não encontrado', p_code using errcode = 'PD404';
  end if;
  if v_row.estado <> 'CAPTURADO' then
    raise exception 'o pedido % já está %; só pedidos CAPTURADO são enfileirados', p_code, v_row.estado using errcode = 'PD409';
  end if;
  if not app.partner_status_pago(v_row.status) then
    raise exception 'o pedido % não está pago (status na plataforma: %)', p_code, v_row.status using errcode = 'PD422';
  end if;
  return app.partner_transicao(v_row, 'ENFILEIRADO', 'console', p_agora, coalesce(nullif(btrim(p_por), ''), 'console'));
end;
$function$
;

comment on function public.partner_pedido_enfileirar(text,text,timestamp with time zone) is 'Enfileirar (orders console, POST /api/pedidos/{code}/enfileirar): releases a CAPTURADO order whose platform status is paid. PD404 unknown code; PD409 not CAPTURADO (already ENFILEIRADO or CANCELADO: a second click is refused, nothing changes); PD422 not paid. p_por names who released it.';
