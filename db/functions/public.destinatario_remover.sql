CREATE OR REPLACE FUNCTION public.destinatario_remover(p_id uuid)
 RETURNS public.destinatario
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.destinatario;
begin
  delete from public.destinatario where id = p_id returning * into v_row;
  if v_row.id is null then
    raise exception 'destinatário % não existe', p_id using errcode = 'DS404';
  end if;
  return v_row;
end;
$function$
;

comment on function public.destinatario_remover(uuid) is 'Removes a recipient of the webhook alert e-mails and returns it. DS404 unknown id. To stop sending without removing, save it with ativo = false.';
