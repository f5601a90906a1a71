CREATE OR REPLACE FUNCTION app.xls_alteracoes_expurgar()
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_dias integer := coalesce((select case when c.valor ~ '^[0-9]{1,6}$' then c.valor::integer end
                                from public.bi_configuracao c where c.chave = 'xls_alteracoes_retencao_dias'), 180);
  v_n integer;
begin
  with velhos as (
    update public.xls_processamento p set alteracoes_expiradas_em = now()
     where p.finalizado_em < now() - make_interval(days => v_dias) and p.alteracoes_expiradas_em is null
       and exists (select from app.xls_alteracao a where a.processamento_id = p.id)
    returning p.id)
  delete from app.xls_alteracao a using velhos v where a.processamento_id = v.id;
  get diagnostics v_n = row_count;
  return v_n;
end;
$function$
;

comment on function app.xls_alteracoes_expurgar() is 'Retention of the change sets (pg_cron job app_xls_alteracoes_expurgar, daily): deletes the change set of every processing finished more than xls_alteracoes_retencao_dias days ago (bi_configuracao, default 180) and marks it alteracoes_expiradas_em, so its undo says why it cannot. Returns the rows deleted.';
