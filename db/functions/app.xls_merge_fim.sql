CREATE OR REPLACE FUNCTION app.xls_merge_fim(p_tipo text, p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET work_mem TO '64MB'
AS $function$
-- The end of a declarative merge: the rows still staged as a last chunk, keys repeated across
-- chunks, the type's hook (phase fim), rejected rows (protect their key or suspend the
-- deletes of their tab), the scope deletes, the metrics.
declare
  e record;
  v_n_alvos integer;
  v_bool boolean;
  v_n integer;
  v_rm_t integer;
  v_env integer := 0;
  v_ef integer := 0;
  v_rm integer := 0;
  v_hook jsonb;
  v_rej_leitor jsonb := app.xls_rejeitadas_normalizar(p_meta -> 'linhas_rejeitadas');
  v_rejeitadas jsonb;
  v_avisos jsonb := '[]';
  v_remocoes jsonb := '[]';
  v_tabelas jsonb := '{}';
  v_aux jsonb;
  v_legiveis integer[];
  v_ilegiveis integer[];
  v_abas text;
  -- the mass-deletion guard (bi_configuracao), and whether a person approved this processing's removals
  v_pid uuid := nullif(current_setting('bi.xls_processamento', true), '')::uuid;
  v_lim_pct integer := coalesce((select case when c.valor ~ '^[0-9]{1,9}$' then c.valor::integer end from public.bi_configuracao c where c.chave = 'xls_exclusao_limite_percentual'), 30);
  v_lim_linhas integer := coalesce((select case when c.valor ~ '^[0-9]{1,9}$' then c.valor::integer end from public.bi_configuracao c where c.chave = 'xls_exclusao_limite_linhas'), 100);
  v_aprovado boolean := coalesce((select p.exclusoes_aprovadas_em is not null from public.xls_processamento p where p.id = v_pid), false);
  v_simular boolean := coalesce((p_meta ->> 'simular')::boolean, false);
  v_retidas jsonb := '[]';
  v_escopo_n bigint;
  v_aceitas_n bigint;
  v_escopo_antes bigint;
