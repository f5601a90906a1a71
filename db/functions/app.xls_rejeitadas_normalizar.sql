CREATE OR REPLACE FUNCTION app.xls_rejeitadas_normalizar(p_linhas jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_out jsonb;
begin
  if p_linhas is null or jsonb_typeof(p_linhas) = 'null' then
    return '[]';
  end if;
  if jsonb_typeof(p_linhas) <> 'array' then
    raise exception 'linhas_rejeitadas deve ser uma lista JSON' using errcode = 'XL400';
  end if;
  if exists (select from jsonb_array_elements(p_linhas) e
              where jsonb_typeof(e) <> 'object' or jsonb_typeof(e -> 'linha') <> 'number') then
    raise exception 'linha rejeitada inválida: cada item precisa de {linha, campo, valor, mensagem}' using errcode = 'XL400';
  end if;
  select coalesce(jsonb_agg(jsonb_build_object(
           'aba', e ->> 'aba',
           'linha', (e ->> 'linha')::integer,
           'campo', e ->> 'campo',
           'valor', e ->> 'valor',
           'mensagem', coalesce(e ->> 'mensagem',
                                format('linha %s: %s ''%s'' inválido', e ->> 'linha', e ->> 'campo', coalesce(e ->> 'valor', '')))
         ) order by e ->> 'aba' nulls first, (e ->> 'linha')::integer), '[]')
    into v_out
    from jsonb_array_elements(p_linhas) e;
  return v_out;
exception
  when invalid_text_representation or numeric_value_out_of_range then
    raise exception 'linha rejeitada com número inválido' using errcode = 'XL400';
end;
$function$
;

comment on function app.xls_rejeitadas_normalizar(jsonb) is 'Normalises the rows rejected by the reader (RowError: {linha, campo, valor, mensagem}, optional aba) to the stored shape [{aba, linha, campo, valor, mensagem}] ordered by tab and row. XL400 for anything else.';
