CREATE OR REPLACE FUNCTION app.xls_hook_margem_dia(p_fase text, p_staging text, p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_n integer;
begin
  if p_fase <> 'fim' then
    return '{}';
  end if;
  -- bi_cliente keeps the stored name, CNPJ/CPF, classe, município and UF when the sheet lacks
  -- the field (column absent or cell empty); a customer's last row wins; unchanged rows are
  -- left alone (ON CONFLICT DO UPDATE would lock and log them)
  insert into public.bi_cliente as t (codigo, nome, cnpj_cpf, classe, municipio, uf)
  select c.codigo, c.nome, c.cnpj_cpf, c.classe, c.municipio, c.uf
    from (select distinct on (a.cliente) a.cliente as codigo, left(a.nome_cliente, 150) as nome,
                 left(nullif(regexp_replace(a.cnpj_cpf, '\D', '', 'g'), ''), 14) as cnpj_cpf, left(a.classe, 40) as classe,
                 left(a.municipio, 100) as municipio, left(upper(a.uf), 2) as uf
            from pg_temp.xls_aceitas_margem_dia a
           order by a.cliente, a.linha desc) c
   where not exists (select from public.bi_cliente t where t.codigo = c.codigo
                       and (t.nome, t.cnpj_cpf, t.classe, t.municipio, t.uf) is not distinct from
                           (coalesce(c.nome, t.nome), coalesce(c.cnpj_cpf, t.cnpj_cpf), coalesce(c.classe, t.classe),
                            coalesce(c.municipio, t.municipio), coalesce(c.uf, t.uf)))
   order by c.codigo
  on conflict (codigo) do update
     set nome = coalesce(excluded.nome, t.nome), cnpj_cpf = coalesce(excluded.cnpj_cpf, t.cnpj_cpf),
         classe = coalesce(excluded.classe, t.classe), municipio = coalesce(excluded.municipio, t.municipio),
         uf = coalesce(excluded.uf, t.uf);
  get diagnostics v_n = row_count;
  return jsonb_build_object('tabelas', jsonb_build_object('bi_cliente', jsonb_build_object('efetivas', v_n)));
end;
$function$
;

comment on function app.xls_hook_margem_dia(text,text,jsonb) is 'Hook of MARGEM_DIA in the declarative merge (phase fim): upserts bi_cliente (codigo, nome, cnpj_cpf, classe, municipio, uf) from the accepted rows (retained columns), keeping each stored value when the sheet lacks the field (column absent or cell empty); a customer''s last row wins.';
