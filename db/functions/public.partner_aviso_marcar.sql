CREATE OR REPLACE FUNCTION public.partner_aviso_marcar(p_id bigint, p_etapa text, p_agora timestamp with time zone DEFAULT now())
 RETURNS void
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if p_etapa not in ('registrado', 'rastreador', 'concluido') then
    raise exception 'etapa de aviso desconhecida: %', p_etapa using errcode = 'PW400';
  end if;
  update public.partner_aviso set
    registrado_em = case when p_etapa = 'registrado' then coalesce(registrado_em, p_agora) else registrado_em end,
    rastreador_em = case when p_etapa = 'rastreador' then coalesce(rastreador_em, p_agora) else rastreador_em end,
    concluido_em = case when p_etapa = 'concluido' then coalesce(concluido_em, p_agora) else concluido_em end
  where id = p_id;
end;
$function$
;

comment on function public.partner_aviso_marcar(bigint,text,timestamp with time zone) is 'Records that a step of a notice is done (registrado: log line; rastreador: error-tracker event; concluido: every step), so a retried job does not repeat it.';
