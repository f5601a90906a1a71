CREATE OR REPLACE FUNCTION public.xls_merge_meta(p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_env integer;
  v_ef integer := 0;
  v_rm integer := 0;
  v_rejeitadas jsonb := public.xls_rejeitadas_normalizar(p_meta -> 'linhas_rejeitadas');
  v_avisos jsonb := '[]';
  v_aux jsonb;
  v_faltam text;
  v_n integer;
begin
  perform public.xls_staging_exigir('META');
  perform public.xls_travar(array['bi_meta']);
  analyze pg_temp.xls_stg_meta;
  select count(*) into v_env from pg_temp.xls_stg_meta;

  drop table if exists pg_temp.xls_src_meta;
  create temp table xls_src_meta on commit drop as
  select s.linha,
         date_trunc('month', s.competencia)::date as competencia,
         left(nullif(btrim(s.vendedor), ''), 20) as vendedor,
         left(nullif(btrim(s.produto), ''), 20) as produto,
         s.meta_volume, s.meta_margem
    from pg_temp.xls_stg_meta s;

  select coalesce(jsonb_agg(jsonb_build_object('aba', null, 'linha', r.linha, 'campo', r.campo, 'valor', '',
                                               'mensagem', format('linha %s: %s '''' inválido', r.linha, r.campo)) order by r.linha), '[]')
    into v_aux
    from (select m.linha, case when m.competencia is null then 'competencia' when m.vendedor is null then 'vendedor' else 'produto' end as campo
            from pg_temp.xls_src_meta m where m.competencia is null or m.vendedor is null or m.produto is null) r;
  v_rejeitadas := public.xls_rejeitadas_normalizar(v_rejeitadas || v_aux);
  delete from pg_temp.xls_src_meta where competencia is null or vendedor is null or produto is null;

  with d as (
    delete from pg_temp.xls_src_meta m
     using (select ctid, row_number() over (partition by competencia, vendedor, produto order by linha desc) as rn
              from pg_temp.xls_src_meta) x
     where m.ctid = x.ctid and x.rn > 1
    returning m.linha)
  select case when count(*) = 0 then '[]'::jsonb else jsonb_build_array(jsonb_build_object(
           'categoria', 'duplicada', 'motivo', 'chave repetida no arquivo: vale a última linha com a mesma chave',
           'quantidade', count(*),
           'linhas', jsonb_agg(jsonb_build_object('aba', null, 'linha', linha, 'valor', null) order by linha))) end
    into v_aux from d;
  v_avisos := v_avisos || v_aux;
  analyze pg_temp.xls_src_meta;

  -- The seller must exist (created by the batch's master report): a clear, distinct
  -- error the batch logic treats as transient.
  select count(*), string_agg(format('%s (%s %s)', f.vendedor, case when f.n = 1 then 'linha' else 'linhas' end, f.linhas), ', ' order by f.vendedor)
                     filter (where f.ordem <= 20)
    into v_n, v_faltam
    from (select s.vendedor, count(*) as n,
                 array_to_string((array_agg(s.linha order by s.linha))[1:10], ', ') || case when count(*) > 10 then ', …' else '' end as linhas,
                 row_number() over (order by s.vendedor) as ordem
            from pg_temp.xls_src_meta s
           where not exists (select from public.bi_vendedor v where v.codigo = s.vendedor)
           group by s.vendedor) f;
  if v_n > 0 then
    v_faltam := v_faltam || case when v_n > 20 then format(' e mais %s', v_n - 20) else '' end;
    raise exception 'vendedor não cadastrado em bi_vendedor: %', v_faltam
      using errcode = 'XL424',
            hint = 'o vendedor é criado pelo RELATORIO18; dentro de um lote a META é refeita depois que o relatório mestre concluir';
  end if;

  begin
    insert into public.bi_meta as t (competencia, vendedor, produto, meta_volume, meta_margem)
    select s.competencia, s.vendedor, s.produto, s.meta_volume, s.meta_margem
      from pg_temp.xls_src_meta s
     where not exists (select from public.bi_meta t
                        where t.competencia = s.competencia and t.vendedor = s.vendedor and t.produto = s.produto
                          and (t.meta_volume, t.meta_margem) is not distinct from (s.meta_volume, s.meta_margem))
     order by s.competencia, s.vendedor, s.produto
    on conflict (competencia, vendedor, produto) do update
       set meta_volume = excluded.meta_volume, meta_margem = excluded.meta_margem
     where (t.meta_volume, t.meta_margem) is distinct from (excluded.meta_volume, excluded.meta_margem);
    get diagnostics v_ef = row_count;
  exception when foreign_key_violation then
    raise exception 'vendedor não cadastrado em bi_vendedor (%)', sqlerrm using errcode = 'XL424';
  end;

  if v_env = 0 then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'envio vazio: nada removido de bi_meta'));
  elsif public.xls_suspender_remocoes(v_rejeitadas, null) then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'há linhas rejeitadas: remoções de bi_meta suspensas; corrija e reenvie'));
  else
    with alvo as (
      select t.id from public.bi_meta t
       where t.competencia in (select distinct s.competencia from pg_temp.xls_src_meta s)
         and not exists (select from pg_temp.xls_src_meta s
                          where s.competencia = t.competencia and s.vendedor = t.vendedor and s.produto = t.produto)
       order by t.competencia, t.vendedor, t.produto
       for update of t)
    delete from public.bi_meta t using alvo where t.id = alvo.id;
    get diagnostics v_rm = row_count;
  end if;

  return jsonb_build_object(
    'linhas_enviadas', v_env,
    'linhas_efetivas', v_ef,
    'linhas_removidas', v_rm,
    'avisos', public.xls_avisos_normalizar(v_avisos),
    'linhas_rejeitadas', v_rejeitadas,
    'tabelas', jsonb_build_object('bi_meta', jsonb_build_object('enviadas', v_env, 'efetivas', v_ef, 'removidas', v_rm)));
end;
$function$
;

comment on function public.xls_merge_meta(jsonb) is 'Merge of META from the staging table meta; p_meta = {linhas_rejeitadas}. Every seller must exist in bi_vendedor, else XL424 (transient FK failure: the batch logic retries it once after the master report) naming the sellers and rows. Upserts bi_meta diff-aware in key order, then deletes rows of the competências present in the file that the file no longer has. Returns the metrics; xls_merge records them.';
