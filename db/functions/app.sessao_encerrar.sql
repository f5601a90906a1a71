CREATE OR REPLACE FUNCTION app.sessao_encerrar(p_token text)
 RETURNS boolean
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  with e as (
    update app.sessao set encerrada_em = now(), motivo_encerramento = 'logout'
     where token_hash = sha256(convert_to(coalesce(p_token, ''), 'UTF8')) and encerrada_em is null
    returning 1
  )
  select exists (select 1 from e);
$function$
;

comment on function app.sessao_encerrar(text) is 'Logout: ends the session of the cookie token. True when a live session was ended; false when there was none (logging out twice is harmless).';
