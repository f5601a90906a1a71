CREATE OR REPLACE FUNCTION public.xls_linhagem(p_tabela text, p_chave jsonb)
 RETURNS TABLE(seq bigint, processamento_id uuid, arquivo text, tipo text, operacao text, finalizado_em timestamptz, desfeito_em timestamptz, antes jsonb, depois jsonb)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
-- The changes and removals of a key are found by the key index. The insertions are one row per
-- statement holding ids only: each id the key had (the stored row's, and those of the rows
-- changed or removed) is looked for in the insertions of the processings that were running when
-- the row was inserted (its atualizado_em as inserted), else in every earlier insertion; an
-- insertion the undo took back is found in the values it stored. Read-only (a standby answers it).
#variable_conflict use_column
declare
  v_rel regclass := format('public.%I', p_tabela)::regclass;
  v_on text := app.xls_chave_igual_sql(v_rel, 't', 'r');
  v_itens jsonb;
  v_atual jsonb;
  i record;
  v_ins record;
begin
  -- the changes and removals of the key, and the insertions the undo took back (their rows are
  -- gone, their values stored in the change set)
  select coalesce(jsonb_agg(x), '[]') into v_itens
    from (select a.seq, a.processamento_id, a.operacao, a.linha_id, a.antes, a.depois
            from app.xls_alteracao a
           where jsonb_hash_extended(a.chave, 0) = jsonb_hash_extended(p_chave, 0) and a.tabela = p_tabela and a.chave = p_chave
          union all
          select a.seq, a.processamento_id, 'INSERIDA', a.linha_ids[e.n], null, e.v
            from app.xls_alteracao a
           cross join lateral jsonb_array_elements(a.depois) with ordinality e (v, n)
           where a.operacao = 'INSERIDA' and a.tabela = p_tabela and a.depois is not null
             and a.depois @> jsonb_build_array(p_chave) and e.v @> p_chave) x;

  -- the row stored now under this key (the natural-key index)
  if v_on is not null then
    execute format('select to_jsonb(t) from public.%I t, jsonb_populate_record(null::public.%I, $1) r where %s', p_tabela, p_tabela, v_on)
      into v_atual using p_chave;
  end if;

  -- each id: its first known version (the earliest antes, else the stored row) and where it was inserted
  for i in
    select x.linha_id,
           coalesce((select y ->> 'antes' from jsonb_array_elements(v_itens) y where (y ->> 'linha_id')::uuid = x.linha_id
                      order by (y ->> 'seq')::bigint limit 1)::jsonb, v_atual) as primeira,
           coalesce((select min((y ->> 'seq')::bigint) from jsonb_array_elements(v_itens) y where (y ->> 'linha_id')::uuid = x.linha_id),
                    9223372036854775807) as antes_de
      from (select distinct (y ->> 'linha_id')::uuid as linha_id from jsonb_array_elements(v_itens) y
            union select (v_atual ->> 'id')::uuid where v_atual is not null) x
     where not exists (select from jsonb_array_elements(v_itens) y
                        where (y ->> 'linha_id')::uuid = x.linha_id and y ->> 'operacao' = 'INSERIDA')
  loop
    select a.seq, a.processamento_id, u.n into v_ins
      from (select p.id from public.xls_processamento p
             where p.recebido_em between (i.primeira ->> 'atualizado_em')::timestamptz - interval '2 days' and (i.primeira ->> 'atualizado_em')::timestamptz
               and p.iniciado_em <= (i.primeira ->> 'atualizado_em')::timestamptz
               and coalesce(p.finalizado_em, 'infinity') >= (i.primeira ->> 'atualizado_em')::timestamptz) c
      join app.xls_alteracao a on a.processamento_id = c.id and a.operacao = 'INSERIDA' and a.tabela = p_tabela and a.seq < i.antes_de
      cross join lateral (select u.n from unnest(a.linha_ids) with ordinality u (id, n) where u.id = i.linha_id) u
     limit 1;
    if v_ins.seq is null then
      select a.seq, a.processamento_id, u.n into v_ins
        from app.xls_alteracao a
        cross join lateral (select u.n from unnest(a.linha_ids) with ordinality u (id, n) where u.id = i.linha_id) u
       where a.tabela = p_tabela and a.operacao = 'INSERIDA' and a.seq < i.antes_de
       order by a.seq desc
       limit 1;
    end if;
    if v_ins.seq is not null then
      v_itens := v_itens || jsonb_build_array(jsonb_build_object(
        'seq', v_ins.seq, 'processamento_id', v_ins.processamento_id, 'operacao', 'INSERIDA', 'linha_id', i.linha_id, 'antes', null,
        'depois', coalesce((select a.depois -> (v_ins.n::integer - 1) from app.xls_alteracao a
                             where a.processamento_id = v_ins.processamento_id and a.seq = v_ins.seq), i.primeira)));
    end if;
  end loop;

  return query
    select a.seq, a.processamento_id, p.arquivo, p.tipo, a.operacao, p.finalizado_em, p.desfeito_em, a.antes, a.depois
      from jsonb_to_recordset(v_itens) as a (seq bigint, processamento_id uuid, operacao text, linha_id uuid, antes jsonb, depois jsonb)
      join public.xls_processamento p on p.id = a.processamento_id
     order by a.seq desc;
end;
$function$
;

comment on function public.xls_linhagem(text,jsonb) is 'Row history for DBAs: which spreadsheet processings inserted (INSERIDA), changed (ALTERADA) or removed (REMOVIDA) the row of p_tabela whose natural key is p_chave (a JSON object of the key columns, e.g. ''{"codigo": "V001"}''), newest first, with the file, its type, when it finished, whether it was undone, and the row before / after. Example: select * from xls_linhagem(''bi_vendedor'', ''{"codigo": "V001"}''). Only what the change sets still hold (xls_alteracoes_retencao_dias).';
