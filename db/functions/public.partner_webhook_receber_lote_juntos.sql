CREATE OR REPLACE FUNCTION public.partner_webhook_receber_lote_juntos(p_ids uuid[], p_corpos bytea, p_tamanhos integer[], p_content_types text[] DEFAULT NULL::text[], p_ips text[] DEFAULT NULL::text[], p_user_agents text[] DEFAULT NULL::text[], p_recebidos_em timestamp with time zone[] DEFAULT NULL::timestamp with time zone[])
 RETURNS TABLE(id uuid, inserido boolean)
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
#variable_conflict use_column
declare
  v_corpos bytea[];
begin
  if coalesce(cardinality(p_tamanhos), 0) <> coalesce(cardinality(p_ids), 0) then
    raise exception 'partner_webhook_receber_lote_juntos: % ids e % tamanhos', coalesce(cardinality(p_ids), 0), coalesce(cardinality(p_tamanhos), 0) using errcode = 'PW400';
  end if;
  if (select coalesce(sum(t), 0) from unnest(p_tamanhos) t) <> coalesce(length(p_corpos), 0)
     or array_position(p_tamanhos, null) is not null or exists (select from unnest(p_tamanhos) t where t < 0) then
    raise exception 'partner_webhook_receber_lote_juntos: os tamanhos não somam os % bytes dos corpos', coalesce(length(p_corpos), 0) using errcode = 'PW400';
  end if;
  -- the bodies one after the other, cut back into one element each, in order
  select coalesce(array_agg(substring(p_corpos from (x.fim - x.t + 1)::integer for x.t) order by x.n), '{}')
    into v_corpos
    from (select u.t, u.n, sum(u.t) over (order by u.n) as fim from unnest(p_tamanhos) with ordinality as u(t, n)) x;
  return query
    select l.id, l.inserido from public.partner_webhook_receber_lote(p_ids, v_corpos, p_content_types, p_ips, p_user_agents, p_recebidos_em) l;
end;
$function$
;

comment on function public.partner_webhook_receber_lote_juntos(uuid[], bytea, integer[], text[], text[], text[], timestamp with time zone[]) is 'partner_webhook_receber_lote with the bodies sent as one bytea, one after the other, and their lengths (p_tamanhos, in bytes, in the order of p_ids): what the service calls, so that the bodies travel as raw bytes (a bytea parameter goes in binary) instead of a bytea[] literal that the edge writes and Postgres reads back in hex, twice the size. PW400 when there are not as many lengths as ids or they do not add up to the bytes given; otherwise exactly partner_webhook_receber_lote.';
