CREATE OR REPLACE FUNCTION public.xls_merge_chunk(p_processamento_id uuid, p_meta jsonb DEFAULT '{}'::jsonb)
 RETURNS integer
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_tipo text;
  v_status text;
begin
  select p.tipo, p.status into v_tipo, v_status from public.xls_processamento p where p.id = p_processamento_id for update;
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
  if v_tipo is null then
    raise exception 'processamento % sem tipo: chame xls_definir_tipo antes do merge', p_processamento_id using errcode = 'XL409';
  end if;
  if not exists (select from app.xls_alvo a where a.tipo = v_tipo) then
    raise exception 'o tipo % ainda não tem importação', v_tipo using errcode = 'XL422';
  end if;
  return app.xls_merge_chunk(v_tipo, coalesce(p_meta, '{}'));
end;
$function$
;

comment on function public.xls_merge_chunk(uuid,jsonb) is 'Optional, while the staging tables are being filled: merges the rows staged so far as one chunk and empties the staging, so the database writes one chunk while the edge reads the next (same transaction, before xls_merge). The type is looked up in app.xls_alvo (the declarative merge, docs/xls-merge.md); p_meta as for xls_merge (RELATORIO18 needs its period; every chunk the same parameters). The end result is the same as one xls_merge of every row; xls_merge then finishes (keys repeated across chunks, the type''s hook, scope deletes, metrics). Returns the rows taken. Errors as xls_merge.';
