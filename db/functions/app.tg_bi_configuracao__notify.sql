CREATE OR REPLACE FUNCTION app.tg_bi_configuracao__notify()
 RETURNS trigger
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  perform pg_notify('app_config', coalesce(new.chave, old.chave));
  return null;
end;
$function$
;

comment on function app.tg_bi_configuracao__notify() is 'Invalidates the 30-second configuration cache of every replica: NOTIFY app_config with the changed key.';
