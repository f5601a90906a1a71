drop function if exists public.partner_configurar(boolean,integer,integer,integer,integer,integer,text,boolean,timestamp with time zone);

CREATE OR REPLACE FUNCTION public.partner_configurar(p_watchdog_habilitado boolean, p_limite_min_comercial integer, p_limite_horas integer, p_contingencia_apos_min_comercial integer, p_contingencia_intervalo_min integer, p_poll_intervalo_horas integer, p_gate_primeira_captura_desde text, p_api_configurada boolean, p_agora timestamp with time zone DEFAULT now(), p_aprendido_semanas integer DEFAULT 8, p_aprendido_limiar_pct numeric DEFAULT 1)
 RETURNS public.partner_configuracao
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.partner_configuracao;
  v_desde timestamptz;
begin
  if nullif(btrim(p_gate_primeira_captura_desde), '') is not null then
    begin
      v_desde := case
        when btrim(p_gate_primeira_captura_desde) ~ '^\d{4}-\d{2}-\d{2}$'
          then (btrim(p_gate_primeira_captura_desde)::date + time '00:00') at time zone 'America/Sao_Paulo'
        else btrim(p_gate_primeira_captura_desde)::timestamptz
      end;
    exception when data_exception then
      raise exception 'data inválida para a primeira captura: %', p_gate_primeira_captura_desde using errcode = 'PW400';
    end;
  end if;
  if p_aprendido_limiar_pct is not null and not (p_aprendido_limiar_pct > 0 and p_aprendido_limiar_pct < 100) then
    raise exception 'limiar do alarme aprendido fora de (0, 100)%%: %', p_aprendido_limiar_pct using errcode = 'PW400';
  end if;
  if p_aprendido_semanas is not null and p_aprendido_semanas not between 0 and 52 then
    raise exception 'semanas do alarme aprendido fora de 0..52: %', p_aprendido_semanas using errcode = 'PW400';
  end if;
  update public.partner_configuracao set
    watchdog_habilitado = p_watchdog_habilitado,
    limite_min_comercial = p_limite_min_comercial,
    limite_horas = p_limite_horas,
    contingencia_apos_min_comercial = p_contingencia_apos_min_comercial,
    contingencia_intervalo_min = p_contingencia_intervalo_min,
    poll_intervalo_horas = p_poll_intervalo_horas,
    gate_primeira_captura_desde = v_desde,
    api_configurada = p_api_configurada,
    aprendido_semanas = coalesce(p_aprendido_semanas, 8),
    aprendido_limiar = coalesce(p_aprendido_limiar_pct, 1) / 100,
    monitorando_desde = coalesce(monitorando_desde, p_agora)
  where id
  returning * into v_row;
  return v_row;
end;
$function$
;

comment on function public.partner_configurar(boolean,integer,integer,integer,integer,integer,text,boolean,timestamp with time zone,integer,numeric) is 'Writes the settings row from the environment of a booting replica. p_gate_primeira_captura_desde: an ISO date (midnight America/Sao_Paulo) or instant, empty/null = off; invalid -> PW400. p_aprendido_semanas (0-52, 0 = off) and p_aprendido_limiar_pct (a percentage in (0, 100), stored as a fraction): the learned silence alarm; out of range -> PW400. Sets monitorando_desde on the first call.';
