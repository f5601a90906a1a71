CREATE OR REPLACE FUNCTION public.xls_progresso(p_id uuid, p_worker text, p_linhas integer)
 RETURNS boolean
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_execucao integer;
begin
  if p_linhas is null or p_linhas < 0 then
    raise exception 'linhas lidas inválidas: %', p_linhas using errcode = 'XL400';
  end if;
  -- no lock on the processing: the merge transaction holds it until its end
  select p.execucoes into v_execucao from public.xls_processamento p
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker;
  if not found then
    return false;
  end if;
  insert into public.xls_processamento_progresso as g (processamento_id, execucao, linhas_lidas, atualizado_em)
  values (p_id, v_execucao, p_linhas, now())
  on conflict (processamento_id) do update
     set linhas_lidas = case when g.execucao = excluded.execucao then greatest(g.linhas_lidas, excluded.linhas_lidas) else excluded.linhas_lidas end,
         execucao = excluded.execucao, atualizado_em = now();
  return true;
end;
$function$
;

comment on function public.xls_progresso(uuid,text,integer) is 'Progress of a running processing: the job reports the rows read so far after each chunk, on its own autocommit connection (the merge transaction is invisible until it commits). Kept per execution; a count never goes back within one. False (nothing recorded) when the processing is not PROCESSANDO by this worker (a late report). XL400 for a negative or null count.';
