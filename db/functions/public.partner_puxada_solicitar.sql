CREATE OR REPLACE FUNCTION public.partner_puxada_solicitar(p_motivo text, p_agora timestamp with time zone DEFAULT now())
 RETURNS bigint
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_id bigint;
  v_job bigint;
begin
  if p_motivo not in ('poll', 'contingencia', 'manual') then
    raise exception 'motivo de puxada desconhecido: %', p_motivo using errcode = 'PW400';
  end if;
  insert into public.partner_puxada (motivo, solicitada_em) values (p_motivo, p_agora) returning id into v_id;
  v_job := app.enqueue('partner_puxar', jsonb_build_object('id', v_id), now(), 'puxada:' || p_motivo, 5);
  if v_job is null then
    delete from public.partner_puxada where id = v_id; -- one of this kind is already queued or running
    return null;
  end if;
  update public.partner_puxada set job_id = v_job where id = v_id;
  return v_id;
end;
$function$
;

comment on function public.partner_puxada_solicitar(text,timestamp with time zone) is 'Requests a pull of orders (poll, contingencia or manual — a DBA may call select partner_puxada_solicitar(''manual'')). Returns its id, or null when a pull of the same kind is already queued or running.';
