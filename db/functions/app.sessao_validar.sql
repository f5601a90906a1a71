CREATE OR REPLACE FUNCTION app.sessao_validar(p_token text)
 RETURNS SETOF app.sessao
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row app.sessao;
begin
  select * into v_row from app.sessao
   where token_hash = sha256(convert_to(coalesce(p_token, ''), 'UTF8'))
     and encerrada_em is null and expira_em > now();
  if not found then
    return;
  end if;
  -- last use is recorded at most once a minute: a page view is not a write each time
  if v_row.ultimo_uso_em < now() - interval '1 minute' then
    update app.sessao set ultimo_uso_em = now() where id = v_row.id returning * into v_row;
  end if;
  return next v_row;
end;
$function$
;

comment on function app.sessao_validar(text) is 'The live session of a cookie token (not ended, not expired), or no row. Records the last use (at most once a minute).';
