CREATE OR REPLACE FUNCTION public.destinatario_salvar(p_id uuid, p_email text, p_nome text, p_ativo boolean DEFAULT true, p_versao_esperada timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS public.destinatario
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.destinatario;
  v_email text := btrim(coalesce(p_email, ''));
begin
  if p_id is not null then
    select * into v_row from public.destinatario where id = p_id for update;
    if not found then
      raise exception 'destinatário % não existe', p_id using errcode = 'DS404';
    end if;
  end if;
  if v_email !~ '^[^@\s]+@[^@\s]+\.[^@\s]+$' or length(v_email) > 254 then
    raise exception 'e-mail ''%'' inválido', v_email using errcode = 'DS400';
  end if;
  if p_id is not null and p_versao_esperada is not null
     and date_trunc('milliseconds', v_row.atualizado_em) <> date_trunc('milliseconds', p_versao_esperada) then
    raise exception 'o destinatário % foi alterado por outra pessoa; recarregue e tente de novo', v_row.email using errcode = 'DS409';
  end if;
  if exists (select 1 from public.destinatario d where lower(d.email) = lower(v_email) and d.id is distinct from p_id) then
    raise exception 'o e-mail % já está na lista', v_email using errcode = 'DS409';
  end if;
  if p_id is null then
    insert into public.destinatario (email, nome, ativo)
    values (v_email, nullif(btrim(p_nome), ''), coalesce(p_ativo, true))
    returning * into v_row;
  else
    update public.destinatario set email = v_email, nome = nullif(btrim(p_nome), ''), ativo = coalesce(p_ativo, true)
     where id = p_id
    returning * into v_row;
  end if;
  return v_row;
exception
  when unique_violation then
    raise exception 'o e-mail % já está na lista', v_email using errcode = 'DS409';
end;
$function$
;

comment on function public.destinatario_salvar(uuid,text,text,boolean,timestamp with time zone) is 'Adds (p_id null) or edits a recipient of the webhook alert e-mails (/destinatarios). Errors in this order: DS404 unknown id, DS400 invalid e-mail, DS409 the row changed since p_versao_esperada or the e-mail (case-insensitive) is already on the list.';
