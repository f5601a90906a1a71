CREATE OR REPLACE FUNCTION public.configuracao_valor_normalizar(p_tipo text, p_valor text)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  -- 2^53 - 1: the largest integer a JavaScript client (the phones) holds exactly
  c_max constant bigint := 9007199254740991;
  v text := btrim(p_valor);
  m text[];
  v_n numeric;
  v_iso text;
  v_seg numeric;
begin
  if p_valor is null then
    return null;
  end if;
  case p_tipo
  when 'string' then
    return p_valor;
  when 'integer' then
    if v !~ '^[+-]?[0-9]{1,16}$' then
      return null;
    end if;
    if abs(v::bigint) > c_max then
      return null;
    end if;
    return (v::bigint)::text;
  when 'boolean' then
    return case lower(v)
      when 'true' then 'true' when 'sim' then 'true'
      when 'false' then 'false' when 'não' then 'false' when 'nao' then 'false'
    end;
  when 'duration' then
    -- the stored forms: ISO-8601 (PT30S, P1DT2H) or a Postgres interval literal ('30 seconds',
    -- '5 min'); Portuguese words ('5 minutos', '2 horas', '1 dia') become ISO-8601
    if v ~ '^P(?!$)([0-9]+Y)?([0-9]+M)?([0-9]+W)?([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+(\.[0-9]+)?S)?)?$'
       or v ~ '^[0-9]+ ?(ms|milliseconds?|s|seconds?|min|minutes?|h|hours?|d|days?)$' then
      v_iso := v;
    else
      m := regexp_match(lower(v), '^([0-9]{1,16}) *(ms|milissegundos?|s|seg|segundos?|min|minutos?|h|horas?|d|dias?|semanas?)$');
      if m is null then
        return null;
      end if;
      v_n := m[1]::numeric;
      v_iso := case
        when m[2] in ('ms', 'milissegundo', 'milissegundos') then 'PT' || trim_scale(v_n / 1000) || 'S'
        when m[2] in ('s', 'seg', 'segundo', 'segundos') then 'PT' || v_n || 'S'
        when m[2] in ('min', 'minuto', 'minutos') then 'PT' || v_n || 'M'
        when m[2] in ('h', 'hora', 'horas') then 'PT' || v_n || 'H'
        when m[2] in ('d', 'dia', 'dias') then 'P' || v_n || 'D'
        else 'P' || v_n || 'W'
      end;
    end if;
    -- bounded by what Postgres (interval) and a JavaScript client (milliseconds below 2^53) hold
    begin
      v_seg := extract(epoch from v_iso::interval);
    exception when others then
      return null;
    end;
    if v_seg < 0 or v_seg * 1000 > c_max then
      return null;
    end if;
    return v_iso;
  else
    return null;
  end case;
end;
$function$
;

comment on function public.configuracao_valor_normalizar(text,text) is 'The stored form of a configuration value, or null when p_valor is not valid for p_tipo. integer: digits, |n| <= 2^53-1 (exact in a JavaScript client), leading zeros and + dropped; boolean: true/false (sim/não accepted); duration: ISO-8601 (PT30S, P1DT2H) or a Postgres interval literal (''30 seconds'', ''5 min'') kept as written, Portuguese (''5 minutos'', ''30 s'', ''2 horas'', ''1 dia'', ''2 semanas'') turned into ISO-8601 (PT5M, P1D), at most 2^53-1 milliseconds and castable to interval; string: unchanged. Example: select configuracao_valor_normalizar(''duration'', ''5 minutos''); -- PT5M';
