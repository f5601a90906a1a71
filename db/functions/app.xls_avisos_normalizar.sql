CREATE OR REPLACE FUNCTION app.xls_avisos_normalizar(p_avisos jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_out jsonb := '[]';
  v_e jsonb;
  v_linhas jsonb;
begin
  if p_avisos is null or jsonb_typeof(p_avisos) = 'null' then
    return '[]';
  end if;
  if jsonb_typeof(p_avisos) <> 'array' then
    raise exception 'avisos deve ser uma lista JSON' using errcode = 'XL400';
  end if;
  for v_e in select e from jsonb_array_elements(p_avisos) e loop
    if jsonb_typeof(v_e) = 'string' then
      v_out := v_out || jsonb_build_array(jsonb_build_object(
        'categoria', 'geral', 'motivo', v_e #>> '{}', 'quantidade', 1, 'linhas', '[]'::jsonb));
    elsif jsonb_typeof(v_e) = 'object' and coalesce(v_e ->> 'motivo', v_e ->> 'mensagem') is not null then
      select coalesce(jsonb_agg(jsonb_build_object(
               'aba', case when jsonb_typeof(l) = 'object' then l ->> 'aba' end,
               'linha', case when jsonb_typeof(l) = 'object' then (l ->> 'linha')::integer else (l #>> '{}')::integer end,
               'valor', case when jsonb_typeof(l) = 'object' then l ->> 'valor' end)), '[]')
        into v_linhas
        from jsonb_array_elements(case when jsonb_typeof(v_e -> 'linhas') = 'array' then v_e -> 'linhas' else '[]' end) l;
      v_out := v_out || jsonb_build_array(jsonb_build_object(
        'categoria', coalesce(v_e ->> 'categoria', 'geral'),
        'motivo', coalesce(v_e ->> 'motivo', v_e ->> 'mensagem'),
        'quantidade', coalesce((v_e ->> 'quantidade')::integer, greatest(jsonb_array_length(v_linhas), 1)),
        'linhas', v_linhas));
    else
      raise exception 'aviso inválido: %', left(v_e::text, 200) using errcode = 'XL400';
    end if;
  end loop;
  return v_out;
exception
  when invalid_text_representation or numeric_value_out_of_range then
    raise exception 'aviso com número de linha inválido: %', left(p_avisos::text, 200) using errcode = 'XL400';
end;
$function$
;

comment on function app.xls_avisos_normalizar(jsonb) is 'Normalises warnings given by the edge to the stored shape [{categoria, motivo, quantidade, linhas: [{aba, linha, valor}]}]; a plain string becomes {categoria: geral, motivo: <string>}. XL400 for anything else.';
