CREATE OR REPLACE FUNCTION public.xls_linhagem(p_tabela text, p_chave jsonb)
 RETURNS TABLE(seq bigint, processamento_id uuid, arquivo text, tipo text, operacao text, finalizado_em timestamptz, desfeito_em timestamptz, antes jsonb, depois jsonb)
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select a.seq, a.processamento_id, p.arquivo, p.tipo, a.operacao, p.finalizado_em, p.desfeito_em, a.antes,
         case when a.operacao = 'INSERIDA' and a.depois is null then app.xls_alteracao_depois(a.tabela, a.linha_id, a.chave, a.seq) else a.depois end
    from app.xls_alteracao a
    join public.xls_processamento p on p.id = a.processamento_id
   where jsonb_hash_extended(a.chave, 0) = jsonb_hash_extended(p_chave, 0) and a.tabela = p_tabela and a.chave = p_chave
   order by a.seq desc;
$function$
;

comment on function public.xls_linhagem(text,jsonb) is 'Row history for DBAs: which spreadsheet processings inserted (INSERIDA), changed (ALTERADA) or removed (REMOVIDA) the row of p_tabela whose natural key is p_chave (a JSON object of the key columns, e.g. ''{"codigo": "V001"}''), newest first, with the file, its type, when it finished, whether it was undone, and the row before / after. Example: select * from xls_linhagem(''bi_vendedor'', ''{"codigo": "V001"}''). Only what the change sets still hold (xls_alteracoes_retencao_dias).';
