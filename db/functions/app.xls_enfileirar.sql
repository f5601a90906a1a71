CREATE OR REPLACE FUNCTION app.xls_enfileirar(p_id uuid)
 RETURNS bigint
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_job bigint;
begin
  v_job := app.enqueue('xls_processar', jsonb_build_object('id', p_id), now(), p_id::text);
  if v_job is null and not exists (
      select from app.job j
       where j.kind = 'xls_processar' and j.unique_key = p_id::text and j.status = 'pending') then
    -- The key is held by a running job that is finishing an earlier run of this
    -- processing (it just failed, or its batch closed meanwhile): queue a follow-up
    -- without key. A duplicate is harmless: only one job can move PENDENTE -> PROCESSANDO.
    v_job := app.enqueue('xls_processar', jsonb_build_object('id', p_id), now(), null);
  end if;
  return v_job;
end;
$function$
;

comment on function app.xls_enfileirar(uuid) is 'Queues the job xls_processar {id} (unique key = id) inside the caller''s transaction; when a running job still holds the key (it is finishing the previous run), queues a follow-up without key. Returns the job id, or null when a pending job already exists.';
