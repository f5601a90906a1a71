CREATE OR REPLACE FUNCTION app.login_iniciar(p_state text, p_nonce text, p_code_verifier text, p_destino text)
 RETURNS void
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if p_state is null or length(p_state) < 32 or p_nonce is null or p_code_verifier is null then
    raise exception 'login sem state, nonce ou code verifier' using errcode = 'SS400';
  end if;
  insert into app.login_tentativa (state, nonce, code_verifier, destino)
  values (p_state, p_nonce, p_code_verifier,
          case when p_destino ~ '^/' and p_destino !~ '^//' and p_destino !~ '^/\\' then p_destino else '/' end);
end;
$function$
;

comment on function app.login_iniciar(text,text,text,text) is 'Records an identity-provider login being started: OAuth state, OIDC nonce, PKCE code verifier and the local path to return to (anything but a local path becomes /). Valid 10 minutes. SS400 when a part is missing.';
