CREATE OR REPLACE FUNCTION public.xls_merge_fluxo_pagar_receber(p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_posicao date;
  v_rejeitadas jsonb := public.xls_rejeitadas_normalizar(p_meta -> 'linhas_rejeitadas');
  v_total_rejeitadas integer;
  v_listadas integer;
  v_motivo text;
  v_max date;
  v_res jsonb;
  v_cc integer;
  v_atual integer := 0;
  v_soma numeric;
  v_grupo numeric;
  v_aviso text;
begin
  -- rule 4, total refusal: no position date, or any invalid row → nothing written, every row listed
  begin
    v_posicao := (p_meta ->> 'posicao')::date;
  exception when others then
    v_posicao := null;
  end;
  if v_posicao is null then
    raise exception 'FLUXO_PAGAR_RECEBER recusado: data de posição ausente ou inválida (%)', coalesce(p_meta ->> 'posicao', 'ausente')
      using errcode = 'XL422';
  end if;
  perform public.xls_staging_exigir('FLUXO_PAGAR_RECEBER');
  select count(distinct (e ->> 'linha')::integer) into v_listadas from jsonb_array_elements(v_rejeitadas) e;
  v_total_rejeitadas := greatest(v_listadas, coalesce((p_meta ->> 'linhas_rejeitadas_total')::integer, 0));
  if v_total_rejeitadas > 0 then
    select string_agg(e ->> 'mensagem', '; ' order by (e ->> 'linha')::integer, e ->> 'campo') into v_motivo from jsonb_array_elements(v_rejeitadas) e;
    v_motivo := coalesce(v_motivo, '') || case when v_total_rejeitadas > v_listadas
      then format(' (e mais %s linhas inválidas não listadas)', v_total_rejeitadas - v_listadas) else '' end;
    raise exception 'FLUXO_PAGAR_RECEBER recusado, nada gravado: % linha(s) inválida(s): %', v_total_rejeitadas, v_motivo
      using errcode = 'XL422';
  end if;

  -- rule 3: simultaneous imports are serialised (the lock is held until commit)
  perform public.xls_travar(array['bi_titulo']);
  select max(t.posicao) into v_max from public.bi_titulo t;

  drop table if exists pg_temp.xls_src_titulo;
  create temp table xls_src_titulo on commit drop as
  select s.linha, v_posicao as posicao,
         case upper(btrim(s.tipo)) when 'P' then 'PAGAR' when 'PAGAR' then 'PAGAR' when 'R' then 'RECEBER' when 'RECEBER' then 'RECEBER' end as tipo,
         nullif(btrim(s.documento), '') as documento, coalesce(btrim(s.parcela), '') as parcela,
         nullif(btrim(s.pessoa), '') as pessoa, nullif(regexp_replace(s.cnpj_cpf, '\D', '', 'g'), '') as cnpj_cpf,
         s.emissao, s.vencimento, s.valor, s.saldo, nullif(btrim(s.centro_custo), '') as centro_custo,
         nullif(btrim(s.descricao_centro_custo), '') as descricao_centro_custo,
         -- rule 2: only the newest position is current; an older one enters the history only
         (v_max is null or v_posicao >= v_max) as atual
    from pg_temp.xls_stg_titulo s;
  select string_agg(format('linha %s: %s ''%s'' inválido', x.linha, x.campo, ''), '; ' order by x.linha), count(*)
    into v_motivo, v_total_rejeitadas
    from (select s.linha, case when s.tipo is null then 'tipo' when s.documento is null then 'documento'
                                when s.vencimento is null then 'vencimento' else 'saldo' end as campo
            from pg_temp.xls_src_titulo s
           where s.tipo is null or s.documento is null or s.vencimento is null or s.saldo is null) x;
  if v_total_rejeitadas > 0 then
    raise exception 'FLUXO_PAGAR_RECEBER recusado, nada gravado: % linha(s) inválida(s): %', v_total_rejeitadas, v_motivo using errcode = 'XL422';
  end if;

  -- hook: cost centres (never deleted); an empty description keeps the stored one
  insert into public.bi_centro_custo as c (codigo, descricao)
  select x.codigo, x.descricao
    from (select distinct on (left(s.centro_custo, 20)) left(s.centro_custo, 20) as codigo, left(s.descricao_centro_custo, 120) as descricao
            from pg_temp.xls_src_titulo s where s.centro_custo is not null
           order by left(s.centro_custo, 20), s.linha desc) x
   order by x.codigo
  on conflict (codigo) do update set descricao = coalesce(excluded.descricao, c.descricao)
   where c.descricao is distinct from coalesce(excluded.descricao, c.descricao);
  get diagnostics v_cc = row_count;

  -- the position's titles: a re-import replaces that position (scope: this position)
  v_res := app.xls_aplicar('public.bi_titulo', 'pg_temp.xls_src_titulo', 'valores', 'posicao', v_rejeitadas);
  if v_max is null or v_posicao > v_max then
    update public.bi_titulo t set atual = false where t.atual and t.posicao < v_posicao;
    get diagnostics v_atual = row_count;
  end if;

  -- rule 5: receivable sum of Saldo against the Total of tab Grupo
  select coalesce(sum(s.saldo), 0) into v_soma from pg_temp.xls_src_titulo s where s.tipo = 'RECEBER';
  if not (p_meta ? 'total_receber_grupo') then
    v_aviso := 'aba Grupo ausente: o total a receber não foi conferido';
  elsif p_meta ->> 'total_receber_grupo' is null then
    v_aviso := coalesce(p_meta ->> 'grupo_problema', 'aba Grupo sem total') || ': o total a receber não foi conferido';
  else
    v_grupo := (p_meta ->> 'total_receber_grupo')::numeric;
    if abs(v_soma - v_grupo) > 0.01 then
      v_aviso := format('total a receber difere da aba Grupo: soma do Saldo %s, Total da aba Grupo %s',
                        app.xls_brl(v_soma), app.xls_brl(v_grupo));
    end if;
  end if;
  if v_aviso is not null then
    v_res := jsonb_set(v_res, '{avisos}', (v_res -> 'avisos') || jsonb_build_array(jsonb_build_object(
      'categoria', 'total', 'quantidade', 1, 'linhas', '[]'::jsonb, 'motivo', v_aviso)));
  end if;
  if not (v_max is null or v_posicao >= v_max) then
    v_res := jsonb_set(v_res, '{avisos}', (v_res -> 'avisos') || jsonb_build_array(jsonb_build_object(
      'categoria', 'posicao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', format('posição %s anterior à atual (%s): entra no histórico sem se tornar a atual', to_char(v_posicao, 'DD/MM/YYYY'), to_char(v_max, 'DD/MM/YYYY')))));
  end if;
  v_res := jsonb_set(v_res, '{tabelas,bi_titulo,posicao}', to_jsonb(v_posicao));
  v_res := jsonb_set(v_res, '{tabelas,bi_titulo,atual}', to_jsonb(v_max is null or v_posicao >= v_max));
  v_res := jsonb_set(v_res, '{tabelas,bi_titulo,deixaram_de_ser_atuais}', to_jsonb(v_atual));
  v_res := jsonb_set(v_res, '{tabelas,bi_titulo,soma_saldo_receber}', to_jsonb(v_soma));
  return jsonb_set(v_res, '{tabelas,bi_centro_custo}', jsonb_build_object('efetivas', v_cc));
end;
$function$
;

comment on function public.xls_merge_fluxo_pagar_receber(jsonb) is 'Merge of FLUXO_PAGAR_RECEBER (service-spec rules 1-5) from the staging table titulo; p_meta = {posicao, total_receber_grupo, grupo_problema, linhas_rejeitadas, linhas_rejeitadas_total} (the reader finds the position and the Grupo total). Total refusal (XL422, nothing written): no position date, or any invalid row, the reason listing every row as ''linha <n>: <campo> ''''<valor>'''' inválido''. Serialised by a transaction lock on bi_titulo. The position''s titles replace that position (history per position); only the newest position carries atual (an older one enters the history without becoming current). Cost centres upserted into bi_centro_custo. Warns when the receivable sum of Saldo differs from the Grupo Total by more than 0,01, naming both figures. tabelas.bi_titulo.posicao records the position (xls_fluxo_resumo reads it).';
