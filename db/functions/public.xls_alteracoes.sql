CREATE OR REPLACE FUNCTION public.xls_alteracoes(p_id uuid, p_tabela text DEFAULT NULL, p_operacao text DEFAULT NULL, p_limite integer DEFAULT 20, p_deslocamento integer DEFAULT 0)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_p record;
begin
  if p_operacao is not null and p_operacao not in ('INSERIDA', 'ALTERADA', 'REMOVIDA') then
    raise exception 'operacao % inválida: INSERIDA, ALTERADA ou REMOVIDA', p_operacao using errcode = 'XL400';
  end if;
  if p_limite < 1 or p_limite > 100 or p_deslocamento < 0 then
    raise exception 'página inválida' using errcode = 'XL400';
  end if;
  select p.id, p.alteracoes_expiradas_em, p.desfeito_em into v_p from public.xls_processamento p where p.id = p_id;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  return jsonb_build_object(
    'total', (select coalesce(sum(coalesce(cardinality(a.linha_ids), 1)), 0) from app.xls_alteracao a
               where a.processamento_id = p_id and (p_tabela is null or a.tabela = p_tabela) and (p_operacao is null or a.operacao = p_operacao)),
    'contagens', (select coalesce(jsonb_object_agg(c.tabela, c.ops), '{}') from (
                    select x.tabela, jsonb_object_agg(x.operacao, x.n) as ops
                      from (select a.tabela, a.operacao, sum(coalesce(cardinality(a.linha_ids), 1)) as n from app.xls_alteracao a where a.processamento_id = p_id group by 1, 2) x
                     group by x.tabela) c),
    'expiradasEm', v_p.alteracoes_expiradas_em,
    'itens', (select coalesce(jsonb_agg(jsonb_build_object('seq', a.seq, 'tabela', a.tabela, 'operacao', a.operacao, 'chave', a.chave,
                                                           'antes', a.antes, 'depois', a.depois) order by a.o), '[]')
                from app.xls_alteracao_itens(p_id, p_tabela, p_operacao, p_limite, p_deslocamento)
                     with ordinality a (seq, tabela, operacao, linha_id, chave, antes, depois, o)));
end;
$function$
;

comment on function public.xls_alteracoes(uuid,text,text,integer,integer) is 'The change set of one processing, one page: {total (matching the filters), contagens {tabela: {INSERIDA, ALTERADA, REMOVIDA}}, expiradasEm (purged by the retention, else null), itens [{seq, tabela, operacao, chave, antes, depois}] in the order written}. Filters p_tabela, p_operacao (INSERIDA / ALTERADA / REMOVIDA); p_limite 1..100. XL404 unknown processing, XL400 bad filter or page.';
