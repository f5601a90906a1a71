CREATE OR REPLACE FUNCTION public.partner_aviso_envio_resultado(p_id bigint, p_email text, p_erro text DEFAULT NULL::text, p_agora timestamp with time zone DEFAULT now())
 RETURNS void
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  update public.partner_aviso_envio set
    enviado_em = case when p_erro is null then p_agora else enviado_em end,
    tentativas = tentativas + 1,
    erro = left(p_erro, 1000)
  where aviso_id = p_id and email = p_email and enviado_em is null;
$function$
;

comment on function public.partner_aviso_envio_resultado(bigint,text,text,timestamp with time zone) is 'Records the outcome of one e-mail of a notice: delivered (p_erro null) or the error of this attempt.';
