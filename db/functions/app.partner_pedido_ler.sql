CREATE OR REPLACE FUNCTION app.partner_pedido_ler(p_recursos jsonb[], p_eventos text[], p_tempos jsonb[])
 RETURNS app.partner_pedido_lido[]
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_seguro boolean := false;
  v_lidos app.partner_pedido_lido[];
begin
  -- The reading rules of an order payload, for a whole set in one statement: each check is a
  -- CASE, nothing raises, except the cast of an instant that has the ISO shape but is not one
  -- (2026-13-45): the first pass casts every instant of the set at once, in one subtransaction;
  -- if one fails, the second pass (v_seguro) checks each with app.partner_instante_valido first.
  -- The checks, in this order, give the message of the first that fails (erro): payload not an
  -- object; no code; unknown status (a missing one comes from the event: order.paid -> received,
  -- order.cancelled -> cancelled); updated_at not an instant, else (updated_at absent) the
  -- event's time not one; neither; paid_at not one; total not a number.
  loop
    begin
      -- materialized steps: each expression evaluated once per payload (inlined, the error's CASE
      -- and every cast were copied into each column that reads them)
      with v as materialized (
        select r.n, r.recurso, btrim(r.recurso ->> 'code') as code,
               lower(btrim(coalesce(r.recurso ->> 'status',
                 case r.evento when 'order.cancelled' then 'cancelled' when 'order.paid' then 'received' end))) as status,
               r.recurso -> 'updated_at' as atualizado,
               -- the event's time stands in only for an absent (or JSON null) updated_at
               case when coalesce(jsonb_typeof(r.recurso -> 'updated_at'), 'null') = 'null' then r.tempo end as tempo,
               r.recurso -> 'paid_at' as pago_em,
               r.recurso -> 'total' as total
          from unnest(p_recursos, p_eventos, p_tempos) with ordinality r(recurso, evento, tempo, n)
      ), d as materialized (
        select v.*,
               case when jsonb_typeof(v.atualizado) = 'string' and v.atualizado #>> '{}' ~ '^\d{4}-\d{2}-\d{2}'
                         and (not v_seguro or app.partner_instante_valido(v.atualizado #>> '{}'))
                    then (v.atualizado #>> '{}')::timestamptz end as atualizado_em,
               case when jsonb_typeof(v.tempo) = 'string' and v.tempo #>> '{}' ~ '^\d{4}-\d{2}-\d{2}'
                         and (not v_seguro or app.partner_instante_valido(v.tempo #>> '{}'))
                    then (v.tempo #>> '{}')::timestamptz end as tempo_em,
               case when jsonb_typeof(v.pago_em) = 'string' and v.pago_em #>> '{}' ~ '^\d{4}-\d{2}-\d{2}'
                         and (not v_seguro or app.partner_instante_valido(v.pago_em #>> '{}'))
                    then (v.pago_em #>> '{}')::timestamptz end as pago_em_em
          from v
      ), e as materialized (
        select d.*, case
            when coalesce(jsonb_typeof(d.recurso) <> 'object', true) then 'o pedido não é um objeto JSON'
            when coalesce(jsonb_typeof(d.recurso -> 'code') not in ('string', 'number'), true) or nullif(d.code, '') is null
              then 'pedido sem code'
            when d.status is null or app.partner_status_ordem(d.status) is null
              then 'pedido ' || d.code || ': status desconhecido ' || coalesce(d.recurso ->> 'status', '(ausente)')
            when coalesce(jsonb_typeof(d.atualizado), 'null') <> 'null' and d.atualizado_em is null
              then 'campo updated_at não é uma data ISO-8601: ' || left(d.atualizado::text, 100)
            when coalesce(jsonb_typeof(d.tempo), 'null') <> 'null' and d.tempo_em is null
              then 'campo time não é uma data ISO-8601: ' || left(d.tempo::text, 100)
            when d.atualizado_em is null and d.tempo_em is null then 'pedido ' || d.code || ': sem updated_at'
            when coalesce(jsonb_typeof(d.pago_em), 'null') <> 'null' and d.pago_em_em is null
              then 'campo paid_at não é uma data ISO-8601: ' || left(d.pago_em::text, 100)
            when coalesce(jsonb_typeof(d.total), 'null') <> 'null' and not (jsonb_typeof(d.total) = 'number'
                   or (jsonb_typeof(d.total) = 'string' and d.total #>> '{}' ~ '^\s*-?\d+(\.\d+)?\s*$'))
              then 'campo total não é um número: ' || left(d.total::text, 100)
          end as erro
          from d
      )
      select coalesce(array_agg(case when e.erro is null then
                 row(e.recurso, e.code, e.status, coalesce(e.atualizado_em, e.tempo_em), e.pago_em_em,
                     case when coalesce(jsonb_typeof(e.total), 'null') <> 'null' then (e.total #>> '{}')::numeric end,
                     case when jsonb_typeof(e.recurso -> 'customer') = 'object' then e.recurso -> 'customer' else '{}' end,
                     case when jsonb_typeof(e.recurso -> 'items') = 'array' then e.recurso -> 'items' end,
                     null)::app.partner_pedido_lido
               else row(e.recurso, null, null, null, null, null, null, null, e.erro)::app.partner_pedido_lido end
               order by e.n), '{}')
        into v_lidos
        from e;
      return v_lidos;
    exception when data_exception then
      if v_seguro then
        raise;
      end if;
      v_seguro := true; -- an instant of the set is not one: again, each checked before its cast
    end;
  end loop;
end;
$function$
;

comment on function app.partner_pedido_ler(jsonb[],text[],jsonb[]) is 'Reads a set of order payloads of the platform (p_recursos, with the event of each, p_eventos, and the event''s time, p_tempos) in one statement: one app.partner_pedido_lido per payload, in order, with erro set (the PW422 message) when it cannot be read: not an object, no code, unknown status (a missing one comes from the event: order.paid -> received, order.cancelled -> cancelled), updated_at (else the event''s time) or paid_at not an ISO-8601 instant, no updated_at nor time, total not a number. The one place of the reading rules: partner_pedido_observar (one payload) and the webhook''s batches (app.partner_webhook_normalizar_ids) call it. One subtransaction per call; a second pass only when an instant with the ISO shape fails its cast.';
