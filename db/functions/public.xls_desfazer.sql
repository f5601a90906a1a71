CREATE OR REPLACE FUNCTION public.xls_desfazer(p_id uuid, p_por text)
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
-- Undo of one processing from its change set (app.xls_alteracao): per bi_* row it touched,
-- the earliest record says how the row was before it — absent (INSERIDA first: the row is
-- removed) or the stored row (antes: restored, or put back when it was removed). One
-- transaction, under the merge lock of every table touched; refused whole when a later
-- processing (not undone) touched any of the same keys.
declare
  v_p record;
  v_tabelas text[];
  v_conflitos jsonb;
  t record;
  v_chave text;
  v_cols text;
  v_n integer;
  v_rem integer;
  v_rest integer;
  v_rein integer;
  v_res jsonb := '{}';
begin
  if p_por is null or btrim(p_por) = '' then
    raise exception 'informe quem desfaz (p_por)' using errcode = 'XL400';
  end if;
  select p.* into v_p from public.xls_processamento p where p.id = p_id for update;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  if v_p.desfeito_em is not null then
    raise exception 'esta importação já foi desfeita em % por %', to_char(v_p.desfeito_em at time zone 'America/Sao_Paulo', 'DD/MM/YYYY HH24:MI'), v_p.desfeito_por
      using errcode = 'XL409', detail = 'ja_desfeito';
  end if;
  if v_p.alteracoes_expiradas_em is not null then
    raise exception 'o registro de alterações desta importação foi apagado em % (retenção de % dias): não é possível desfazê-la; reenvie o arquivo anterior',
      to_char(v_p.alteracoes_expiradas_em at time zone 'America/Sao_Paulo', 'DD/MM/YYYY'),
      coalesce((select c.valor from public.bi_configuracao c where c.chave = 'xls_alteracoes_retencao_dias'), '180')
      using errcode = 'XL409', detail = 'expirado';
  end if;
  if v_p.status in ('PENDENTE', 'PROCESSANDO') then
    raise exception 'a importação ainda está em %: espere terminar', v_p.status using errcode = 'XL409', detail = 'em_andamento';
  end if;
  select array_agg(distinct a.tabela order by a.tabela) into v_tabelas from app.xls_alteracao a where a.processamento_id = p_id;
  if v_tabelas is null then
    raise exception '%', case when v_p.status = 'SUCESSO' then 'esta importação não alterou nenhuma linha: nada a desfazer'
                              else format('esta importação terminou em %s sem gravar nada: nada a desfazer', v_p.status) end
      using errcode = 'XL409', detail = 'sem_alteracoes';
  end if;
  -- the same lock as the merges of these tables: no merge writes them meanwhile
  perform app.xls_travar(v_tabelas);

  select jsonb_agg(jsonb_build_object('id', c.id, 'arquivo', c.arquivo, 'tipo', c.tipo, 'finalizadoEm', c.finalizado_em, 'linhas', c.n)
                   order by c.primeira)
    into v_conflitos
    from (select p2.id, p2.arquivo, p2.tipo, p2.finalizado_em, count(distinct (b.tabela, b.linha)) as n, min(b.seq) as primeira
            from (-- each key this processing changed or removed, probed once in the key-hash index
                  select y.processamento_id, y.seq, a.tabela, a.chave::text as linha
                    from (select x.tabela, x.chave, min(x.seq) as seq from app.xls_alteracao x
                           where x.processamento_id = p_id and x.chave is not null group by x.tabela, x.chave) a
                   cross join lateral (select y.processamento_id, y.seq from app.xls_alteracao y
                                        where jsonb_hash_extended(y.chave, 0) = jsonb_hash_extended(a.chave, 0) and y.tabela = a.tabela and y.chave = a.chave
                                          and y.seq > a.seq and y.processamento_id <> p_id) y
                  union all
                  -- each row this processing inserted, probed once in the id index
                  select y.processamento_id, y.seq, a.tabela, u.id::text
                    from app.xls_alteracao a
                   cross join lateral unnest(a.linha_ids) u (id)
                   cross join lateral (select y.processamento_id, y.seq from app.xls_alteracao y
                                        where y.linha_id = u.id and y.tabela = a.tabela and y.seq > a.seq and y.processamento_id <> p_id) y
                   where a.processamento_id = p_id and a.operacao = 'INSERIDA') b
            join public.xls_processamento p2 on p2.id = b.processamento_id and p2.desfeito_em is null
           group by p2.id, p2.arquivo, p2.tipo, p2.finalizado_em) c;
  if v_conflitos is null then
    -- a row this processing removed that a later one inserted again (under another id): its
    -- insertion holds ids only, so the stored row of each removed key is looked up instead
    for t in select distinct a.tabela from app.xls_alteracao a where a.processamento_id = p_id and a.operacao = 'REMOVIDA' loop
      execute format($q$
        select jsonb_agg(jsonb_build_object('id', p2.id, 'arquivo', p2.arquivo, 'tipo', p2.tipo, 'finalizadoEm', p2.finalizado_em, 'linhas', c.n) order by c.primeira)
          from (select i.processamento_id, count(*) as n, min(i.seq) as primeira
                  from app.xls_alteracao a
                 cross join lateral jsonb_populate_record(null::public.%1$I, a.chave) r
                  join public.%1$I t on %2$s and t.id <> a.linha_id
                 cross join lateral (select i.processamento_id, i.seq from app.xls_alteracao i
                                      where i.tabela = a.tabela and i.operacao = 'INSERIDA' and i.seq > a.seq and i.processamento_id <> $1
                                        and i.linha_ids @> array[t.id]
                                      order by i.seq limit 1) i
                 where a.processamento_id = $1 and a.tabela = %3$L and a.operacao = 'REMOVIDA'
                 group by i.processamento_id) c
          join public.xls_processamento p2 on p2.id = c.processamento_id and p2.desfeito_em is null$q$,
        t.tabela, app.xls_chave_igual_sql(format('public.%I', t.tabela)::regclass, 't', 'r'), t.tabela)
        into v_conflitos using p_id;
      exit when v_conflitos is not null;
    end loop;
  end if;
  if v_conflitos is not null then
    raise exception 'importações posteriores alteraram as mesmas linhas: desfaça-as primeiro (%)',
      (select string_agg(format('%s de %s', x ->> 'arquivo', to_char((x ->> 'finalizadoEm')::timestamptz at time zone 'America/Sao_Paulo', 'DD/MM/YYYY HH24:MI')), ', ')
         from jsonb_array_elements(v_conflitos) x)
      using errcode = 'XL409', detail = jsonb_build_object('motivo', 'conflito', 'conflitos', v_conflitos)::text,
            hint = 'desfaça primeiro as importações posteriores listadas';
  end if;

  -- the undo itself is not a change set, and keeps atualizado_em as it was
  perform set_config('bi.xls_processamento', '', true);
  perform set_config('bi.xls_desfazendo', 'on', true);
  create temp table xls_desfazer_linha on commit drop as
  select distinct on (x.tabela, x.linha_id) x.tabela, x.linha_id, x.operacao, x.antes
    from (select a.tabela, a.linha_id, a.operacao, a.antes, a.seq from app.xls_alteracao a where a.processamento_id = p_id and a.linha_id is not null
          union all
          select a.tabela, u.id, a.operacao, null, a.seq from app.xls_alteracao a cross join lateral unnest(a.linha_ids) u (id)
           where a.processamento_id = p_id and a.operacao = 'INSERIDA') x
   order by x.tabela, x.linha_id, x.seq;
  create index on pg_temp.xls_desfazer_linha (tabela, linha_id);
  analyze pg_temp.xls_desfazer_linha;

  -- removals child tables first, then restorations and puts back parents first (foreign keys)
  for t in select x.tabela, x.nivel from app.xls_tabelas_nivel(v_tabelas) x order by x.nivel desc, x.tabela loop
    -- the change set keeps only the ids of inserted rows: their values are stored now, before the
    -- rows go (the next change's antes, else the row as stored, as app.xls_alteracao_depois reads)
    execute format($q$
      update app.xls_alteracao a
         set depois = (select jsonb_agg(coalesce((select b.antes from app.xls_alteracao b
                                                   where b.linha_id = u.id and b.tabela = a.tabela and b.seq > a.seq
                                                   order by b.seq limit 1), to_jsonb(t)) order by u.n)
                         from unnest(a.linha_ids) with ordinality u (id, n)
                         left join public.%I t on t.id = u.id)
       where a.processamento_id = $1 and a.tabela = %L and a.operacao = 'INSERIDA' and a.depois is null$q$, t.tabela, t.tabela)
      using p_id;
    execute format('delete from public.%I t using pg_temp.xls_desfazer_linha d where d.tabela = %L and d.operacao = ''INSERIDA'' and t.id = d.linha_id', t.tabela, t.tabela);
    get diagnostics v_rem = row_count;
    v_res := v_res || jsonb_build_object(t.tabela, jsonb_build_object('removidas', v_rem));
  end loop;
  for t in select x.tabela, x.nivel from app.xls_tabelas_nivel(v_tabelas) x order by x.nivel, x.tabela loop
    select string_agg(quote_ident(a.attname), ', ' order by a.attnum) into v_cols
      from pg_catalog.pg_attribute a
     where a.attrelid = format('public.%I', t.tabela)::regclass and a.attnum > 0 and not a.attisdropped and a.attgenerated = '' and a.attname <> 'id';
    execute format($q$
      update public.%1$I t set (%2$s) = (select %2$s from jsonb_populate_record(null::public.%1$I, d.antes))
        from pg_temp.xls_desfazer_linha d where d.tabela = %3$L and d.operacao <> 'INSERIDA' and t.id = d.linha_id$q$,
      t.tabela, v_cols, t.tabela);
    get diagnostics v_rest = row_count;
    execute format($q$
      insert into public.%1$I (id, %2$s)
      select r.id, %3$s
        from pg_temp.xls_desfazer_linha d cross join lateral jsonb_populate_record(null::public.%1$I, d.antes) r
       where d.tabela = %4$L and d.operacao <> 'INSERIDA' and not exists (select from public.%1$I t where t.id = d.linha_id)
       order by r.id$q$,
      t.tabela, v_cols, (select string_agg('r.' || c, ', ') from unnest(string_to_array(v_cols, ', ')) c), t.tabela);
    get diagnostics v_rein = row_count;
    v_res := jsonb_set(v_res, array[t.tabela], coalesce(v_res -> t.tabela, '{}') || jsonb_build_object('restauradas', v_rest, 'reinseridas', v_rein));
  end loop;
  perform set_config('bi.xls_desfazendo', '', true);

  update public.xls_processamento p set desfeito_em = now(), desfeito_por = btrim(p_por) where p.id = p_id;
  return jsonb_build_object('id', p_id, 'desfeitoEm', now(), 'desfeitoPor', btrim(p_por), 'tabelas', v_res);
end;
$function$
;

comment on function public.xls_desfazer(uuid,text) is 'Undoes one spreadsheet processing from its change set (app.xls_alteracao), in the caller''s transaction and under the merge lock of the tables it touched: rows it inserted are removed, rows it rewrote get their stored values back (atualizado_em included), rows it removed are put back with their ids — every bi_* row exactly as before the processing, derived state included (FLUXO''s atual). Marks desfeito_em / desfeito_por (p_por: e-mail, "api" or the DBA''s text); the status stays. Errors (XL409, detail says which): ja_desfeito, expirado (purged by the retention), em_andamento, sem_alteracoes, conflito (a later processing not undone touched the same keys: the message names them, the detail is the JSON object {motivo: conflito, conflitos: [their list]} — undo those first; docs/error-codes.md). XL404 unknown id; XL400 p_por empty. Returns {id, desfeitoEm, desfeitoPor, tabelas: {tabela: {removidas, restauradas, reinseridas}}}.';
