CREATE OR REPLACE FUNCTION public.xls_reprocessar_conjunto(p_conjunto_id uuid)
 RETURNS uuid[]
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_ids uuid[] := '{}';
  v_id uuid;
begin
  if not exists (select from public.xls_conjunto l where l.id = p_conjunto_id) then
    raise exception 'conjunto % não existe', p_conjunto_id using errcode = 'XL404';
  end if;
  for v_id in
    select p.id from public.xls_processamento p
     where p.conjunto_id = p_conjunto_id and p.status = 'ERRO'
     order by p.recebido_em, p.id for update skip locked
  loop
    if app.xls_fk_aguardando(v_id) is not null then
      v_ids := v_ids || v_id; -- keeps waiting for its batch's master report: the batch close reprocesses it
    elsif app.xls_requeue(v_id) then
      v_ids := v_ids || v_id;
    end if;
  end loop;
  return v_ids;
end;
$function$
;

comment on function public.xls_reprocessar_conjunto(uuid) is 'Reprocess button, the errors of a batch: every processing of the batch in ERRO -> PENDENTE. Returns the ids reprocessed (possibly none); one waiting for its open batch after a first transient FK failure (app.xls_fk_aguardando) keeps waiting and is reprocessed by the batch close. XL404 unknown batch.';
