CREATE OR REPLACE FUNCTION public.apos_minutos_comerciais(p_de timestamp with time zone, p_minutos numeric)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_dia date := (p_de at time zone 'America/Sao_Paulo')::date;
  v_resto numeric := greatest(p_minutos, 0);
  v_ini timestamptz;
  v_fim timestamptz;
  v_disponivel numeric;
begin
  if p_de is null or p_minutos is null then
    return null;
  end if;
  if v_resto = 0 then
    return p_de;
  end if;
  for v_n in 1 .. 3700 loop -- ten years of days at most
    if public.dia_util(v_dia) then
      v_ini := greatest(p_de, (v_dia + time '08:00') at time zone 'America/Sao_Paulo');
      v_fim := (v_dia + time '18:00') at time zone 'America/Sao_Paulo';
      if v_fim > v_ini then
        v_disponivel := extract(epoch from v_fim - v_ini) / 60;
        if v_resto <= v_disponivel then
          return v_ini + v_resto * interval '1 minute';
        end if;
        v_resto := v_resto - v_disponivel;
      end if;
    end if;
    v_dia := v_dia + 1;
  end loop;
  return null;
end;
$function$
;

comment on function public.apos_minutos_comerciais(timestamp with time zone,numeric) is 'The instant at which p_minutos business minutes will have passed since p_de (inverse of minutos_comerciais). A zero count at a non-business instant gives p_de itself.';
