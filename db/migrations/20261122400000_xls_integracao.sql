-- migrate:up
set local lock_timeout = '5s';

create function public.xls_mensagem_bot(p_id uuid) returns text
language sql stable
set search_path to pg_catalog, public, pg_temp
as $$
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
    case when p.conjunto_id is not null then 'Lote: ' || p.conjunto_id end,
    'Processamento: ' || p.id)
  from public.xls_processamento p
  where p.id = p_id;
$$;
comment on function public.xls_mensagem_bot(uuid) is 'The pt-BR messaging-bot text reporting the outcome of a processing (status, type, file, row counts, rejected rows, warnings, reason).';

create function public.tg_xls_processamento__notificar_bot() returns trigger
language plpgsql
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_status text;
  v_alarmar boolean;
begin
  -- deferred to COMMIT: the transition functions adjust the row after setting the status
  -- (e.g. a silent first transient-FK failure clears alarmar), so decide on the final row
  select p.status, p.alarmar into v_status, v_alarmar from public.xls_processamento p where p.id = new.id;
  if v_status in ('SUCESSO', 'IGNORADO') or (v_status = 'ERRO' and v_alarmar) then
    perform app.notificar_bot(public.xls_mensagem_bot(new.id));
  end if;
  return null;
end;
$$;
comment on function public.tg_xls_processamento__notificar_bot() is 'Queues the messaging-bot message of every outcome (SUCESSO, IGNORADO, and ERRO that alarms; a silent first transient-FK failure is not announced). A deferred trigger: it decides at COMMIT on the final row, and the message goes out if and only if the outcome commits.';

create constraint trigger _900_notificar_bot after update of status on public.xls_processamento
  deferrable initially deferred
  for each row
  when (old.status is distinct from new.status and new.status in ('SUCESSO', 'ERRO', 'IGNORADO'))
  execute function public.tg_xls_processamento__notificar_bot();

-- Storage backfill: legacy rows that only have the bytes in the column.
create function public.xls_backfill_pendentes(p_limite integer default 100, p_apos uuid default null)
returns table (id uuid, checksum text, objeto_chave text, objeto_tamanho_bytes bigint)
language sql stable
set search_path to pg_catalog, public, pg_temp
as $$
  select p.id, p.checksum, public.xls_objeto_chave(p.checksum, p.recebido_em), octet_length(p.arquivo_bytes)::bigint
    from public.xls_processamento p
   where p.objeto_chave is null and p.arquivo_bytes is not null
     and (p_apos is null or p.id > p_apos)
   order by p.id
   limit p_limite;
$$;
comment on function public.xls_backfill_pendentes(integer, uuid) is 'Legacy processings whose original lives only in arquivo_bytes, with the content-addressed key they get in the object store; keyset-paged by id.';

create function public.xls_backfill_registrar(p_id uuid, p_bucket text, p_limpar_coluna boolean) returns boolean
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
begin
  update public.xls_processamento p
     set objeto_bucket = p_bucket,
         objeto_chave = public.xls_objeto_chave(p.checksum, p.recebido_em),
         objeto_tamanho_bytes = coalesce(p.objeto_tamanho_bytes, octet_length(p.arquivo_bytes)),
         arquivo_bytes = case when p_limpar_coluna then null else p.arquivo_bytes end
   where p.id = p_id and p.objeto_chave is null and p.arquivo_bytes is not null;
  return found;
end;
$$;
comment on function public.xls_backfill_registrar(uuid, text, boolean) is 'Records that the original of a legacy processing was copied to the object store (call after the put succeeded). With p_limpar_coluna (storage mode OBJSTORE) the column is emptied. Idempotent: false when already done.';

-- migrate:down
set local lock_timeout = '5s';
drop function public.xls_backfill_registrar(uuid, text, boolean);
drop function public.xls_backfill_pendentes(integer, uuid);
drop trigger _900_notificar_bot on public.xls_processamento;
drop function public.tg_xls_processamento__notificar_bot();
drop function public.xls_mensagem_bot(uuid);
