CREATE OR REPLACE FUNCTION public.partner_conciliacao_iniciar(p_dia date, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS TABLE(desde timestamp with time zone, ate timestamp with time zone, tentativas integer)
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  insert into public.partner_conciliacao as c (dia, status, solicitada_em, iniciada_em, tentativas)
  values (p_dia, 'EM_ANDAMENTO', p_agora, p_agora, 1)
  on conflict (dia) do update set status = 'EM_ANDAMENTO', iniciada_em = p_agora, tentativas = c.tentativas + 1;
  return query
    select (p_dia::timestamp) at time zone 'America/Sao_Paulo',
           ((p_dia + 1)::timestamp) at time zone 'America/Sao_Paulo',
           c.tentativas
      from public.partner_conciliacao c where c.dia = p_dia;
end;
$function$
;

comment on function public.partner_conciliacao_iniciar(date,timestamp with time zone) is 'Starts an attempt of a day''s reconciliation (the job partner_conciliar): the ledger row is EM_ANDAMENTO, and the answer is the window the service asks the platform for, [desde, ate): the day''s midnight to the next, America/Sao_Paulo.';
