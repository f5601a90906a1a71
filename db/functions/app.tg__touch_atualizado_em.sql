CREATE OR REPLACE FUNCTION app.tg__touch_atualizado_em()
 RETURNS trigger
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  -- an undo (public.xls_desfazer) puts the row back exactly as it was, atualizado_em included
  if current_setting('bi.xls_desfazendo', true) = 'on' then
    return new;
  end if;
  new.atualizado_em := now();
  return new;
end;
$function$
;

comment on function app.tg__touch_atualizado_em() is 'Generic BEFORE UPDATE trigger: keeps atualizado_em current (except during public.xls_desfazer, which restores the stored value).';
