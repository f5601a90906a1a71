CREATE OR REPLACE FUNCTION app.tg__xls_processamento__alteracoes_apagar()
 RETURNS trigger
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
-- Statement-level AFTER DELETE on xls_processamento (transition table velhos): the change sets
-- of the deleted processings go with them, as a cascading foreign key would do.
begin
  delete from app.xls_alteracao a using velhos v where a.processamento_id = v.id;
  return null;
end;
$function$
;

comment on function app.tg__xls_processamento__alteracoes_apagar() is 'Trigger _100_xls_alteracao_apagar (AFTER DELETE FOR EACH STATEMENT on public.xls_processamento): deletes the change sets (app.xls_alteracao) of the deleted processings. Stands for the cascade of a foreign key, which app.xls_alteracao does not have (its per-row check was the costliest part of recording a change set).';

-- installed here (it needs its function), each time the definitions are applied
create or replace trigger _100_xls_alteracao_apagar after delete on public.xls_processamento
  referencing old table as velhos for each statement execute function app.tg__xls_processamento__alteracoes_apagar();
