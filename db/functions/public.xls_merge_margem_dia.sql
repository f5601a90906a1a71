CREATE OR REPLACE FUNCTION public.xls_merge_margem_dia(p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_res jsonb;
  v_cli integer;
begin
  perform public.xls_staging_exigir('MARGEM_DIA');
  perform public.xls_travar(array['bi_margem_dia']);
  drop table if exists pg_temp.xls_src_margem_dia;
  create temp table xls_src_margem_dia on commit drop as
  select s.linha, s.data, nullif(btrim(s.filial), '') as filial, nullif(btrim(s.cliente), '') as cliente,
         nullif(btrim(s.produto), '') as produto, nullif(btrim(s.vendedor), '') as vendedor,
         s.volume, s.preco_medio, s.custo_medio, s.margem, s.prazo,
         nullif(btrim(s.nome_cliente), '') as nome_cliente, nullif(regexp_replace(s.cnpj_cpf, '\D', '', 'g'), '') as cnpj_cpf,
         nullif(btrim(s.classe), '') as classe, nullif(btrim(s.municipio), '') as municipio, nullif(upper(btrim(s.uf)), '') as uf
    from pg_temp.xls_stg_margem_dia s;
  v_res := app.xls_aplicar('public.bi_margem_dia', 'pg_temp.xls_src_margem_dia', 'valores', 'data', p_meta -> 'linhas_rejeitadas');
  -- hook: bi_cliente keeps the stored name, CNPJ/CPF, classe, município and UF when the sheet
  -- lacks the field (column absent or cell empty); the last row of a customer wins
  insert into public.bi_cliente as t (codigo, nome, cnpj_cpf, classe, municipio, uf)
  select c.codigo, c.nome, c.cnpj_cpf, c.classe, c.municipio, c.uf
    from (select distinct on (left(s.cliente, 20)) left(s.cliente, 20) as codigo, left(s.nome_cliente, 150) as nome,
                 left(s.cnpj_cpf, 14) as cnpj_cpf, left(s.classe, 40) as classe, left(s.municipio, 100) as municipio, left(s.uf, 2) as uf
            from pg_temp.xls_src_margem_dia s
           order by left(s.cliente, 20), s.linha desc) c
   order by c.codigo
  on conflict (codigo) do update
     set nome = coalesce(excluded.nome, t.nome), cnpj_cpf = coalesce(excluded.cnpj_cpf, t.cnpj_cpf),
         classe = coalesce(excluded.classe, t.classe), municipio = coalesce(excluded.municipio, t.municipio),
         uf = coalesce(excluded.uf, t.uf)
   where (t.nome, t.cnpj_cpf, t.classe, t.municipio, t.uf) is distinct from
         (coalesce(excluded.nome, t.nome), coalesce(excluded.cnpj_cpf, t.cnpj_cpf), coalesce(excluded.classe, t.classe),
          coalesce(excluded.municipio, t.municipio), coalesce(excluded.uf, t.uf));
  get diagnostics v_cli = row_count;
  return jsonb_set(v_res, '{tabelas,bi_cliente}', jsonb_build_object('efetivas', v_cli));
end;
$function$
;

comment on function public.xls_merge_margem_dia(jsonb) is 'Merge of MARGEM_DIA from the staging table margem_dia into bi_margem_dia (app.xls_aplicar; scope: the dates present in the file; an empty Prazo stays NULL). Hook: bi_cliente upsert of codigo, nome, cnpj_cpf, classe, municipio, uf that keeps each stored value when the sheet lacks the field (column absent or cell empty). p_meta = {linhas_rejeitadas}. Returns the metrics; xls_merge records them.';
