CREATE OR REPLACE FUNCTION app.tg__xls_alteracao()
 RETURNS trigger
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
-- Statement-level AFTER trigger with transition tables (novas / velhas) on the bi_* tables:
-- while a merge runs (the transaction setting bi.xls_processamento holds its id), every row
-- the statement inserted, rewrote or removed goes into app.xls_alteracao, set-based. The rows
-- a statement inserted are one INSERIDA row with their ids (app.xls_alteracao_itens expands it).
declare
  v_pid uuid := nullif(current_setting('bi.xls_processamento', true), '')::uuid;
  v_chave text;
begin
  if v_pid is null then
    return null;
  end if;
  v_chave := app.xls_chave_sql(tg_relid, 'x');
  if v_chave is null then
    return null;
  end if;
  -- what a foreign key would check row by row, once per statement (the merge's entry holds the
  -- processing locked FOR UPDATE until the commit, so it cannot go away meanwhile)
  if not exists (select from public.xls_processamento p where p.id = v_pid) then
    raise exception 'bi.xls_processamento = %: processamento inexistente', v_pid using errcode = 'foreign_key_violation';
  end if;
  if tg_op = 'INSERT' then
    insert into app.xls_alteracao (processamento_id, tabela, operacao, linha_ids)
    select v_pid, tg_table_name, 'INSERIDA', array_agg(x.id) from novas x having count(*) > 0;
  elsif tg_op = 'UPDATE' then
    execute format($q$
      insert into app.xls_alteracao (processamento_id, tabela, operacao, linha_id, chave, antes, depois)
      select $1, $2, 'ALTERADA', x.id, %s, to_jsonb(x), to_jsonb(n)
        from velhas x join novas n on n.id = x.id$q$, v_chave)
      using v_pid, tg_table_name;
  elsif tg_op = 'DELETE' then
    execute format($q$
      insert into app.xls_alteracao (processamento_id, tabela, operacao, linha_id, chave, antes)
      select $1, $2, 'REMOVIDA', x.id, %s, to_jsonb(x) from velhas x$q$, v_chave)
      using v_pid, tg_table_name;
  end if;
  return null;
end;
$function$
;

comment on function app.tg__xls_alteracao() is 'Statement-level AFTER INSERT / UPDATE / DELETE trigger (transition tables novas, velhas) installed on every bi_* table but bi_configuracao by app.xls_alteracao_instalar: while the transaction setting bi.xls_processamento holds a processing id (set by the merge''s entry, app.xls_merge_tipo), records what the statement wrote into that processing''s change set (app.xls_alteracao: the rows it inserted as one INSERIDA row with their ids, their keys and values read later through app.xls_alteracao_itens; each rewritten or removed row with its key and the row before), after checking once per statement that the processing exists (foreign_key_violation otherwise: the table has no per-row foreign key); otherwise does nothing. Captures the hooks'' writes too (reference tables, FLUXO''s atual flag).';
