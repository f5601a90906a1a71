CREATE OR REPLACE FUNCTION app.xls_hook_compras(p_fase text, p_staging text, p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if p_fase = 'inicio' then
    perform app.xls_aviso_linha_criar();
  elsif p_fase = 'normalizado' then
    -- only fuels enter: the other rows leave the chunk, counted as warnings (they are not errors)
    with f as (
      delete from pg_temp.xls_chunk_compra c
       where c.codigo_onu is null or c.codigo_onu not in (1170, 1202, 1203, 1223, 1863, 3475)
      returning c.linha, c.onu_texto)
    insert into pg_temp.xls_aviso_linha (ordem, categoria, motivo, aba, linha, valor)
    select 1, 'filtrada', 'código ONU fora dos combustíveis (1170, 1202, 1203, 1223, 1863, 3475): linha não importada', 'Compras', f.linha, f.onu_texto from f;
  elsif p_fase = 'fim' then
    return jsonb_build_object('avisos', app.xls_aviso_linha_avisos(),
      'tabelas', jsonb_build_object('filtradas_onu', jsonb_build_object('linhas', (select count(*) from pg_temp.xls_aviso_linha))));
  end if;
  return '{}';
end;
$function$
;

comment on function app.xls_hook_compras(text,text,jsonb) is 'Hook of COMPRAS in the declarative merge. normalizado: rows whose Código ONU is not a fuel (1170, 1202, 1203, 1223, 1863, 3475; an empty code included) leave the chunk and are counted, not rejected (pg_temp.xls_aviso_linha). fim: a warning of category filtrada listing the rows and their codes (app.xls_aviso_linha_avisos), and tabelas.filtradas_onu. (The suppliers are a description row: app.xls_alvo COMPRAS/fornecedor.)';
