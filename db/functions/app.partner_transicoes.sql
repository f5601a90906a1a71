CREATE OR REPLACE FUNCTION app.partner_transicoes(p_ids uuid[], p_para text, p_motivos text[], p_agora timestamp with time zone, p_por text DEFAULT NULL::text)
 RETURNS public.partner_pedido[]
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_rows public.partner_pedido[];
begin
  -- one UPDATE of the orders, one INSERT of their transitions (from the state each was in), the
  -- NOTIFY of each release
  with antes as (
    select m.id, m.motivo, p.estado as de
      from unnest(p_ids, p_motivos) m(id, motivo) join public.partner_pedido p on p.id = m.id and p.id = any(p_ids)
       for update of p
  ), mudou as (
    update public.partner_pedido p set
      estado = p_para,
      enfileirado_em = case when p_para = 'ENFILEIRADO' then p_agora else p.enfileirado_em end,
      enfileirado_por = case when p_para = 'ENFILEIRADO' then coalesce(p_por, a.motivo) else p.enfileirado_por end,
      liberacao = case when p_para = 'ENFILEIRADO' then
                    case when a.motivo in ('gate_transicao', 'gate_resgate_primeira_captura') then a.motivo else 'console' end
                  else p.liberacao end
      from antes a
     where p.id = a.id and p.id = any(p_ids)
    returning p as linha, a.de, a.motivo
  ), registro as (
    insert into public.partner_pedido_transicao (pedido_id, de, para, motivo, em)
    select (m.linha).id, m.de, p_para, m.motivo, p_agora from mudou m
  )
  select array_agg(m.linha), count(case when p_para = 'ENFILEIRADO' then pg_notify('partner_pedidos', (m.linha).code) end)
    into v_rows
    from mudou m;
  return coalesce(v_rows, '{}');
end;
$function$
;

comment on function app.partner_transicoes(uuid[],text,text[],timestamp with time zone,text) is 'Moves a set of orders to another local state (p_motivos: the reason of each) and records each in partner_pedido_transicao (from the state it was in), with one UPDATE and one INSERT; a release (ENFILEIRADO) sets enfileirado_em, enfileirado_por (p_por, else the reason) and liberacao (the gate''s reason, else console) and sends NOTIFY partner_pedidos (payload: the code) as a wake-up hint for the fulfilment queue. Returns the orders as they became. app.partner_transicao is the same for one order.';
