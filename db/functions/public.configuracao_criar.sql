CREATE OR REPLACE FUNCTION public.configuracao_criar(p_chave text, p_valor text, p_tipo text, p_descricao text DEFAULT NULL::text)
 RETURNS public.bi_configuracao
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.bi_configuracao;
  v_valor text;
begin
  if p_chave is null or p_chave !~ '^[a-z][a-z0-9_]{0,62}$' then
    raise exception 'chave ''%'' inválida: use letras minúsculas, dígitos e _ (começando por letra, até 63)', p_chave using errcode = 'CF400';
  end if;
  if p_tipo is null or p_tipo not in ('string', 'integer', 'boolean', 'duration') then
    raise exception 'tipo ''%'' inválido: string (texto), integer (número inteiro), boolean (sim/não) ou duration (duração)', p_tipo using errcode = 'CF400';
  end if;
  v_valor := public.configuracao_valor_normalizar(p_tipo, p_valor);
  if v_valor is null then
    raise exception 'valor ''%'' inválido: use %', coalesce(p_valor, ''), app.configuracao_tipo_dica(p_tipo) using errcode = 'CF400';
  end if;
  insert into public.bi_configuracao (chave, valor, tipo, sistema, descricao)
  values (p_chave, v_valor, p_tipo, false, nullif(btrim(p_descricao), ''))
  on conflict (chave) do nothing
  returning * into v_row;
  if v_row.id is null then
    raise exception 'a chave % já existe', p_chave using errcode = 'CF409';
  end if;
  return v_row;
end;
$function$
;

comment on function public.configuracao_criar(text,text,text,text) is 'Adds a configuration key (never a system key: sistema = false). CF400 malformed key, unknown type or value invalid for the type (the message says the type in words, with examples); the value is stored in the form configuracao_valor_normalizar gives (''5 minutos'' -> PT5M); CF409 the key already exists.';
