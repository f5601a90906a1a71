CREATE OR REPLACE FUNCTION public.replicacao_resetar(p_motivo text DEFAULT NULL::text, p_solicitante text DEFAULT 'psql'::text)
 RETURNS public.xls_resetar_replicator
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.xls_resetar_replicator;
  v_em_andamento uuid;
  v_motivo text := nullif(btrim(p_motivo), '');
begin
  if char_length(v_motivo) > 500 then
    raise exception 'motivo com % caracteres: o máximo é 500', char_length(v_motivo) using errcode = 'RR400';
  end if;
  begin
    insert into public.xls_resetar_replicator (motivo, solicitante) values (v_motivo, left(p_solicitante, 200))
    returning * into v_row;
  exception when unique_violation then
    select id into v_em_andamento from public.xls_resetar_replicator where status = 'EM_ANDAMENTO';
    raise exception 'já existe um reset da replicação em andamento (%)', v_em_andamento
      using errcode = 'RR409', detail = coalesce(v_em_andamento::text, '');
  end;
  update public.xls_resetar_replicator
     set job_id = app.enqueue('replicacao_resetar', jsonb_build_object('id', v_row.id), now(), v_row.id::text, 1)
   where id = v_row.id
  returning * into v_row;
  return v_row;
end;
$function$
;

comment on function public.replicacao_resetar(text, text) is 'Starts a reset of the replication to the phones: an execution EM_ANDAMENTO in xls_resetar_replicator and its job (replicacao_resetar), which a replica of the service claims and runs step by step. Callable from psql: select * from replicacao_resetar(''motivo''); then follow it in xls_resetar_replicator_passo. RR409 when one is already EM_ANDAMENTO (the detail carries its id); RR400 when motivo has more than 500 characters.';
