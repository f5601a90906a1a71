CREATE OR REPLACE FUNCTION app.xls_hook_margem_consolidada(p_fase text, p_staging text, p_meta jsonb)
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
  -- branches by code only (município and UF are manual registry data)
  insert into public.bi_filial (codigo)
  select distinct a.filial from pg_temp.xls_aceitas_margem_consolidada a
   where not exists (select from public.bi_filial f where f.codigo = a.filial)
   order by 1
  on conflict (codigo) do nothing;
  get diagnostics v_n = row_count;
  return jsonb_build_object('tabelas', jsonb_build_object('bi_filial', jsonb_build_object('efetivas', v_n)));
end;
$function$
;

comment on function app.xls_hook_margem_consolidada(text,text,jsonb) is 'Hook of MARGEM_CONSOLIDADA in the declarative merge (phase fim): new branch codes of the accepted rows go to bi_filial, code only (município and UF are manual registry data).';
