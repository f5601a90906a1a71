CREATE OR REPLACE FUNCTION public.replicacao_consultas_definir(p_consultas jsonb)
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v jsonb;
  v_m text[];
  v_tabela text;
  v_n integer := 0;
begin
  if p_consultas is null or jsonb_typeof(p_consultas) <> 'array' then
    raise exception 'as consultas devem ser uma lista [{"bucket": …, "consulta": …}]' using errcode = 'RR400';
  end if;
  delete from app.replicacao_consulta;
  for v in select * from jsonb_array_elements(p_consultas) loop
    -- SELECT <columns> FROM <bi_table> [WHERE <filter>]: the one shape the sync configuration uses
    v_m := regexp_match(v->>'consulta', '^\s*select\s+(.+?)\s+from\s+"?(bi_[a-z0-9_]+)"?(?:\s+where\s+(.+?))?\s*$', 'is');
    if v_m is null or (v->>'consulta') ~ ';' then
      raise exception 'consulta da configuração de sincronização fora do formato SELECT … FROM bi_… [WHERE …]: %', v->>'consulta'
        using errcode = 'RR400';
    end if;
    v_tabela := lower(v_m[2]);
    if to_regclass(format('public.%I', v_tabela)) is null then
      raise exception 'a consulta da configuração de sincronização nomeia a tabela %, que não existe', v_tabela using errcode = 'RR400';
    end if;
    if exists (select from app.replicacao_consulta where tabela = v_tabela) then
      raise exception 'a tabela % aparece em mais de uma consulta da configuração de sincronização', v_tabela using errcode = 'RR400';
    end if;
    insert into app.replicacao_consulta (tabela, bucket, filtro, consulta)
    values (v_tabela, coalesce(v->>'bucket', ''), nullif(btrim(v_m[3]), ''), btrim(v->>'consulta'));
    v_n := v_n + 1;
  end loop;
  return v_n;
end;
$function$
;

comment on function public.replicacao_consultas_definir(jsonb) is 'Replaces app.replicacao_consulta with the sync configuration''s data queries, given as [{"bucket": …, "consulta": "SELECT … FROM bi_x [WHERE …]"}] (the service calls it at start). RR400: a query of another shape, a table that does not exist, a table in two queries. Returns how many were stored.';
