CREATE OR REPLACE FUNCTION public.xls_aprovar_exclusoes(p_id uuid, p_por text)
 RETURNS uuid[]
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_p record;
begin
  if p_por is null or btrim(p_por) = '' then
    raise exception 'informe quem aprova (p_por)' using errcode = 'XL400';
  end if;
  select p.id, p.status, p.exclusao_retida into v_p from public.xls_processamento p where p.id = p_id for update;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  if v_p.status <> 'ERRO' or not v_p.exclusao_retida then
    raise exception 'esta importação não está retida pela trava de exclusão em massa (status %): não há exclusões a aprovar', v_p.status
      using errcode = 'XL409';
  end if;
  update public.xls_processamento p set exclusoes_aprovadas_em = now(), exclusoes_aprovadas_por = btrim(p_por) where p.id = p_id;
  return public.xls_reprocessar(p_id);
end;
$function$
;

comment on function public.xls_aprovar_exclusoes(uuid,text) is '"Aplicar mesmo assim": a person approves the removals the mass-deletion guard held (the processing ended ERRO with XL428, exclusao_retida) and the processing is reprocessed with the guard lifted for it; records exclusoes_aprovadas_em / exclusoes_aprovadas_por (p_por: e-mail, "api" or the DBA''s text). Returns the ids reprocessed, as xls_reprocessar. XL404 unknown id; XL409 not held by the guard; XL400 p_por empty.';
