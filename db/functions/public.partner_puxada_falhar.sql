CREATE OR REPLACE FUNCTION public.partner_puxada_falhar(p_id bigint, p_erro text, p_definitiva boolean, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS void
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  update public.partner_puxada set status = case when p_definitiva then 'ERRO' else 'PENDENTE' end,
         erro = left(p_erro, 2000), concluida_em = case when p_definitiva then p_agora end
   where id = p_id and status <> 'CONCLUIDA';
$function$
;

comment on function public.partner_puxada_falhar(bigint,text,boolean,timestamp with time zone) is 'Records a failed attempt of a pull: back to PENDENTE (the job retries with backoff) or ERRO when the job gave up.';