begin
  perform app.xls_merge_chunk(p_tipo, p_meta, true);
  select count(*) into v_n_alvos from pg_temp.xls_merge_estado x where x.fonte is null;

  -- a key repeated across chunks: its last row stays (the chunks wrote it last, so it is what
  -- the target holds), the earlier rows give way; a key written by several chunks counts once
  for e in select x.* from pg_temp.xls_merge_estado x where x.chunks > 1 and x.fonte is null order by x.ordem loop
    execute format('select exists (select from pg_temp.%I group by h having count(*) > 1)', 'xls_hash_' || e.staging) into v_bool;
    if v_bool then
      execute e.sql_rep;
      execute format($q$
        with d as (delete from pg_temp.%1$I s using pg_temp.%2$I t where %3$s and s.linha < t.ultima returning s.linha)
        insert into pg_temp.xls_ocorrencia select 'duplicada', $1, d.linha, null, $2, true from d$q$,
        'xls_aceitas_' || e.staging, 'xls_rep_' || e.staging, e.sql_on_key_t) using e.aba, e.staging;
      execute format('select coalesce(sum(greatest(escritas - 1, 0)), 0)::integer from pg_temp.%I', 'xls_rep_' || e.staging) into v_n;
      update pg_temp.xls_merge_estado x set efetivas = x.efetivas - v_n, refeito = true where x.staging = e.staging;
    end if;
  end loop;

  -- reference tables written at the end (app.xls_alvo.fonte, quando = fim): from the chunks'
  -- candidates, or, when a key of the fonte repeated across chunks, from the accepted rows that
  -- survived (a row that gave way gives nothing)
  for e in select x.*, f.refeito as fonte_refeita from pg_temp.xls_merge_estado x
             join pg_temp.xls_merge_estado f on f.staging = x.fonte and f.fonte is null
            where x.fonte is not null and x.quando = 'fim' order by x.ordem loop
    execute format('insert into pg_temp.%I %s', 'xls_chunk_' || e.staging, case when e.fonte_refeita then e.sql_select else e.sql_cand_fim end);
    v_n := app.xls_merge_gravar(e.staging, lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') || '70008');
    update pg_temp.xls_merge_estado x set efetivas = x.efetivas + v_n where x.staging = e.staging;
  end loop;

  -- rows set aside by SQL (an empty NOT NULL column; the reader normally catches them)
  select coalesce(jsonb_agg(jsonb_build_object('aba', o.aba, 'linha', o.linha, 'campo', o.campo, 'valor', o.valor, 'mensagem', o.mensagem)
                            order by o.aba, o.linha), '[]')
    into v_aux from pg_temp.xls_ocorrencia o where o.tipo = 'rejeitada';
  v_rejeitadas := app.xls_rejeitadas_normalizar(v_rej_leitor || v_aux);

  -- a type that refuses the whole file for any invalid row (app.xls_tipo.recusa_total) writes nothing
  if jsonb_array_length(v_rejeitadas) > 0 and (select t.recusa_total from app.xls_tipo t where t.tipo = p_tipo) then
    raise exception '% recusado, nada gravado: % linha(s) inválida(s): %', p_tipo,
      (select count(distinct (x ->> 'linha')::integer) from jsonb_array_elements(v_rejeitadas) x),
      (select string_agg(x ->> 'mensagem', '; ' order by (x ->> 'linha')::integer, x ->> 'campo') from jsonb_array_elements(v_rejeitadas) x)
      using errcode = 'XL422';
  end if;

  -- what belongs to one type only (defences, checks): {avisos, tabelas, resultado}
  v_hook := app.xls_merge_hook(p_tipo, 'fim', null, p_meta);
  v_avisos := v_avisos || coalesce(v_hook -> 'avisos', '[]');


  select case when count(*) = 0 then '[]'::jsonb else jsonb_build_array(jsonb_build_object(
           'categoria', 'duplicada', 'motivo', 'chave repetida no arquivo: vale a última linha com a mesma chave',
           'quantidade', count(*),
           'linhas', jsonb_agg(jsonb_build_object('aba', o.aba, 'linha', o.linha, 'valor', null) order by o.aba, o.linha))) end
    into v_aux from pg_temp.xls_ocorrencia o where o.tipo = 'duplicada';
  v_avisos := v_avisos || v_aux;

  -- the reader's rejected rows, each with the targets it counts for: the staging it was read
  -- for, else its tab (a tab no target names, or none, counts for every target)
  drop table if exists pg_temp.xls_rej_leitor;
  create temp table xls_rej_leitor on commit drop as
  select m.staging as alvo, r.linha, r.aba, r.valores
    from (select (x ->> 'linha')::integer as linha, x ->> 'aba' as aba, x ->> 'staging' as staging,
                 (array_agg(x -> 'valores') filter (where jsonb_typeof(x -> 'valores') = 'object'))[1] as valores
            from jsonb_array_elements(case when jsonb_typeof(p_meta -> 'linhas_rejeitadas') = 'array' then p_meta -> 'linhas_rejeitadas' else '[]' end) x
           group by 1, 2, 3) r
    join pg_temp.xls_merge_estado m on m.fonte is null
     and (r.staging = m.staging or (r.staging is null and (r.aba is null or v_n_alvos = 1 or r.aba = m.aba
          or not exists (select from pg_temp.xls_merge_estado y where y.fonte is null and y.aba = r.aba))));

  for e in select x.* from pg_temp.xls_merge_estado x order by x.ordem loop
    if e.fonte is not null then
      -- a reference table: written only, never deleted from
      v_tabelas := v_tabelas || jsonb_build_object(e.tabela, jsonb_build_object('efetivas', coalesce((v_tabelas -> e.tabela ->> 'efetivas')::integer, 0) + e.efetivas));
      continue;
    end if;
    -- which of this target's rejected rows have a readable key: their values go through the
    -- same normalisation as accepted rows; a readable key is protected from the scope delete
    v_legiveis := '{}';
    if e.escopo <> 'nenhum' and exists (select from pg_temp.xls_rej_leitor r where r.alvo = e.staging and r.valores is not null) then
      begin
        execute format('insert into pg_temp.%1$I select * from jsonb_populate_recordset(null::pg_temp.%1$I, $1)', 'xls_stg_' || e.staging)
          using (select jsonb_agg(r.valores || jsonb_build_object('linha', r.linha)) from pg_temp.xls_rej_leitor r
                  where r.alvo = e.staging and r.valores is not null);
        execute format($q$
          with n as (select * from (%1$s) z where %2$s and z.xls_longo is null),
          p as (insert into pg_temp.%3$I select %4$s from n)
          select coalesce(array_agg(n.linha), '{}') from n$q$,
          e.sql_select, app.xls_sql_lista('z.%I is not null', ' and ', e.chave),
          'xls_protegidas_' || e.staging, e.sql_key_list) into v_legiveis;
      exception when data_exception or invalid_text_representation then
        v_legiveis := '{}'; -- values that do not even cast: the key is not readable
      end;
      execute format('truncate pg_temp.%I', 'xls_stg_' || e.staging);
    end if;
    select array_agg(distinct u.linha order by u.linha), string_agg(distinct u.aba, ', ')
      into v_ilegiveis, v_abas
      from (select r.linha, coalesce(e.aba, r.aba) as aba from pg_temp.xls_rej_leitor r
             where r.alvo = e.staging and not r.linha = any(v_legiveis)
            union all
            select o.linha, o.aba from pg_temp.xls_ocorrencia o
             where o.tipo = 'rejeitada' and o.staging = e.staging and not o.chave_legivel) u;

    v_rm_t := 0;
    if e.escopo = 'nenhum' then
      null; -- the file never deletes from this table
    elsif e.enviadas = 0 then
      v_remocoes := v_remocoes || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
        'motivo', format('envio vazio%s: nada removido de %s', ' na aba ' || e.aba, e.tabela)));
    elsif v_ilegiveis is not null then
      v_remocoes := v_remocoes || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', cardinality(v_ilegiveis),
        'linhas', (select jsonb_agg(jsonb_build_object('aba', coalesce(e.aba, v_abas), 'linha', l, 'valor', null) order by l) from unnest(v_ilegiveis[1:1000]) l),
        'motivo', format('há linhas rejeitadas sem chave legível%s (%s %s): remoções de %s suspensas; corrija e reenvie',
                         ' na aba ' || v_abas, case when cardinality(v_ilegiveis) = 1 then 'linha' else 'linhas' end,
                         array_to_string(v_ilegiveis[1:10], ', ') || case when cardinality(v_ilegiveis) > 10 then ', …' else '' end, e.tabela)));
    elsif not coalesce(e.vazio, false) then
      -- every key of the file is now stored with the file's values: when the scope holds as
      -- many rows as the file has in it, none is absent and the anti-join is skipped
      execute format('select (select count(*) from public.%I t where %s), (select count(*) from pg_temp.%I s where %s)',
                     e.tabela, e.sql_escopo_t, 'xls_aceitas_' || e.staging, e.sql_escopo_s) into v_escopo_n, v_aceitas_n;
      if v_escopo_n <> v_aceitas_n then
        drop table if exists pg_temp.xls_remover;
        execute format($q$
          create temp table xls_remover on commit drop as
          select t.id from public.%1$I t
           where %2$s
             and not exists (select from pg_temp.%3$I s where %4$s)
             and not exists (select from pg_temp.%5$I s where %4$s)
           order by %6$s$q$,
          e.tabela, e.sql_escopo_t, 'xls_aceitas_' || e.staging, e.sql_on_key_t, 'xls_protegidas_' || e.staging, e.sql_key_list);
        get diagnostics v_rm_t = row_count;
        -- the mass-deletion guard: the scope as it was before this processing (its own inserts left out)
        v_escopo_antes := v_escopo_n - coalesce((select sum(cardinality(a.linha_ids)) from app.xls_alteracao a
                                                  where a.processamento_id = v_pid and a.tabela = e.tabela and a.operacao = 'INSERIDA'), 0);
        if not v_aprovado and v_rm_t >= v_lim_linhas and v_rm_t * 100 > v_lim_pct * greatest(v_escopo_antes, 1) then
          v_retidas := v_retidas || jsonb_build_array(jsonb_build_object('tabela', e.tabela, 'aba', e.aba, 'remover', v_rm_t, 'escopo', v_escopo_antes,
            'percentual', round(v_rm_t * 100.0 / greatest(v_escopo_antes, 1), 1)));
        end if;
        -- held: nothing removed (the raise below undoes the rest); a preview removes anyway, to show what approval would do
        if jsonb_array_length(v_retidas) > 0 and not v_simular then
          v_rm_t := 0;
        else
          execute format('delete from public.%1$I t using (select r.id from pg_temp.xls_remover r join public.%1$I t2 on t2.id = r.id order by r.id for update of t2) alvo where t.id = alvo.id', e.tabela);
          get diagnostics v_rm_t = row_count;
        end if;
      end if;
    end if;
    v_env := v_env + e.enviadas;
    v_ef := v_ef + e.efetivas;
    v_rm := v_rm + v_rm_t;
    v_tabelas := v_tabelas || jsonb_build_object(e.tabela, jsonb_build_object('enviadas', e.enviadas, 'efetivas', e.efetivas, 'removidas', v_rm_t));
  end loop;

  if jsonb_array_length(v_retidas) > 0 and not v_simular then
    raise exception 'importação retida pela trava de exclusão em massa, nada foi gravado: %. Confira se o arquivo está completo; se estiver, aprove com "Aplicar mesmo assim" (ou reprocessar com aprovarExclusoes)',
      (select string_agg(format('removeria %s de %s linhas de %s%s (%s%%, acima do limite de %s%% e %s linhas)',
                                x ->> 'remover', x ->> 'escopo', x ->> 'tabela', ' da aba ' || (x ->> 'aba'), replace(x ->> 'percentual', '.', ','), v_lim_pct, v_lim_linhas), '; ')
         from jsonb_array_elements(v_retidas) x)
      using errcode = 'XL428', detail = v_retidas::text;
  end if;

  return jsonb_build_object(
    'retencao', v_retidas,
    'linhas_enviadas', v_env,
    'linhas_efetivas', v_ef,
    'linhas_removidas', v_rm,
    'avisos', app.xls_avisos_normalizar(v_avisos || v_remocoes),
    'linhas_rejeitadas', v_rejeitadas,
    'tabelas', v_tabelas || coalesce(v_hook -> 'tabelas', '{}')) || coalesce(v_hook -> 'resultado', '{}');
end;
$function$
;

comment on function app.xls_merge_fim(text,jsonb) is 'Internal, the end of the declarative merge of a type (called by xls_merge): takes what is still staged as a last chunk, settles keys repeated across chunks (the last row stays; linhas_efetivas counts such a key once), refuses the file (XL422) when the type has recusa_total and any row is invalid, calls the type hook (phase fim: reference tables, defences), then per target: a rejected row with a readable key (its values normalised as accepted rows) protects that key from deletion; a row whose key cannot be read suspends the deletes of its own target (tab), with a warning naming the rows; otherwise deletes the rows of the scope absent from the file in key order (skipped when the scope was empty before the merge or holds exactly the file''s rows). The mass-deletion guard: removals of more than xls_exclusao_limite_percentual % of the rows a target''s scope held before this processing, and at least xls_exclusao_limite_linhas rows, raise XL428 (nothing written; detail = the held tables as JSON) unless the processing''s removals were approved (exclusoes_aprovadas_em); with p_meta.simular the held tables are only reported (retencao) and the removals done, as approval would. Returns {retencao, linhas_enviadas, linhas_efetivas, linhas_removidas, avisos, linhas_rejeitadas, tabelas} plus the hook''s resultado.';
