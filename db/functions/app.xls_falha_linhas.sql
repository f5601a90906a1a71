CREATE OR REPLACE FUNCTION app.xls_falha_linhas(p_motivo text, p_codigo text)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  -- a missing registration (XL424): "<campo> não cadastrado em <tabela>: <valor> (linha 5), <valor> (linhas 6, 7)…"
  select coalesce(jsonb_agg(jsonb_build_object(
           'aba', null, 'linha', l.linha::integer, 'campo', c.campo, 'valor', v.m[1],
           'mensagem', format('%s %s não cadastrado', c.campo, v.m[1])) order by l.linha::integer, v.m[1]), '[]')
    from (select substring(p_motivo from '^(.+?) não cadastrado em ') as campo,
                 substring(p_motivo from ' não cadastrado em [^:]+: (.*)$') as lista) c
    cross join lateral regexp_matches(c.lista, '([^ ,()]+) \(linhas? ([0-9, …]+)\)', 'g') v (m)
    cross join lateral regexp_split_to_table(v.m[2], ',\s*') l (linha)
   where p_codigo in ('XL424', '23503') and c.campo is not null and l.linha ~ '^[0-9]{1,9}$'
$function$
;

comment on function app.xls_falha_linhas(text,text) is 'The refused rows a failure message names, as stored rejected rows [{aba, linha, campo, valor, mensagem}]: for a missing registration (XL424, 23503: "<campo> não cadastrado em <tabela>: 999 (linha 5), 1000 (linhas 6, 7)") one row per named line. Empty for any other failure. Used by xls_falhar when the caller passes no rows.';
