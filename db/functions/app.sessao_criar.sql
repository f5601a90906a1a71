CREATE OR REPLACE FUNCTION app.sessao_criar(p_token text, p_email text, p_nome text, p_papel text, p_duracao interval, p_csrf text, p_anterior text DEFAULT NULL::text)
 RETURNS app.sessao
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row app.sessao;
begin
  if p_token is null or length(p_token) < 32 then
    raise exception 'token de sessão curto demais' using errcode = 'SS400';
  end if;
  if p_email is null or p_email !~ '^[^@\s]+@[^@\s]+$' then
    raise exception 'e-mail da sessão inválido: %', p_email using errcode = 'SS400';
  end if;
  if p_duracao is null or p_duracao <= interval '0' then
    raise exception 'duração da sessão deve ser positiva' using errcode = 'SS400';
  end if;
  -- rotation at login: the session the browser came with (if any) ends here
  if p_anterior is not null then
    update app.sessao set encerrada_em = now(), motivo_encerramento = 'rotacao'
     where token_hash = sha256(convert_to(p_anterior, 'UTF8')) and encerrada_em is null;
  end if;
  insert into app.sessao (token_hash, email, nome, papel, csrf, expira_em)
  values (sha256(convert_to(p_token, 'UTF8')), lower(p_email), nullif(btrim(p_nome), ''), coalesce(p_papel, 'equipe'), p_csrf, now() + p_duracao)
  returning * into v_row;
  return v_row;
end;
$function$
;

comment on function app.sessao_criar(text,text,text,text,interval,text,text) is 'Opens a screen session after a login: stores the SHA-256 of the cookie token p_token (never the token), the e-mail, name, papel (equipe | smoke), the CSRF token of its forms and the expiry (now + p_duracao). Rotation: the session whose token is p_anterior (the cookie the browser came with) is ended with motivo rotacao. SS400 on a short token, a malformed e-mail or a non-positive duration.';
