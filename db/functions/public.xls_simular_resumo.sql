CREATE OR REPLACE FUNCTION public.xls_simular_resumo(p_id uuid, p_exemplos integer DEFAULT 20)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select coalesce(jsonb_object_agg(t.tabela, t.resumo), '{}')
    from (select a.tabela,
                 jsonb_build_object(
                   'inseridas', count(*) filter (where a.operacao = 'INSERIDA'),
                   'alteradas', count(*) filter (where a.operacao = 'ALTERADA'),
                   'removidas', count(*) filter (where a.operacao = 'REMOVIDA'),
                   'exemplos', jsonb_build_object(
                     'INSERIDA', coalesce(jsonb_agg(jsonb_build_object('chave', a.chave, 'depois', coalesce(a.depois, app.xls_alteracao_depois(a.tabela, a.linha_id, a.chave, a.seq))) order by a.seq)
                                            filter (where a.operacao = 'INSERIDA' and a.n <= p_exemplos), '[]'),
                     'ALTERADA', coalesce(jsonb_agg(jsonb_build_object('chave', a.chave, 'antes', a.antes, 'depois', a.depois) order by a.seq)
                                            filter (where a.operacao = 'ALTERADA' and a.n <= p_exemplos), '[]'),
                     'REMOVIDA', coalesce(jsonb_agg(jsonb_build_object('chave', a.chave, 'antes', a.antes) order by a.seq)
                                            filter (where a.operacao = 'REMOVIDA' and a.n <= p_exemplos), '[]'))) as resumo
            from (select x.*, row_number() over (partition by x.tabela, x.operacao order by x.seq) as n
                    from app.xls_alteracao x where x.processamento_id = p_id) a
           group by a.tabela) t;
$function$
;

comment on function public.xls_simular_resumo(uuid,integer) is 'Preview: what the processing p_id changed so far in this transaction, per table: {tabela: {inseridas, alteradas, removidas, exemplos: {INSERIDA: [{chave, depois}], ALTERADA: [{chave, antes, depois}], REMOVIDA: [{chave, antes}]}}}, at most p_exemplos examples of each, in the order written. Read from its change set (app.xls_alteracao), so the counts are those a real send records.';
