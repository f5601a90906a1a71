CREATE OR REPLACE FUNCTION app.xls_merge_tipo(p_processamento_id uuid, p_meta jsonb)
 RETURNS text
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_tipo text;
  v_status text;
  v_execucoes integer;
begin
  select p.tipo, p.status, p.execucoes into v_tipo, v_status, v_execucoes from public.xls_processamento p where p.id = p_processamento_id for update;
  if not found then
    raise exception 'processamento % não existe', p_processamento_id using errcode = 'XL404';
  end if;
  if v_status <> 'PROCESSANDO' then
    raise exception 'processamento % está em %: só se importa um processamento em PROCESSANDO', p_processamento_id, v_status
      using errcode = 'XL409';
  end if;
  if p_meta is not null and jsonb_typeof(p_meta) <> 'object' then
    raise exception 'p_meta deve ser um objeto JSON' using errcode = 'XL400';
  end if;
  -- fencing token: the run (execucoes returned by xls_iniciar) the caller merges for
  if p_meta ? 'execucao' and (p_meta ->> 'execucao') is distinct from v_execucoes::text then
    raise exception 'processamento % está na execução %: a execução % foi substituída e não pode gravar', p_processamento_id, v_execucoes, p_meta ->> 'execucao'
      using errcode = 'XL409';
  end if;
  if v_tipo is null then
    raise exception 'processamento % sem tipo: chame xls_definir_tipo antes do merge', p_processamento_id using errcode = 'XL409';
  end if;
  if not exists (select from app.xls_alvo a where a.tipo = v_tipo) then
    raise exception 'o tipo % ainda não tem importação', v_tipo using errcode = 'XL422';
  end if;
  -- every bi_* row written from here to the commit goes into this processing's change set
  perform set_config('bi.xls_processamento', p_processamento_id::text, true);
  return v_tipo;
end;
$function$
;

comment on function app.xls_merge_tipo(uuid,jsonb) is 'Internal, the common entry of public.xls_merge and public.xls_merge_chunk: locks the processing row and returns its tipo once it is PROCESSANDO, typed, described in app.xls_alvo and p_meta is an object, and sets the transaction setting bi.xls_processamento to its id (the change-set trigger app.tg__xls_alteracao records every bi_* row written until the commit); when p_meta carries execucao (the fencing token: execucoes returned by xls_iniciar; the service always passes it) it must be the current run. Errors in this order: XL404 unknown processing, XL409 not PROCESSANDO, XL400 p_meta not an object, XL409 another run (execucao), XL409 no tipo, XL422 type without import.';
