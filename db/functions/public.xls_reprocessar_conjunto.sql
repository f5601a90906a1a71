CREATE OR REPLACE FUNCTION public.xls_reprocessar_conjunto(p_conjunto_id uuid)
 RETURNS uuid[]
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if not exists (select from public.xls_conjunto l where l.id = p_conjunto_id) then
    raise exception 'conjunto % não existe', p_conjunto_id using errcode = 'XL404';
  end if;
  return app.xls_reprocessar_em_erro(p_conjunto_id, null);
end;
$function$
;

comment on function public.xls_reprocessar_conjunto(uuid) is 'Reprocess button, the errors of a batch: every processing of the batch in ERRO -> PENDENTE. Returns the ids reprocessed (possibly none); one waiting for its open batch after a first transient FK failure (app.xls_fk_aguardando) keeps waiting and is reprocessed by the batch close. XL404 unknown batch.';
