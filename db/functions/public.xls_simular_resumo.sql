CREATE OR REPLACE FUNCTION public.xls_simular_resumo(p_id uuid, p_exemplos integer DEFAULT 20)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select coalesce(jsonb_object_agg(t.tabela, t.resumo), '{}')
    from (select c.tabela,
                 jsonb_build_object(
                   'inseridas', coalesce(sum(c.n) filter (where c.operacao = 'INSERIDA'), 0),
                   'alteradas', coalesce(sum(c.n) filter (where c.operacao = 'ALTERADA'), 0),
                   'removidas', coalesce(sum(c.n) filter (where c.operacao = 'REMOVIDA'), 0),
                   'exemplos', jsonb_build_object(
                     'INSERIDA', coalesce(jsonb_agg(c.exemplos) filter (where c.operacao = 'INSERIDA') -> 0, '[]'),
                     'ALTERADA', coalesce(jsonb_agg(c.exemplos) filter (where c.operacao = 'ALTERADA') -> 0, '[]'),
                     'REMOVIDA', coalesce(jsonb_agg(c.exemplos) filter (where c.operacao = 'REMOVIDA') -> 0, '[]'))) as resumo
            from (select x.tabela, x.operacao, x.n,
                         (select jsonb_agg(case x.operacao when 'INSERIDA' then jsonb_build_object('chave', i.chave, 'depois', i.depois)
                                                           when 'ALTERADA' then jsonb_build_object('chave', i.chave, 'antes', i.antes, 'depois', i.depois)
                                                           else jsonb_build_object('chave', i.chave, 'antes', i.antes) end order by i.o)
                            from app.xls_alteracao_itens(p_id, x.tabela, x.operacao, p_exemplos)
                                 with ordinality i (seq, tabela, operacao, linha_id, chave, antes, depois, o)) as exemplos
                    from (select a.tabela, a.operacao, sum(coalesce(cardinality(a.linha_ids), 1)) as n
                            from app.xls_alteracao a where a.processamento_id = p_id group by a.tabela, a.operacao) x) c
           group by c.tabela) t;
$function$
;
comment on function public.xls_simular_resumo(uuid,integer) is 'Preview: what the processing p_id changed so far in this transaction, per table: {tabela: {inseridas, alteradas, removidas, exemplos: {INSERIDA: [{chave, depois}], ALTERADA: [{chave, antes, depois}], REMOVIDA: [{chave, antes}]}}}, at most p_exemplos examples of each, in the order written. Read from its change set (app.xls_alteracao), so the counts are those a real send records.';
