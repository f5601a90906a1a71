CREATE OR REPLACE FUNCTION public.partner_puxada_concluir(p_id bigint, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS void
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  update public.partner_puxada set status = 'CONCLUIDA', concluida_em = p_agora where id = p_id;
$function$
;

comment on function public.partner_puxada_concluir(bigint,timestamp with time zone) is 'Marks a pull done.';
