CREATE OR REPLACE FUNCTION app.xls_aplicar(p_alvo regclass, p_origem regclass, p_escopo text, p_escopo_coluna text DEFAULT NULL,
  p_rejeitadas jsonb DEFAULT '[]'::jsonb, p_escopo_origem regclass DEFAULT NULL)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_chave text[];
  v_cols text[];
  v_cmp text[];
  v_expr text[];
  v_tam integer[];
  v_k text;
  v_on text;
  v_env integer;
  v_ef integer := 0;
  v_rm integer := 0;
  v_rejeitadas jsonb := public.xls_rejeitadas_normalizar(p_rejeitadas);
  v_avisos jsonb := '[]';
  v_aux jsonb;
  v_null text;
  v_escopo text;
  v_t text := replace(p_alvo::text, 'public.', '');
  i integer;
begin
  if p_escopo is null or p_escopo not in ('tabela', 'valores', 'meses') or (p_escopo <> 'tabela' and p_escopo_coluna is null) then
    raise exception 'escopo inválido: % %', coalesce(p_escopo, 'null'), coalesce(p_escopo_coluna, '') using errcode = 'XL400';
  end if;
  -- the natural key: the table's UNIQUE constraint
  select array_agg(a.attname::text order by k.ord) into v_chave
    from pg_catalog.pg_constraint c
    cross join unnest(c.conkey) with ordinality k (attnum, ord)
    join pg_catalog.pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
   where c.conrelid = p_alvo and c.contype = 'u';
  if v_chave is null then
    raise exception '% sem chave natural (UNIQUE)', p_alvo using errcode = 'XL500';
  end if;
  -- the columns written: those of the target the source also has; strings truncated to the column's length
  select array_agg(a.attname::text order by a.attnum),
         array_agg(case when a.atttypid = 'varchar'::regtype and a.atttypmod > 4 then a.atttypmod - 4 end order by a.attnum)
    into v_cols, v_tam
    from pg_catalog.pg_attribute a
   where a.attrelid = p_alvo and a.attnum > 0 and not a.attisdropped and a.attname not in ('id', 'atualizado_em')
     and exists (select from pg_catalog.pg_attribute o where o.attrelid = p_origem and o.attname = a.attname and o.attnum > 0 and not o.attisdropped);
  if not v_chave <@ v_cols then
    raise exception 'a origem % não tem toda a chave de % (%)', p_origem, p_alvo, array_to_string(v_chave, ', ') using errcode = 'XL500';
  end if;
  v_expr := array(select case when v_tam[n] is null then format('s.%I', v_cols[n]) else format('left(s.%I, %s)', v_cols[n], v_tam[n]) end
                    from generate_subscripts(v_cols, 1) n order by n);
  v_cmp := array(select c from unnest(v_cols) c where c <> all (v_chave));

  execute format('select count(*) from %s', p_origem) into v_env;

  -- rows without a readable key are rejected
  select string_agg(format('s.%I is null', c), ' or ') into v_null from unnest(v_chave) c;
  execute format($q$
    with d as (delete from %s s where %s returning s.linha, %s as campo)
    select coalesce(jsonb_agg(jsonb_build_object('aba', null, 'linha', d.linha, 'campo', d.campo, 'valor', '',
                    'mensagem', format('linha %%s: %%s '''' inválido', d.linha, d.campo)) order by d.linha), '[]') from d$q$,
    p_origem, v_null,
    (select 'case ' || string_agg(format('when s.%I is null then %L', c, c), ' ') || ' end' from unnest(v_chave) c))
    into v_aux;
  v_rejeitadas := public.xls_rejeitadas_normalizar(v_rejeitadas || v_aux);

  -- a key repeated in the file: its last row wins
  select string_agg(v_expr[n], ', ') into v_k from generate_subscripts(v_cols, 1) n where v_cols[n] = any (v_chave);
  execute format($q$
    with d as (
      delete from %1$s m
       using (select s.ctid, row_number() over (partition by %2$s order by s.linha desc) as rn from %1$s s) x
       where m.ctid = x.ctid and x.rn > 1
      returning m.linha)
    select case when count(*) = 0 then '[]'::jsonb else jsonb_build_array(jsonb_build_object(
             'categoria', 'duplicada', 'motivo', 'chave repetida no arquivo: vale a última linha com a mesma chave',
             'quantidade', count(*),
             'linhas', jsonb_agg(jsonb_build_object('aba', null, 'linha', linha, 'valor', null) order by linha))) end from d$q$,
    p_origem, v_k)
    into v_aux;
  v_avisos := v_avisos || v_aux;

  -- insert new rows, update changed rows only (diff-aware), in key order
  select string_agg(format('t.%I = %s', v_cols[n], v_expr[n]), ' and ') into v_on
    from generate_subscripts(v_cols, 1) n where v_cols[n] = any (v_chave);
  execute format($q$
    insert into %1$s as t (%2$s)
    select %3$s from %4$s s
     where not exists (select from %1$s t where %5$s %6$s)
     order by %7$s
    on conflict (%8$s) do %9$s$q$,
    p_alvo,
    (select string_agg(format('%I', c), ', ') from unnest(v_cols) c),
    array_to_string(v_expr, ', '),
    p_origem,
    v_on,
    case when cardinality(v_cmp) = 0 then '' else format('and (%s) is not distinct from (%s)',
      (select string_agg(format('t.%I', c), ', ') from unnest(v_cmp) c),
      (select string_agg(v_expr[n], ', ') from generate_subscripts(v_cols, 1) n where v_cols[n] = any (v_cmp))) end,
    v_k,
    (select string_agg(format('%I', c), ', ') from unnest(v_chave) c),
    case when cardinality(v_cmp) = 0 then 'nothing' else format('update set %s where (%s) is distinct from (%s)',
      (select string_agg(format('%I = excluded.%I', c, c), ', ') from unnest(v_cmp) c),
      (select string_agg(format('t.%I', c), ', ') from unnest(v_cmp) c),
      (select string_agg(format('excluded.%I', c), ', ') from unnest(v_cmp) c)) end);
  get diagnostics v_ef = row_count;

  -- delete what the scope lost
  if v_env = 0 then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'envio vazio: nada removido'));
  elsif public.xls_suspender_remocoes(v_rejeitadas, null) then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', format('há linhas rejeitadas: remoções de %s suspensas; corrija e reenvie', v_t)));
  else
    v_escopo := case p_escopo
      when 'tabela' then 'true'
      when 'valores' then format('t.%1$I in (select distinct e.%1$I from %2$s e)', p_escopo_coluna, coalesce(p_escopo_origem, p_origem))
      else format('date_trunc(''month'', t.%1$I) in (select distinct date_trunc(''month'', e.%1$I) from %2$s e)',
                  p_escopo_coluna, coalesce(p_escopo_origem, p_origem)) end;
    execute format($q$
      with alvo as (
        select t.id from %1$s t
         where %2$s and not exists (select from %3$s s where %4$s)
         order by %5$s
         for update of t)
      delete from %1$s t using alvo where t.id = alvo.id$q$,
      p_alvo, v_escopo, p_origem, v_on,
      (select string_agg(format('t.%I', c), ', ') from unnest(v_chave) c));
    get diagnostics v_rm = row_count;
  end if;

  return jsonb_build_object(
    'linhas_enviadas', v_env,
    'linhas_efetivas', v_ef,
    'linhas_removidas', v_rm,
    'avisos', v_avisos,
    'linhas_rejeitadas', v_rejeitadas,
    'tabelas', jsonb_build_object(v_t, jsonb_build_object('enviadas', v_env, 'efetivas', v_ef, 'removidas', v_rm)));
end;
$function$
;

comment on function app.xls_aplicar(regclass,regclass,text,text,jsonb,regclass) is 'Interim generic merge of one source table (a temp table whose columns are named as the target''s, plus linha) into one bi_* table: the key is the target''s UNIQUE constraint, the compared columns are the other columns both tables have, strings are truncated to the varchar length. Rejects rows without a key, keeps the last row of a repeated key (warning), inserts new rows and updates changed rows only in key order, then deletes the rows of the scope the file no longer has: p_escopo tabela (the whole table), valores (the values of p_escopo_coluna present), meses (the calendar months of the dates of p_escopo_coluna present); the scope values come from p_escopo_origem when given. An empty source deletes nothing (warning ''envio vazio: nada removido''); rejected rows suspend the deletes (warning). Returns {linhas_enviadas, linhas_efetivas, linhas_removidas, avisos, linhas_rejeitadas, tabelas}. Used by the merges of the eight types of issue 12 until the declarative merge replaces it.';
revoke execute on function app.xls_aplicar(regclass,regclass,text,text,jsonb,regclass) from public;
