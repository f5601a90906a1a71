CREATE OR REPLACE FUNCTION app.login_consumir(p_state text)
 RETURNS SETOF app.login_tentativa
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  delete from app.login_tentativa where state = p_state and expira_em > now() returning *;
$function$
;

comment on function app.login_consumir(text) is 'The login callback takes its pending login once: the row of that state (deleted), or no row when the state is unknown, already used or expired (the callback then answers 400).';
