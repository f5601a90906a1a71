CREATE OR REPLACE FUNCTION app.xls_hook_compras(p_fase text, p_staging text, p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_n integer;
  v_linhas jsonb;
begin
  if p_fase = 'inicio' then
    drop table if exists pg_temp.xls_compras_filtradas;
    create temp table xls_compras_filtradas (linha integer, codigo text) on commit drop;
  elsif p_fase = 'normalizado' then
    -- only fuels enter: the other rows leave the chunk, counted (they are not errors)
    with f as (
      delete from pg_temp.xls_chunk_compra c
       where c.codigo_onu is null or c.codigo_onu not in (1170, 1202, 1203, 1223, 1863, 3475)
      returning c.linha, c.onu_texto)
    insert into pg_temp.xls_compras_filtradas select f.linha, f.onu_texto from f;
  elsif p_fase = 'fim' then
    select count(*), jsonb_agg(jsonb_build_object('aba', 'Compras', 'linha', f.linha, 'valor', f.codigo) order by f.linha)
      into v_n, v_linhas
      from pg_temp.xls_compras_filtradas f;
    return jsonb_build_object(
      'avisos', case when v_n = 0 then '[]'::jsonb else jsonb_build_array(jsonb_build_object(
        'categoria', 'filtrada', 'quantidade', v_n, 'linhas', v_linhas,
        'motivo', 'código ONU fora dos combustíveis (1170, 1202, 1203, 1223, 1863, 3475): linha não importada')) end,
      'tabelas', jsonb_build_object('filtradas_onu', jsonb_build_object('linhas', v_n)));
  end if;
  return '{}';
end;
$function$
;

comment on function app.xls_hook_compras(text,text,jsonb) is 'Hook of COMPRAS in the declarative merge. normalizado: rows whose Código ONU is not a fuel (1170, 1202, 1203, 1223, 1863, 3475; an empty code included) leave the chunk and are counted, not rejected. fim: a warning of category filtrada listing the rows and their codes, and tabelas.filtradas_onu. (The suppliers are a description row: app.xls_alvo COMPRAS/fornecedor.)';
