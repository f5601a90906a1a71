CREATE OR REPLACE FUNCTION public.xls_falha_explicar(p_status text, p_motivo text, p_codigo text, p_rejeitadas jsonb)
 RETURNS TABLE(tipo text, resumo text, proximo_passo text)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_linhas integer[];
  v_lista text;
  v_campo text;
  v_valores text;
  v_mestre text;
  v_n integer;
begin
  if p_status = 'IGNORADO' then
    return query select 'ignorado'::text, 'Tipo de planilha não reconhecido: nada foi gravado.'::text,
      'Confira se o arquivo é uma das planilhas aceitas e se o cabeçalho não foi alterado; depois envie de novo.'::text;
    return;
  end if;
  if p_status is distinct from 'ERRO' then
    return;
  end if;
  select coalesce(t.nome, t.tipo) into v_mestre from app.xls_tipo t where t.mestre order by t.ordem limit 1;

  -- a code the file references is not registered yet (the master report registers it)
  if p_codigo in ('XL424', '23503') or p_motivo ~ ' não cadastrado em ' then
    v_campo := coalesce(substring(p_motivo from '^(.+?) não cadastrado em '), 'código');
    v_valores := substring(p_motivo from ' não cadastrado em [^:]+: (.*?)( \(falha transitória.*)?$');
    return query select 'cadastro'::text,
      format('Falta cadastro: %s %s não está cadastrado.', v_campo, coalesce(v_valores, '')),
      case when p_motivo ~ 'falha transitória: nova tentativa automática'
           then format('Nada a fazer agora: o arquivo é refeito sozinho quando o %s do mesmo envio terminar.', coalesce(v_mestre, 'relatório mestre'))
           else format('Envie primeiro o %s que cadastra o %s %s e depois clique em "Reprocessar este".', coalesce(v_mestre, 'relatório mestre'), v_campo,
                       coalesce(substring(v_valores from '^([^ ,()]+)'), '')) end;
    return;
  end if;

  -- invalid rows: the file is refused as a whole
  select array_agg(distinct (e ->> 'linha')::integer order by (e ->> 'linha')::integer) into v_linhas
    from jsonb_array_elements(case when jsonb_typeof(p_rejeitadas) = 'array' then p_rejeitadas else '[]' end) e
   where jsonb_typeof(e -> 'linha') = 'number';
  if v_linhas is null and p_motivo ~ 'linha\(s\) inválida\(s\)' then
    select array_agg(distinct m[1]::integer order by m[1]::integer) into v_linhas from regexp_matches(p_motivo, 'linha ([0-9]{1,9}):', 'g') m;
  end if;
  if v_linhas is not null then
    v_n := cardinality(v_linhas);
    v_lista := case when v_n = 1 then v_linhas[1]::text
                    when v_n <= 10 then array_to_string(v_linhas[1:v_n - 1], ', ') || ' e ' || v_linhas[v_n]
                    else array_to_string(v_linhas[1:10], ', ') || format(' e mais %s', v_n - 10) end;
    return query select 'linhas'::text,
      format('%s inválida%s: nada foi gravado.', case when v_n = 1 then 'Uma linha' else v_n || ' linhas' end, case when v_n = 1 then '' else 's' end),
      format('Corrija %s %s na planilha e envie o arquivo de novo.', case when v_n = 1 then 'a linha' else 'as linhas' end, v_lista);
    return;
  end if;

  -- not a readable spreadsheet (the reader's refusal: damaged zip, not an .xlsx, too big to read)
  if p_codigo = 'XL415' or p_motivo ~* '(formato não suportado|não é uma planilha|leitura da planilha foi interrompida)' then
    return query select 'ilegivel'::text,
      case when p_motivo ~ 'memória esgotada' then 'O arquivo é grande ou malformado demais para ser lido.'
           else 'O arquivo não é uma planilha .xlsx legível.' end,
      'Abra o arquivo no Excel ou no LibreOffice, salve de novo como .xlsx (Pasta de Trabalho do Excel) e envie outra vez.'::text;
    return;
  end if;

  -- content the type's rules refuse (a period, a position date…): the message says what
  if p_codigo = 'XL422' then
    return query select 'conteudo'::text,
      upper(left(split_part(p_motivo, E'\n', 1), 1)) || substr(split_part(p_motivo, E'\n', 1), 2),
      'Corrija a planilha conforme o motivo acima e envie o arquivo de novo.'::text;
    return;
  end if;

  return query select 'tecnica'::text, 'Falha técnica no processamento (não é um problema da planilha).'::text,
    'Clique em "Reprocessar este"; se falhar de novo, avise o suporte com o endereço desta página.'::text;
end;
$function$
;

comment on function public.xls_falha_explicar(text,text,text,jsonb) is 'How a failed processing is explained to staff (screens): its kind, a one-line summary and the next step in one sentence. Kinds: cadastro (a code the file references is not registered: send the master report that registers it first, or wait when the batch retries by itself), linhas (invalid rows: fix rows 6 and 10 and resend), ilegivel (not a readable .xlsx: save it again from Excel or LibreOffice), conteudo (XL422: the message says what), tecnica (anything else: reprocess, then call support), ignorado (status IGNORADO: type not recognised). No row for other statuses. Arguments: status, erro_mensagem, erro_codigo, linhas_rejeitadas of xls_processamento.';
