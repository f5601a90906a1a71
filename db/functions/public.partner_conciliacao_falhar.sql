CREATE OR REPLACE FUNCTION public.partner_conciliacao_falhar(p_dia date, p_erro text, p_definitiva boolean, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS text
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.partner_conciliacao;
begin
  select * into v_row from public.partner_conciliacao where dia = p_dia for update;
  if not found then
    raise exception 'conciliação do dia % não existe', p_dia using errcode = 'PW404';
  end if;
  if not p_definitiva then
    update public.partner_conciliacao set status = 'PENDENTE', erro = left(p_erro, 2000) where dia = p_dia;
    return 'PENDENTE';
  end if;
  update public.partner_conciliacao set status = 'INACESSIVEL', erro = left(p_erro, 2000), conciliada_em = p_agora,
         avisado = 'INACESSIVEL'
   where dia = p_dia;
  if v_row.avisado is distinct from 'INACESSIVEL' then
    perform app.partner_aviso_criar('conciliacao_incompleta', null, null,
      jsonb_build_object('dia', p_dia, 'status', 'INACESSIVEL', 'erro', left(p_erro, 500), 'tentativas', v_row.tentativas), p_agora);
  end if;
  return 'INACESSIVEL';
end;
$function$
;

comment on function public.partner_conciliacao_falhar(date,text,boolean,timestamp with time zone) is 'Records a failed attempt of a day''s reconciliation (the platform unreachable, an HTTP error, a page out of shape): back to PENDENTE while the job retries, or, when the job gave up (p_definitiva: the platform was unreachable for the whole window of its attempts), INACESSIVEL with one ''conciliacao_incompleta'' notice (error tracker and e-mail to the recipients; once per day and status). Unknown day -> PW404.';
