CREATE OR REPLACE FUNCTION app.xls_merge_preparar(p_tipo text, p_meta jsonb)
 RETURNS void
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
-- First chunk of a merge in this transaction: reads the type's description (app.xls_alvo,
-- app.xls_staging_coluna) and the targets' catalog (UNIQUE constraint = natural key,
-- varchar(n) = length, NOT NULL without default = required, foreign keys), generates the
-- statements of every step once with format('%I') and keeps them in pg_temp.xls_merge_estado,
-- one row per target, with the counters; creates the work tables; takes the merge lock.
-- A target with a fonte (a reference table fed by another target's accepted rows) is prepared
-- after the others: its rows come from pg_temp.xls_chunk_<fonte> (written chunk by chunk, when
-- the fonte's table has a foreign key to it) or pg_temp.xls_aceitas_<fonte> (at the end).
declare
  a record;
  v_tabela regclass;
  v_stg text;
  v_chunk text;
  v_aceitas text;
  v_dif text;
  v_origem text;
  v_quando text;
  v_colunas text[];
  v_written text[];
  v_tipos text[];
  v_lens integer[];
  v_notnull boolean[];
  v_chave text[];
  v_naochave text[];
  v_comparar text[];
  v_manter text[];
  v_extras text[];
  v_obrig text[];
  v_reter text[];
  v_guardar text[];
  v_longos text;
  v_select text;
  v_lista text;
  v_cand text;
  v_cand_fim text;
  v_reduzir text;
  v_expr text;
  v_i integer;
  v_fk record;
  v_sql_fk text[];
  v_on_key text;
  v_on_key_t text;
  v_key_list text;
  v_escopo_t text;
  v_escopo_s text;
  v_inicio date;
  v_fim date;
  v_vazio boolean;
  v_aparado boolean := coalesce(jsonb_typeof(p_meta -> 'staging_aparado') = 'boolean' and (p_meta ->> 'staging_aparado')::boolean, false);
begin
  if not exists (select from app.xls_alvo x where x.tipo = p_tipo) then
    raise exception 'o tipo % ainda não tem importação', p_tipo using errcode = 'XL422';
  end if;
  perform app.xls_travar((select array_agg(distinct x.tabela order by x.tabela) from app.xls_alvo x where x.tipo = p_tipo));
  -- what belongs to one type only: checks of p_meta (its own messages first), its own work tables
  perform app.xls_merge_hook(p_tipo, 'inicio', null, p_meta);

  create temp table xls_merge_estado (
    tipo text not null, staging text not null, tabela text not null, ordem integer not null, aba text,
    escopo text not null, escopo_coluna text, chave text[] not null, meta jsonb not null,
    fonte text, quando text not null,
    inicio date, fim date, vazio boolean,
    enviadas integer not null default 0, efetivas integer not null default 0, chunks integer not null default 0,
    refeito boolean not null default false,
    sql_select text not null, sql_rejeitar text, sql_dedup text, sql_fk text[] not null,
    sql_dif text not null, sql_inserir text not null, sql_atualizar text, sql_aceitar text, sql_hash text,
    sql_rep text, sql_cand text, sql_cand_fim text, sql_escopo_t text, sql_escopo_s text, sql_on_key_t text not null,
    sql_key_list text not null
  ) on commit drop;
  -- rows rejected by SQL (chave_legivel: the natural key could be read) and rows that gave way
  -- to a later one with the same key
  create temp table xls_ocorrencia (tipo text, aba text, linha integer, campo text, staging text, chave_legivel boolean,
                                    valor text, mensagem text) on commit drop;

  for a in select x.* from app.xls_alvo x where x.tipo = p_tipo order by x.fonte is not null, x.ordem loop
    v_tabela := to_regclass('public.' || quote_ident(a.tabela));
    if v_tabela is null then
      raise exception 'descrição de %: tabela % não existe', p_tipo, a.tabela using errcode = 'XL500';
    end if;
    v_stg := format('pg_temp.%I', 'xls_stg_' || a.staging);
    v_chunk := format('pg_temp.%I', 'xls_chunk_' || a.staging);
    v_aceitas := format('pg_temp.%I', 'xls_aceitas_' || a.staging);
    v_dif := format('pg_temp.%I', 'xls_dif_' || a.staging);

    -- the columns the target is fed from: its staging's (normalised: text trimmed, empty -> NULL),
    -- or, for a reference table, those of its fonte's chunk or accepted rows
    v_quando := 'chunk';
    v_cand := null;
    v_cand_fim := null;
    if a.fonte is null then
      select array_agg(c.coluna order by c.ordem) into v_colunas
        from app.xls_staging_coluna c where c.tipo = p_tipo and c.staging = a.staging and c.ordem > 1;
      if v_colunas is null then
        raise exception 'descrição de %: staging % sem colunas em app.xls_staging_coluna', p_tipo, a.staging using errcode = 'XL500';
      end if;
      -- text trimmed and '' as NULL, unless the caller says its staging comes so already
      -- (p_meta.staging_aparado: the service's readers trim every text cell and give NULL for
      -- an empty one); those two calls are over half of the normalisation's cost
      v_origem := format('(select linha, %s, %L::jsonb as p_meta from %s)',
        (select string_agg(case when c.tipo_sql = 'text' and not v_aparado then format('nullif(btrim(%1$I), %2$L) as %1$I', c.coluna, '') else quote_ident(c.coluna) end,
                           ', ' order by c.ordem)
           from app.xls_staging_coluna c where c.tipo = p_tipo and c.staging = a.staging and c.ordem > 1),
        coalesce(p_meta, '{}') - 'linhas_rejeitadas', v_stg);
    else
      select e.tabela into v_origem from pg_temp.xls_merge_estado e where e.staging = a.fonte and e.fonte is null;
      if v_origem is null then
        raise exception 'descrição de %: fonte % de % não é um alvo do tipo', p_tipo, a.fonte, a.tabela using errcode = 'XL500';
      end if;
      -- written chunk by chunk when the fonte's table refers to it (its foreign-key check needs it), else at the end
      if exists (select from pg_catalog.pg_constraint con where con.conrelid = to_regclass('public.' || quote_ident(v_origem))
                    and con.contype = 'f' and con.confrelid = v_tabela) then
        v_origem := format('pg_temp.%I', 'xls_chunk_' || a.fonte);
      else
        v_quando := 'fim';
        v_origem := format('pg_temp.%I', 'xls_aceitas_' || a.fonte);
      end if;
      select array_agg(t.attname::text order by t.attnum) into v_colunas
        from pg_catalog.pg_attribute t where t.attrelid = v_origem::regclass and t.attnum > 0 and not t.attisdropped and t.attname <> 'linha';
    end if;

    -- written columns: the target's columns fed by a column of the same name or an expression
    select array_agg(t.attname::text order by t.attnum), array_agg(format_type(t.atttypid, t.atttypmod) order by t.attnum),
           array_agg(case when t.atttypid in ('varchar'::regtype, 'bpchar'::regtype) and t.atttypmod > 4 then t.atttypmod - 4 end order by t.attnum),
           array_agg(t.attnotnull and not t.atthasdef order by t.attnum)
      into v_written, v_tipos, v_lens, v_notnull
      from pg_catalog.pg_attribute t
     where t.attrelid = v_tabela and t.attnum > 0 and not t.attisdropped and t.attgenerated = ''
       and t.attname not in ('id', 'atualizado_em')
       and (a.expressoes ? t.attname::text or t.attname::text = any(v_colunas));

    -- natural key: the target's UNIQUE constraint
    v_chave := app.xls_chave_natural(v_tabela);
    if v_chave is null then
      raise exception 'descrição de %: % precisa de exatamente uma restrição UNIQUE (a chave natural)', p_tipo, a.tabela using errcode = 'XL500';
    end if;
    if not v_chave <@ coalesce(v_written, '{}') then
      raise exception 'descrição de %: a chave natural de % (%) não vem toda do staging %', p_tipo, a.tabela, array_to_string(v_chave, ', '), a.staging
        using errcode = 'XL500';
    end if;
    if a.escopo_coluna is not null and not a.escopo_coluna = any(v_written) then
      raise exception 'descrição de %: coluna de escopo % não é gravada em %', p_tipo, a.escopo_coluna, a.tabela using errcode = 'XL500';
    end if;
    select coalesce(array_agg(w order by o), '{}') into v_naochave from unnest(v_written) with ordinality x (w, o) where not w = any(v_chave);
    v_comparar := coalesce(a.comparar, v_naochave);
    if not v_comparar <@ v_naochave then
      raise exception 'descrição de %: comparar (%) deve listar colunas gravadas fora da chave de %', p_tipo, array_to_string(v_comparar, ', '), a.tabela
        using errcode = 'XL500';
    end if;
    v_manter := a.manter;
    if not v_manter <@ v_naochave then
      raise exception 'descrição de %: manter (%) deve listar colunas gravadas fora da chave de %', p_tipo, array_to_string(v_manter, ', '), a.tabela
        using errcode = 'XL500';
    end if;
    select coalesce(array_agg(w order by o), '{}') into v_obrig from unnest(v_written, v_notnull) with ordinality x (w, nn, o) where nn;
    -- extra columns (not for a reference table): staging columns not written, and expressions naming no target column
    v_extras := '{}';
    if a.fonte is null then
      select coalesce(array_agg(e), '{}') into v_extras
        from (select c as e from unnest(v_colunas) c where not c = any(v_written) and not a.expressoes ? c
              union
              select k from jsonb_object_keys(a.expressoes) k where not k = any(v_written)) x;
    end if;
    v_reter := a.reter;
    if not v_reter <@ (v_extras || v_written) then
      raise exception 'descrição de %: reter (%) nomeia colunas que o chunk não tem', p_tipo, array_to_string(v_reter, ', ') using errcode = 'XL500';
    end if;
    -- what the end needs of every accepted row: key, scope column, retained columns and the
    -- columns a reference table fed at the end reads (its plain-column expressions, its column names)
    select array_agg(distinct w order by w) into v_guardar
      from (select unnest(v_chave || coalesce(a.escopo_coluna, v_chave[1]) || v_reter) as w
            union
            select c from app.xls_alvo f
             cross join lateral (select x.value as c from jsonb_each_text(f.expressoes) x
                                 union select t.attname::text from pg_catalog.pg_attribute t
                                  where t.attrelid = to_regclass('public.' || quote_ident(f.tabela)) and t.attnum > 0) r
             where f.tipo = p_tipo and f.fonte = a.staging and (c = any(v_written) or c = any(v_extras))) g;

    -- the length policy: a key longer than its varchar(n) is a row error (cut, two codes would
    -- become one); so is a column feeding the key of a reference table of this target
    v_longos := null;
    if a.fonte is null then
      select string_agg(format('when length((%s)::text) > %s then array[%L, (%s)::text]', x.expr, x.n, x.coluna, x.expr), ' ' order by x.o)
        into v_longos
        from (select w as coluna, coalesce(a.expressoes ->> w, quote_ident(w)) as expr, n, o
                from unnest(v_written, v_lens) with ordinality u (w, n, o) where w = any(v_chave)
              union all
              select c.c, coalesce(a.expressoes ->> c.c, quote_ident(c.c)), app.xls_tamanho(f.tabela, u.k), 1000 * f.ordem + u.o
                from app.xls_alvo f
               cross join lateral unnest(app.xls_chave_natural(to_regclass('public.' || quote_ident(f.tabela)))) with ordinality u (k, o)
               cross join lateral (select coalesce(f.expressoes ->> u.k, u.k) as c) c
               where f.tipo = p_tipo and f.fonte = a.staging and (c.c = any(v_written) or c.c = any(v_extras))) x
       where x.n is not null;
    end if;

    -- the chunk's select list: target columns cut to their length and cast to their type, extras as they are
    v_select := 's.linha';
    -- (an explicit cast to varchar(n) cuts a longer value, as SQL says: one call, not left() and a cast)
    for v_i in 1 .. cardinality(v_written) loop
      v_expr := coalesce(a.expressoes ->> v_written[v_i], quote_ident(v_written[v_i]));
      v_select := v_select || ', ' || format('(%s)::%s as %I', v_expr, v_tipos[v_i], v_written[v_i]);
    end loop;
    v_select := v_select || coalesce(', ' || app.xls_sql_lista('%s as %I', ', ', (select array_agg(coalesce(a.expressoes ->> e, quote_ident(e))) from unnest(v_extras) e), v_extras), '');
    if a.fonte is null then
      v_select := v_select || format(', case %s end as xls_longo', coalesce(v_longos, 'when false then null::text[]'));
      v_select := format('select %s from %s s', v_select, v_origem);
    else
      -- a reference table: one row per key (a row without key names no reference); the key's last
      -- row gives the columns outside manter, and each manter column takes the last row of the file
      -- that has a value (a value given on an earlier row of the key is not lost; none at all keeps
      -- the stored one). The one rule of every reference table. %1$s: the rows to reduce.
      v_lista := v_select;
      v_reduzir := format('select max(z.linha) as linha, %s from (%%1$s) z where %s group by %s',
        app.xls_sql_lista('%s as %I', ', ', (select array_agg(case when w = any(v_chave) then format('z.%I', w)
                                                                    when w = any(v_manter) then format('(array_agg(z.%1$I order by z.linha desc) filter (where z.%1$I is not null))[1]', w)
                                                                    else format('(array_agg(z.%I order by z.linha desc))[1]', w) end order by o)
                                               from unnest(v_written) with ordinality x (w, o)), v_written),
        app.xls_sql_lista('z.%I is not null', ' and ', v_chave), app.xls_sql_lista('z.%I', ', ', v_chave));
      -- the rows to reduce are first grouped by their values (a hash aggregate keeping each group's
      -- last line): a few rows per key are left to sort instead of every row (same result: the
      -- reduction reads only the last line of each key and of each value)
      v_reduzir := format(v_reduzir, format('select max(y.linha) as linha, %s from (%%1$s) y group by %s',
                                            app.xls_sql_lista('y.%I', ', ', v_written), app.xls_sql_lista('y.%I', ', ', v_written)));
      v_select := format(v_reduzir, format('select %s from %s s', v_lista, v_origem));
      -- written at the end: each chunk reduces its own accepted rows to candidates (one per key, in
      -- the time the reader takes for the next chunk), and the end reduces the candidates; both
      -- reductions keep the last row, so that equals reducing every accepted row, unless a key of
      -- the fonte repeated across chunks (a row that gave way gives nothing): then the end reduces
      -- the accepted rows that survived (sql_select), as without candidates
      if v_quando = 'fim' then
        v_cand := format('insert into pg_temp.%I %s', 'xls_cand_' || a.staging,
                         format(v_reduzir, format('select %s from pg_temp.%I s', v_lista, 'xls_chunk_' || a.fonte)));
        v_cand_fim := format(v_reduzir, format('select s.* from pg_temp.%I s', 'xls_cand_' || a.staging));
      end if;
    end if;

    execute format('create temp table %I on commit drop as %s limit 0', 'xls_chunk_' || a.staging, v_select);
    if v_cand is not null then
      execute format('create temp table %I (like pg_temp.%I) on commit drop', 'xls_cand_' || a.staging, 'xls_chunk_' || a.staging);
    end if;
    execute format('create temp table %I on commit drop as select linha, %s, true as novo from %s limit 0', 'xls_dif_' || a.staging,
                   app.xls_sql_lista('%I', ', ', v_written), v_chunk);
    if a.fonte is null then
      execute format('create temp table %I on commit drop as select linha, %s, true as gravada from %s limit 0', 'xls_aceitas_' || a.staging,
                     app.xls_sql_lista('%I', ', ', v_guardar), v_chunk);
      execute format('create temp table %I (h bigint) on commit drop', 'xls_hash_' || a.staging);
      execute format('create temp table %I on commit drop as select %s from %s limit 0', 'xls_protegidas_' || a.staging,
                     app.xls_sql_lista('%I', ', ', v_chave), v_chunk);
    end if;

    v_on_key := app.xls_sql_lista('%%1$s.%1$I = %%2$s.%1$I', ' and ', v_chave);
    v_on_key_t := format(v_on_key, 't', 's');
    v_key_list := app.xls_sql_lista('%I', ', ', v_chave);

    -- foreign keys of the target: a referenced code missing is a transient failure (XL424)
    v_sql_fk := '{}';
    for v_fk in
      select con.confrelid::regclass as ref,
             array_agg(ca.attname::text order by u.ord) as cols, array_agg(ra.attname::text order by u.ord) as refcols
        from pg_catalog.pg_constraint con
       cross join lateral unnest(con.conkey, con.confkey) with ordinality u (ck, rk, ord)
        join pg_catalog.pg_attribute ca on ca.attrelid = con.conrelid and ca.attnum = u.ck
        join pg_catalog.pg_attribute ra on ra.attrelid = con.confrelid and ra.attnum = u.rk
       where con.conrelid = v_tabela and con.contype = 'f'
       group by con.oid, con.confrelid
    loop
      if not v_fk.cols <@ v_written then continue; end if;
      v_sql_fk := v_sql_fk || format($q$
        select count(*)::integer as n,
               string_agg(format('%%s (%%s %%s)', f.v, case when f.n = 1 then 'linha' else 'linhas' end, f.linhas), ', ' order by f.v)
                 filter (where f.ordem <= 20) as faltam,
               %1$L as rotulo
          from (select concat_ws('/', %2$s) as v, count(*) as n,
                       array_to_string((array_agg(c.linha order by c.linha))[1:10], ', ') || case when count(*) > 10 then ', …' else '' end as linhas,
                       row_number() over (order by concat_ws('/', %2$s)) as ordem
                  from %3$s c
                 where %4$s and not exists (select from %5$s r where %6$s)
                 group by %2$s) f$q$,
        format('%s não cadastrado em %s', array_to_string(v_fk.cols, '/'), v_fk.ref),
        app.xls_sql_lista('c.%I', ', ', v_fk.cols), v_chunk, app.xls_sql_lista('c.%I is not null', ' and ', v_fk.cols),
        v_fk.ref, app.xls_sql_lista('r.%2$I = c.%1$I', ' and ', v_fk.cols, v_fk.refcols));
    end loop;

    -- scope
    v_vazio := null;
    v_inicio := null;
    v_fim := null;
    v_escopo_t := 'true';
    v_escopo_s := 'true';
    if a.escopo = 'periodo' then
      begin
        v_inicio := (p_meta ->> 'periodo_inicio')::date;
        v_fim := (p_meta ->> 'periodo_fim')::date;
      exception when data_exception then
        v_inicio := null;
      end;
      if v_inicio is null or v_fim is null or v_fim < v_inicio then
        raise exception 'período ausente ou inválido (periodo_inicio, periodo_fim): % a %',
          coalesce(p_meta ->> 'periodo_inicio', '?'), coalesce(p_meta ->> 'periodo_fim', '?') using errcode = 'XL422';
      end if;
      v_escopo_t := format('t.%I between %L::date and %L::date', a.escopo_coluna, v_inicio, v_fim);
      v_escopo_s := format('s.%I between %L::date and %L::date', a.escopo_coluna, v_inicio, v_fim);
      execute format('select not exists (select from %s t where %s)', v_tabela, v_escopo_t) into v_vazio;
    elsif a.escopo = 'valores' then
      v_escopo_t := format('t.%1$I in (select distinct s.%1$I from %2$s s)', a.escopo_coluna, v_aceitas);
    elsif a.escopo = 'meses' then
      v_escopo_t := format('exists (select from (select distinct date_trunc(''month'', s.%1$I)::date as m from %2$s s) m where t.%1$I >= m.m and t.%1$I < (m.m + interval ''1 month'')::date)',
                           a.escopo_coluna, v_aceitas);
    elsif a.escopo = 'tudo' then
      execute format('select not exists (select from %s t)', v_tabela) into v_vazio;
    else -- nenhum: the file never deletes from this table
      v_escopo_t := null;
      v_escopo_s := null;
    end if;

    insert into pg_temp.xls_merge_estado (tipo, staging, tabela, ordem, aba, escopo, escopo_coluna, chave, meta, fonte, quando, inicio, fim, vazio,
      sql_select, sql_rejeitar, sql_dedup, sql_fk, sql_dif, sql_inserir, sql_atualizar, sql_aceitar, sql_hash, sql_rep,
      sql_cand, sql_cand_fim, sql_escopo_t, sql_escopo_s, sql_on_key_t, sql_key_list)
    values (p_tipo, a.staging, a.tabela, a.ordem, a.aba, a.escopo, a.escopo_coluna, v_chave, coalesce(p_meta, '{}') - 'linhas_rejeitadas',
      a.fonte, v_quando, v_inicio, v_fim, v_vazio,
      v_select,
      -- rows a NOT NULL column (key or not) of which is empty, or a key longer than its column: set
      -- aside; their key, when readable, stays protected
      case when a.fonte is null and (cardinality(v_obrig) > 0 or v_longos is not null) then format($q$
        with r as (
          delete from %1$s c where %2$s
          returning c.linha, coalesce(c.xls_longo[1], case %3$s end) as campo, c.xls_longo[2] as valor,
                    (%4$s and (c.xls_longo is null or not c.xls_longo[1] = any(%8$L::text[]))) as legivel, %5$s)
        , p as (insert into %6$s select %7$s from r where r.legivel)
        insert into pg_temp.xls_ocorrencia (tipo, aba, linha, campo, staging, chave_legivel, valor, mensagem)
        select 'rejeitada', $1, r.linha, r.campo, $2, r.legivel, coalesce(r.valor, ''),
               format(case when r.valor is null then 'linha %%s: %%s '''' inválido' else 'linha %%s: %%s ''%%s'' longo demais' end, r.linha, r.campo, r.valor)
          from r$q$,
        v_chunk,
        concat_ws(' or ', app.xls_sql_lista('c.%I is null', ' or ', v_obrig), case when v_longos is not null then 'c.xls_longo is not null' end),
        coalesce(app.xls_sql_lista('when c.%1$I is null then %1$L', ' ', v_obrig), 'when false then null'),
        app.xls_sql_lista('c.%I is not null', ' and ', v_chave),
        app.xls_sql_lista('c.%I', ', ', v_chave),
        format('pg_temp.%I', 'xls_protegidas_' || a.staging),
        app.xls_sql_lista('r.%I', ', ', v_chave),
        v_chave) end,
      -- a key repeated in the chunk: its last row wins (a hash aggregate finds the repeated keys; only their rows are sorted)
      case when a.fonte is null then format($q$
        with dup as (select %1$s from %2$s group by %1$s having count(*) > 1),
        d as (
          delete from %2$s c
           using (select s.ctid, row_number() over (partition by %3$s order by s.linha desc, s.ctid desc) as rn
                    from %2$s s join dup t on %4$s) x
           where c.ctid = x.ctid and x.rn > 1
          returning c.linha)
        insert into pg_temp.xls_ocorrencia select 'duplicada', $1, d.linha, null, $2, true from d$q$,
        v_key_list, v_chunk, app.xls_sql_lista('s.%I', ', ', v_chave), v_on_key_t) end,
      v_sql_fk,
      -- one probe of the natural-key index per row keeps the new (novo) and changed rows; a kept
      -- column compares as the stored value when the sheet's is empty
      format($q$
        insert into %1$s
        select s.linha, %2$s, t.id is null
          from %3$s s
          left join lateral (select t.id%4$s from %5$s t where %6$s limit 1) t on true
         where t.id is null%7$s$q$,
        v_dif, app.xls_sql_lista('s.%I', ', ', v_written), v_chunk,
        coalesce(app.xls_sql_lista(', t.%I', '', v_comparar), ''), v_tabela, v_on_key_t,
        case when cardinality(v_comparar) > 0 then format(' or (%s, null) is distinct from (%s, null)',
          app.xls_sql_lista('t.%I', ', ', v_comparar),
          app.xls_sql_lista('%s', ', ', (select array_agg(case when w = any(v_manter) then format('coalesce(s.%1$I, t.%1$I)', w) else format('s.%I', w) end order by o)
                                           from unnest(v_comparar) with ordinality x (w, o))))
        else '' end),
      -- new keys: plain INSERT with time-ordered ids. A target of its own type is written in the
      -- file's order (the merge lock excludes a concurrent writer; sorting 25,000 rows on the key
      -- cost more than it saved the index, measured); a reference table, which other types write
      -- too, in key order (two merges never take the same keys in opposite orders)
      format($q$
        insert into %1$s (id, %2$s)
        select ($1 || lpad(to_hex(nextval('public.xls_id_seq')), 15, '0'))::uuid, o.*
          from (select %2$s from %3$s s where s.novo%4$s) o$q$,
        v_tabela, app.xls_sql_lista('%I', ', ', v_written), v_dif, case when a.fonte is null then '' else ' order by ' || v_key_list end),
      -- changed rows: the diff-aware upsert in key order (a kept column keeps the stored value when the sheet's is empty)
      case when cardinality(v_naochave) > 0 then format($q$
        insert into %1$s as t (%2$s)
        select %2$s from %3$s s where not s.novo order by %4$s
        on conflict (%4$s) do update set %5$s
         where (%6$s, null) is distinct from (%7$s, null)$q$,
        v_tabela, app.xls_sql_lista('%I', ', ', v_written), v_dif, v_key_list,
        app.xls_sql_lista('%1$I = %2$s', ', ', v_naochave,
          (select array_agg(case when w = any(v_manter) then format('coalesce(excluded.%1$I, t.%1$I)', w) else format('excluded.%I', w) end order by o)
             from unnest(v_naochave) with ordinality x (w, o))),
        app.xls_sql_lista('t.%I', ', ', coalesce(nullif(v_comparar, '{}'), v_naochave)),
        app.xls_sql_lista('%s', ', ', (select array_agg(case when w = any(v_manter) then format('coalesce(excluded.%1$I, t.%1$I)', w) else format('excluded.%I', w) end order by o)
                                         from unnest(coalesce(nullif(v_comparar, '{}'), v_naochave)) with ordinality x (w, o)))) end,
      -- what the end needs of every accepted row: key, scope column, retained columns, written or
      -- not (the diff carries the chunk's line, unique in the chunk: an integer join, not one on the key)
      case when a.fonte is null then format($q$
        insert into %1$s (linha, %2$s, gravada)
        select c.linha, %3$s, d.linha is not null from %4$s c left join %5$s d on d.linha = c.linha$q$,
        v_aceitas, app.xls_sql_lista('%I', ', ', v_guardar), app.xls_sql_lista('c.%I', ', ', v_guardar),
        v_chunk, v_dif) end,
      -- the hash of each accepted key: a key repeated across chunks is looked for only when a hash repeats
      case when a.fonte is null then format($q$insert into %1$s select hashtextextended(concat_ws(chr(31), %2$s), 0) from %3$s c$q$,
        format('pg_temp.%I', 'xls_hash_' || a.staging), app.xls_sql_lista('c.%I::text', ', ', v_chave), v_chunk) end,
      -- keys repeated across chunks: the last row stays (the chunks wrote it last)
      case when a.fonte is null then format($q$
        create temp table %1$I on commit drop as
        select %2$s, max(linha) as ultima, count(*) filter (where gravada) as escritas from %3$s group by %2$s having count(*) > 1$q$,
        'xls_rep_' || a.staging, v_key_list, v_aceitas) end,
      v_cand, v_cand_fim, v_escopo_t, v_escopo_s, v_on_key_t, v_key_list);
  end loop;
end;
$function$
;

comment on function app.xls_merge_preparar(text,jsonb) is 'Internal, first chunk of a merge (called by app.xls_merge_chunk): takes the merge lock of the type''s target tables, reads the description (app.xls_alvo, app.xls_staging_coluna) and the targets'' catalog (UNIQUE constraint = natural key, varchar(n) = length, NOT NULL without default = required, foreign keys = XL424 checks), generates every statement once with format(%I) (lists by app.xls_sql_lista) into pg_temp.xls_merge_estado and creates the work tables pg_temp.xls_chunk_<staging>, xls_dif_, xls_aceitas_, xls_hash_, xls_protegidas_ and xls_ocorrencia. A target with a fonte (a reference table) reads its fonte''s chunk (quando = chunk: the fonte''s table has a foreign key to it) or accepted rows (quando = fim), one row per key (the key''s last row, each manter column from the last row of the file that has a value), and is never deleted from. A key longer than its varchar(n), or a column feeding the key of such a reference table, makes a row error (longo demais). A description the catalog contradicts raises XL500; a periodo scope without a valid period XL422. Calls the type hook''s phase inicio. The normalisation trims text and turns '''' into NULL unless p_meta.staging_aparado is true (the caller''s staging has no leading or trailing space and no empty string: the service''s readers).';
