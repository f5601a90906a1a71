CREATE OR REPLACE FUNCTION public.partner_pedido_observar(p_recurso jsonb, p_origem text, p_evento text DEFAULT NULL::text, p_tempo_evento jsonb DEFAULT NULL::jsonb, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS text
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_code text;
  v_status text;
  v_atualizado timestamptz;
  v_pago_em timestamptz;
  v_total numeric;
  v_cliente jsonb;
  v_itens jsonb;
  v_row public.partner_pedido;
  v_mais_novo boolean;
  v_resultado text;
begin
  if p_recurso is null or jsonb_typeof(p_recurso) <> 'object' then
    raise exception 'o pedido não é um objeto JSON' using errcode = 'PW422';
  end if;
  if jsonb_typeof(p_recurso -> 'code') not in ('string', 'number') or nullif(btrim(p_recurso ->> 'code'), '') is null then
    raise exception 'pedido sem code' using errcode = 'PW422';
  end if;
  v_code := btrim(p_recurso ->> 'code');
  v_status := lower(btrim(coalesce(p_recurso ->> 'status',
    case p_evento when 'order.cancelled' then 'cancelled' when 'order.paid' then 'received' end)));
  if v_status is null or app.partner_status_ordem(v_status) is null then
    raise exception 'pedido %: status desconhecido %', v_code, coalesce(p_recurso ->> 'status', '(ausente)') using errcode = 'PW422';
  end if;
  v_atualizado := coalesce(app.partner_instante(p_recurso -> 'updated_at', 'updated_at'),
                           app.partner_instante(p_tempo_evento, 'time'));
  if v_atualizado is null then
    raise exception 'pedido %: sem updated_at', v_code using errcode = 'PW422';
  end if;
  v_pago_em := app.partner_instante(p_recurso -> 'paid_at', 'paid_at');
  v_total := app.partner_numero(p_recurso -> 'total', 'total');
  v_cliente := case when jsonb_typeof(p_recurso -> 'customer') = 'object' then p_recurso -> 'customer' else '{}' end;
  v_itens := case when jsonb_typeof(p_recurso -> 'items') = 'array' then p_recurso -> 'items' end;

  insert into public.partner_pedido (code, estado, status, total, pago_em, atualizado_no_parceiro,
      cliente_nome, cliente_email, cliente_documento, itens, recurso, origem, nao_pago_visto_em, recebido_visto_em)
  values (v_code, case when v_status = 'cancelled' then 'CANCELADO' else 'CAPTURADO' end, v_status, v_total, v_pago_em,
      v_atualizado, v_cliente ->> 'name', v_cliente ->> 'email', v_cliente ->> 'document', coalesce(v_itens, '[]'), p_recurso, p_origem,
      case when v_status in ('waiting_payment', 'refused') then v_atualizado end,
      case when v_status = 'received' then v_atualizado end)
  on conflict (code) do nothing
  returning * into v_row;

  if found then
    insert into public.partner_pedido_transicao (pedido_id, de, para, motivo, em)
    values (v_row.id, null, v_row.estado, 'captura', p_agora);
    perform app.partner_gate(v_row, p_agora);
    return 'criado';
  end if;

  select * into v_row from public.partner_pedido where code = v_code for update;
  v_mais_novo := (v_atualizado, app.partner_status_ordem(v_status))
               > (v_row.atualizado_no_parceiro, app.partner_status_ordem(v_row.status));
  v_resultado := case
    when v_mais_novo then 'atualizado'
    when v_atualizado = v_row.atualizado_no_parceiro and v_status = v_row.status then 'repetido'
    else 'obsoleto' end;

  update public.partner_pedido p set
    status = case when v_mais_novo then v_status else p.status end,
    total = case when v_mais_novo then coalesce(v_total, p.total) else p.total end,
    pago_em = case when v_mais_novo then coalesce(v_pago_em, p.pago_em) else coalesce(p.pago_em, v_pago_em) end,
    atualizado_no_parceiro = greatest(p.atualizado_no_parceiro, v_atualizado),
    cliente_nome = case when v_mais_novo then coalesce(v_cliente ->> 'name', p.cliente_nome) else p.cliente_nome end,
    cliente_email = case when v_mais_novo then coalesce(v_cliente ->> 'email', p.cliente_email) else p.cliente_email end,
    cliente_documento = case when v_mais_novo then coalesce(v_cliente ->> 'document', p.cliente_documento) else p.cliente_documento end,
    itens = case when v_mais_novo then coalesce(v_itens, p.itens) else p.itens end,
    recurso = case when v_mais_novo then p_recurso else p.recurso end,
    origem = case when v_mais_novo then p_origem else p.origem end,
    nao_pago_visto_em = case when v_status in ('waiting_payment', 'refused')
                          then least(p.nao_pago_visto_em, v_atualizado) else p.nao_pago_visto_em end,
    recebido_visto_em = case when v_status = 'received'
                          then greatest(p.recebido_visto_em, v_atualizado) else p.recebido_visto_em end
  where p.id = v_row.id
    and (v_mais_novo
      or (v_pago_em is not null and p.pago_em is null)
      or (v_status in ('waiting_payment', 'refused') and p.nao_pago_visto_em is distinct from least(p.nao_pago_visto_em, v_atualizado))
      or (v_status = 'received' and p.recebido_visto_em is distinct from greatest(p.recebido_visto_em, v_atualizado)))
  returning * into v_row;
  if not found then
    return v_resultado; -- nothing new: a repeat or an older observation that teaches nothing
  end if;

  if v_row.status = 'cancelled' and v_row.estado <> 'CANCELADO' then
    v_row := app.partner_transicao(v_row, 'CANCELADO', 'cancelamento', p_agora);
  end if;
  perform app.partner_gate(v_row, p_agora);
  return v_resultado;
end;
$function$
;

comment on function public.partner_pedido_observar(jsonb,text,text,jsonb,timestamp with time zone) is 'The one idempotent normalisation path (webhook, poll, contingency): upserts the order by code. The newest observation (updated_at, then lifecycle rank) wins; an older one never overwrites the state but still counts as gate evidence. Returns criado | atualizado | obsoleto | repetido. A payload it cannot read raises PW422 (no code, unknown status, bad date or number). p_evento fills a missing status (order.paid -> received, order.cancelled -> cancelled); p_tempo_evento (the event''s time) stands in for a missing updated_at. A newer cancelled status moves the order to CANCELADO; then the gate decides.';
