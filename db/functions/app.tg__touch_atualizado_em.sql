CREATE OR REPLACE FUNCTION app.tg__touch_atualizado_em()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  new.atualizado_em := now();
  return new;
end;
$function$
;

comment on function app.tg__touch_atualizado_em() is 'Generic BEFORE UPDATE trigger: keeps atualizado_em current.';
