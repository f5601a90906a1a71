CREATE OR REPLACE FUNCTION app.xls_merge_gravar(p_staging text, p_id_prefixo text)
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET work_mem TO '64MB'
AS $function$
-- Writes the rows of pg_temp.xls_chunk_<p_staging> to its target with the statements of
-- app.xls_merge_preparar: the foreign-key checks (XL424), the diff (new and changed rows),
-- new keys inserted (a reference table's in key order) and changed rows upserted in key order.
-- Returns the rows written.
declare
  e record;
  v_fk text;
  v_falta record;
  v_dif integer;
begin
  select x.* into e from pg_temp.xls_merge_estado x where x.staging = p_staging;
  foreach v_fk in array e.sql_fk loop
    execute v_fk into v_falta;
    if v_falta.n > 0 then
      raise exception '%', v_falta.rotulo || ': ' || v_falta.faltam || case when v_falta.n > 20 then format(' e mais %s', v_falta.n - 20) else '' end
        using errcode = 'XL424',
              hint = 'o cadastro é criado pelo relatório mestre; dentro de um conjunto (zip) o arquivo é refeito depois que o relatório mestre concluir';
    end if;
  end loop;
  execute format('truncate pg_temp.%I', 'xls_dif_' || p_staging);
  execute e.sql_dif;
  get diagnostics v_dif = row_count;
  if v_dif > 0 then
    execute e.sql_inserir using p_id_prefixo;
    if e.sql_atualizar is not null then
      execute e.sql_atualizar;
    end if;
  end if;
  return v_dif;
end;
$function$
;

comment on function app.xls_merge_gravar(text,text) is 'Internal, the write step of the declarative merge for one target (a row of pg_temp.xls_merge_estado): checks its foreign keys on pg_temp.xls_chunk_<staging> (XL424 naming the missing codes and rows), finds the new and changed rows (a kept column compares as the stored value when the sheet''s is empty), inserts new keys with time-ordered ids (p_id_prefixo; in the file''s order for a target of its own type, which the merge lock keeps to one writer, in key order for a reference table other types write too) and upserts changed rows in key order. Returns the rows written. Called by app.xls_merge_chunk and, for reference tables written at the end, app.xls_merge_fim.';
