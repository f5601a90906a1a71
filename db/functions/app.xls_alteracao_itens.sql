CREATE OR REPLACE FUNCTION app.xls_alteracao_itens(p_id uuid, p_tabela text DEFAULT NULL, p_operacao text DEFAULT NULL, p_limite integer DEFAULT NULL, p_deslocamento integer DEFAULT 0)
 RETURNS TABLE(seq bigint, tabela text, operacao text, linha_id uuid, chave jsonb, antes jsonb, depois jsonb)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
-- The change set of one processing row by row, in the order written: an INSERIDA row (one per
-- statement) becomes one item per id, in the order inserted, with its key and values read back
-- (app.xls_alteracao_depois) unless the undo stored them. Only the page asked for is read back.
#variable_conflict use_column
declare
  r record;
begin
  for r in
    select a.seq, a.tabela, a.operacao, coalesce(u.id, a.linha_id) as linha_id, a.chave, a.antes,
           case when a.operacao = 'INSERIDA' then a.depois -> (u.n::integer - 1) else a.depois end as depois
      from app.xls_alteracao a
      left join lateral unnest(a.linha_ids) with ordinality u (id, n) on true
     where a.processamento_id = p_id and (p_tabela is null or a.tabela = p_tabela) and (p_operacao is null or a.operacao = p_operacao)
     order by a.seq, u.n
     limit p_limite offset p_deslocamento
  loop
    seq := r.seq; tabela := r.tabela; operacao := r.operacao; linha_id := r.linha_id; antes := r.antes;
    chave := r.chave; depois := r.depois;
    if r.operacao = 'INSERIDA' then
      depois := coalesce(depois, app.xls_alteracao_depois(r.tabela, r.linha_id, r.seq));
      if depois is null then
        chave := jsonb_build_object('id', r.linha_id);
      else
        execute format('select %s from jsonb_populate_record(null::public.%I, $1) x',
                       app.xls_chave_sql(format('public.%I', r.tabela)::regclass, 'x'), r.tabela)
          into chave using depois;
      end if;
    end if;
    return next;
  end loop;
end;
$function$
;

comment on function app.xls_alteracao_itens(uuid,text,text,integer,integer) is 'Internal: the change set of processing p_id one item per row changed, in the order written (seq, then the order inserted): the INSERIDA rows (one per statement in app.xls_alteracao) expanded into one item per id with its natural key and its values as inserted (app.xls_alteracao_depois, or the values the undo stored). Filters p_tabela, p_operacao; p_limite / p_deslocamento page it (null limit: all), and only that page is read back. Read by public.xls_alteracoes and public.xls_simular_resumo.';
