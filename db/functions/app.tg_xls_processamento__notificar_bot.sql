CREATE OR REPLACE FUNCTION app.tg_xls_processamento__notificar_bot()
 RETURNS trigger
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_status text;
  v_alarmar boolean;
begin
  -- deferred to COMMIT: the transition functions adjust the row after setting the status
  -- (e.g. a silent first transient-FK failure clears alarmar), so decide on the final row
  select p.status, p.alarmar into v_status, v_alarmar from public.xls_processamento p where p.id = new.id;
  if v_status in ('SUCESSO', 'IGNORADO') or (v_status = 'ERRO' and v_alarmar) then
    perform app.notificar_bot(app.xls_mensagem_bot(new.id));
  end if;
  return null;
end;
$function$
;

comment on function app.tg_xls_processamento__notificar_bot() is 'Queues the messaging-bot message of every outcome (SUCESSO, IGNORADO, and ERRO that alarms; a silent first transient-FK failure is not announced). A deferred trigger: it decides at COMMIT on the final row, and the message goes out if and only if the outcome commits.';
