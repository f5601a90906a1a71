CREATE OR REPLACE FUNCTION app.enqueue(p_kind text, p_payload jsonb DEFAULT '{}'::jsonb, p_run_at timestamp with time zone DEFAULT now(), p_unique_key text DEFAULT NULL::text, p_max_attempts integer DEFAULT 5)
 RETURNS bigint
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_id bigint;
begin
  insert into app.job (kind, payload, run_at, unique_key, max_attempts)
  values (p_kind, coalesce(p_payload, '{}'), coalesce(p_run_at, now()), p_unique_key, p_max_attempts)
  on conflict (kind, unique_key) where unique_key is not null and status in ('pending', 'running') do nothing
  returning id into v_id;
  if v_id is not null and coalesce(p_run_at, now()) <= now() then
    perform pg_notify('app_jobs', p_kind);
  end if;
  return v_id;
end;
$function$
;

comment on function app.enqueue(text,jsonb,timestamp with time zone,text,integer) is 'Adds a job and wakes the workers (NOTIFY app_jobs, inside the caller''s transaction). Returns the job id, or null when a pending/running job with the same unique key exists.';
