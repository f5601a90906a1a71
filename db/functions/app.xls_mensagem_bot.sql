CREATE OR REPLACE FUNCTION app.xls_mensagem_bot(p_id uuid)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select concat_ws(E'\n',
    case p.status when 'SUCESSO' then '✅' when 'IGNORADO' then '⚪' when 'ERRO' then '❌' else '•' end
      || ' Planilha ' || coalesce(p.tipo, 'de tipo desconhecido') || ': ' || p.status,
    'Arquivo: ' || p.arquivo,
    case when p.status = 'SUCESSO' then format('Linhas: %s enviadas, %s gravadas, %s removidas',
      coalesce(p.linhas_enviadas, 0), coalesce(p.linhas_efetivas, 0), coalesce(p.linhas_removidas, 0)) end,
    case when jsonb_array_length(p.linhas_rejeitadas) > 0
      then format('Linhas rejeitadas: %s (a primeira: %s)', jsonb_array_length(p.linhas_rejeitadas), p.linhas_rejeitadas -> 0 ->> 'mensagem') end,
    (select 'Avisos: ' || string_agg(coalesce(a ->> 'motivo', a ->> 'categoria') || coalesce(' (' || (a ->> 'quantidade') || ')', ''), '; ')
       from jsonb_array_elements(p.avisos) a),
    case when p.status in ('ERRO', 'IGNORADO') then 'Motivo: ' || coalesce(p.erro_mensagem, 'não informado') end,
    case when p.conjunto_id is not null then 'Conjunto: ' || p.conjunto_id end,
    'Processamento: ' || p.id)
  from public.xls_processamento p
  where p.id = p_id;
$function$
;

comment on function app.xls_mensagem_bot(uuid) is 'The pt-BR messaging-bot text reporting the outcome of a processing (status, type, file, row counts, rejected rows, warnings, reason).';
