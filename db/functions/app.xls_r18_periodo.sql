CREATE OR REPLACE FUNCTION app.xls_r18_periodo(p_meta jsonb, OUT inicio date, OUT fim date)
 RETURNS record
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  begin
    inicio := (p_meta ->> 'periodo_inicio')::date;
    fim := (p_meta ->> 'periodo_fim')::date;
  exception when data_exception then
    raise exception 'período do relatório inválido (aba 10, células E1 e F1): % a %',
      coalesce(p_meta ->> 'periodo_inicio', '?'), coalesce(p_meta ->> 'periodo_fim', '?') using errcode = 'XL422';
  end;
  if inicio is null or fim is null then
    raise exception 'período do relatório ausente (aba 10, células E1 e F1)' using errcode = 'XL422';
  end if;
  if fim < inicio then
    raise exception 'período do relatório inválido: fim % antes do início %', fim, inicio using errcode = 'XL422';
  end if;
end;
$function$
;

comment on function app.xls_r18_periodo(jsonb) is 'The RELATORIO18 period of p_meta (periodo_inicio, periodo_fim: tab 10, cells E1/F1), checked. XL422 when missing, unreadable or ending before it starts.';
