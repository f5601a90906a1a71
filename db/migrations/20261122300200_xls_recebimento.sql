-- migrate:up
set local lock_timeout = '5s';

-- Receipt of uploads: dedup by checksum (race-free through the unique index on
-- xls_processamento.checksum), the batch and its entries, the job enqueued in the same
-- transaction.

create function public.xls_objeto_chave(p_checksum text, p_em timestamptz default now()) returns text
language sql stable
set search_path to pg_catalog, pg_temp
as $$
  select to_char(p_em at time zone 'America/Sao_Paulo', 'YYYY/MM') || '/' || lower(p_checksum) || '.xlsx';
$$;
comment on function public.xls_objeto_chave(text, timestamptz) is 'Object-store key of a file: <yyyy>/<mm>/<checksum>.xlsx, month of p_em in America/Sao_Paulo (content-addressed: the same file always gets the same key within a month).';

create function public.xls_log_arquivo(p_id uuid, p_em timestamptz) returns text
language sql stable
set search_path to pg_catalog, pg_temp
as $$
  select to_char(p_em at time zone 'America/Sao_Paulo', 'YYYY/MM') || '/' || p_id::text || '.log';
$$;
comment on function public.xls_log_arquivo(uuid, timestamptz) is 'Execution-log path of a processing relative to APP_LOGS_DIR: <yyyy>/<mm>/<id>.log, month of its receipt in America/Sao_Paulo.';

-- Jobs of a processing are found by payload id (recovery, DBA queries).
create index xls_job_processamento_idx on app.job ((payload ->> 'id')) where kind = 'xls_processar';

create function public.xls_enfileirar(p_id uuid) returns bigint
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_job bigint;
begin
  v_job := app.enqueue('xls_processar', jsonb_build_object('id', p_id), now(), p_id::text);
  if v_job is null and not exists (
      select from app.job j
       where j.kind = 'xls_processar' and j.unique_key = p_id::text and j.status = 'pending') then
    -- The key is held by a running job that is finishing an earlier run of this
    -- processing (it just failed, or its batch closed meanwhile): queue a follow-up
    -- without key. A duplicate is harmless: only one job can move PENDENTE -> PROCESSANDO.
    v_job := app.enqueue('xls_processar', jsonb_build_object('id', p_id), now(), null);
  end if;
  return v_job;
end;
$$;
comment on function public.xls_enfileirar(uuid) is 'Queues the job xls_processar {id} (unique key = id) inside the caller''s transaction; when a running job still holds the key (it is finishing the previous run), queues a follow-up without key. Returns the job id, or null when a pending job already exists.';

create function public.xls_requeue(p_id uuid, p_de text[] default array['ERRO']) returns boolean
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
begin
  update public.xls_processamento
     set status = 'PENDENTE', iniciado_em = null, finalizado_em = null, worker = null, erro_mensagem = null,
         avisos = '[]', linhas_rejeitadas = '[]', metricas = null,
         linhas_enviadas = null, linhas_efetivas = null, linhas_removidas = null,
         fk_retentar = false, alarmar = false
   where id = p_id and status = any(p_de);
  if not found then
    return false;
  end if;
  perform public.xls_enfileirar(p_id);
  return true;
end;
$$;
comment on function public.xls_requeue(uuid, text[]) is 'Internal transition shared by resend, reprocess buttons and the batch FK retry: puts a processing whose status is in p_de (default ERRO) back to PENDENTE, clears the results of the previous run (metrics, warnings, rejected rows, error) and queues its job. False (nothing done) when the status is not in p_de. Callers check and lock.';

create function public.xls_conjunto_abrir(p_arquivo text, p_uploader_id text default null, p_uploader_nome text default null)
returns uuid
language sql volatile
set search_path to pg_catalog, public, pg_temp
as $$
  insert into public.xls_conjunto_lote (arquivo, uploader_id, uploader_nome)
  values (nullif(btrim(p_arquivo), ''), p_uploader_id, p_uploader_nome)
  returning id;
$$;
comment on function public.xls_conjunto_abrir(text, text, text) is 'Creates a batch for an uploaded .zip and returns its id. Then call xls_receber / xls_receber_ignorado once per entry (in zip order) and xls_conjunto_recebido, all in the same transaction.';

create function public.xls_conjunto_item_registrar(p_conjunto_id uuid, p_arquivo text, p_status text,
  p_processamento_id uuid, p_motivo text) returns integer
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_ordem integer;
  v_fechado timestamptz;
begin
  update public.xls_conjunto_lote set total = total + 1 where id = p_conjunto_id
  returning total, fechado_em into v_ordem, v_fechado;
  if not found then
    raise exception 'lote % não existe', p_conjunto_id using errcode = 'XL404';
  end if;
  if v_fechado is not null then
    raise exception 'lote % já foi fechado; envie os arquivos num novo lote', p_conjunto_id using errcode = 'XL409';
  end if;
  insert into public.xls_conjunto_item (conjunto_id, ordem, arquivo, status, processamento_id, motivo)
  values (p_conjunto_id, v_ordem, p_arquivo, p_status, p_processamento_id, p_motivo);
  return v_ordem;
end;
$$;
comment on function public.xls_conjunto_item_registrar(uuid, text, text, uuid, text) is 'Internal to the receipt: appends one entry to a batch (ordem = position in the zip) and counts it in total. XL404 unknown batch, XL409 batch already closed.';

create function public.xls_receber(
  p_arquivo text,
  p_checksum text,
  p_tamanho_bytes bigint,
  p_objeto_bucket text default null,
  p_arquivo_bytes bytea default null,
  p_conjunto_id uuid default null,
  p_uploader_id text default null,
  p_uploader_nome text default null)
returns table (arquivo text, processamento_id uuid, status text, motivo text, objeto_chave text, armazenar_objeto boolean)
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
#variable_conflict use_column
declare
  v_checksum text := lower(btrim(p_checksum));
  v_arquivo text := nullif(btrim(p_arquivo), '');
  v_agora timestamptz := now();
  v_id uuid := gen_random_uuid();
  v_existente record;
  v_status text;
  v_motivo text;
  v_chave text;
  v_armazenar boolean := false;
  v_proc uuid;
begin
  if v_arquivo is null then
    raise exception 'nome do arquivo ausente' using errcode = 'XL400';
  end if;
  if v_checksum is null or v_checksum !~ '^[0-9a-f]{64}$' then
    raise exception 'checksum inválido: esperado SHA-256 em hexadecimal (64 dígitos), recebido %', coalesce(p_checksum, 'null')
      using errcode = 'XL400';
  end if;
  if p_tamanho_bytes is null or p_tamanho_bytes < 0 then
    raise exception 'tamanho do arquivo inválido: %', coalesce(p_tamanho_bytes::text, 'null') using errcode = 'XL400';
  end if;
  if p_objeto_bucket is null and p_arquivo_bytes is null then
    raise exception 'o arquivo precisa ser guardado no object store (bucket) ou no banco (arquivo_bytes)' using errcode = 'XL400';
  end if;

  if p_conjunto_id is not null then
    perform 1 from public.xls_conjunto_lote l where l.id = p_conjunto_id;
    if not found then
      raise exception 'lote % não existe', p_conjunto_id using errcode = 'XL404';
    end if;
    if exists (select from public.xls_conjunto_lote l where l.id = p_conjunto_id and l.fechado_em is not null) then
      raise exception 'lote % já foi fechado; envie os arquivos num novo lote', p_conjunto_id using errcode = 'XL409';
    end if;
  end if;

  -- Race-free dedup: a concurrent receipt of the same checksum waits on the unique
  -- index until the first transaction ends, then finds its row below.
  insert into public.xls_processamento as p (id, status, arquivo, checksum, recebido_em, conjunto_id,
      objeto_bucket, objeto_chave, objeto_tamanho_bytes, arquivo_bytes, log_arquivo, uploader_id, uploader_nome)
  values (v_id, 'PENDENTE', v_arquivo, v_checksum, v_agora, p_conjunto_id,
      p_objeto_bucket, case when p_objeto_bucket is not null then public.xls_objeto_chave(v_checksum, v_agora) end,
      p_tamanho_bytes, p_arquivo_bytes, public.xls_log_arquivo(v_id, v_agora), p_uploader_id, p_uploader_nome)
  on conflict (checksum) do nothing
  returning p.id, p.objeto_chave into v_proc, v_chave;

  if v_proc is not null then
    v_status := 'ENFILEIRADO';
    v_armazenar := v_chave is not null;
    perform public.xls_enfileirar(v_proc);
  else
    select p.id, p.status, p.objeto_chave, p.recebido_em into v_existente
      from public.xls_processamento p where p.checksum = v_checksum for update;
    if v_existente.status in ('ERRO', 'IGNORADO') then
      v_proc := v_existente.id;
      v_chave := coalesce(v_existente.objeto_chave,
        case when p_objeto_bucket is not null then public.xls_objeto_chave(v_checksum, v_existente.recebido_em) end);
      v_armazenar := v_existente.objeto_chave is null and v_chave is not null;
      update public.xls_processamento p
         set arquivo = v_arquivo, conjunto_id = p_conjunto_id,
             uploader_id = p_uploader_id, uploader_nome = p_uploader_nome,
             fk_falhas = 0,
             objeto_bucket = case when v_armazenar then p_objeto_bucket else p.objeto_bucket end,
             objeto_chave = v_chave,
             objeto_tamanho_bytes = coalesce(p.objeto_tamanho_bytes, p_tamanho_bytes),
             arquivo_bytes = case when p.arquivo_bytes is null then p_arquivo_bytes else p.arquivo_bytes end
       where p.id = v_proc;
      perform public.xls_requeue(v_proc, array['ERRO', 'IGNORADO']);
      v_status := 'REPROCESSANDO';
      v_motivo := format('mesmo arquivo do processamento %s, que estava em %s: reprocessado', v_proc, v_existente.status);
    else
      v_status := 'DUPLICADO';
      v_motivo := format('arquivo já recebido: processamento %s (%s)', v_existente.id, v_existente.status);
      v_chave := null;
      v_proc := null;
    end if;
  end if;

  if p_conjunto_id is not null then
    perform public.xls_conjunto_item_registrar(p_conjunto_id, v_arquivo, v_status, v_proc, v_motivo);
  end if;

  return query select v_arquivo, v_proc, v_status, v_motivo, v_chave, v_armazenar;
end;
$$;
comment on function public.xls_receber(text, text, bigint, text, bytea, uuid, text, text) is 'Receives one .xlsx (loose, or an entry of batch p_conjunto_id) and decides by checksum: new file -> ENFILEIRADO (processing created, job queued); same checksum in ERRO or IGNORADO -> REPROCESSANDO (that record back to PENDENTE, job queued); in SUCESSO, PENDENTE or PROCESSANDO -> DUPLICADO (nothing stored, processamento_id null, motivo names the existing id). p_objeto_bucket: the bucket when the storage mode uses the object store (else null); p_arquivo_bytes: the bytes when it uses the database column (else null). Returns objeto_chave and armazenar_objeto: when true, the caller must put the bytes at objeto_chave before committing (rollback on failure: nothing stays). Errors: XL400 bad arguments, XL404 unknown batch, XL409 batch closed.';

create function public.xls_receber_ignorado(p_conjunto_id uuid, p_arquivo text, p_motivo text)
returns table (arquivo text, processamento_id uuid, status text, motivo text)
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
begin
  if p_conjunto_id is null then
    raise exception 'entrada ignorada fora de um lote: recuse o arquivo avulso na borda' using errcode = 'XL400';
  end if;
  if nullif(btrim(p_motivo), '') is null then
    raise exception 'motivo ausente para a entrada ignorada %', p_arquivo using errcode = 'XL400';
  end if;
  perform public.xls_conjunto_item_registrar(p_conjunto_id, coalesce(nullif(btrim(p_arquivo), ''), '(sem nome)'), 'IGNORADO', null, p_motivo);
  return query select coalesce(nullif(btrim(p_arquivo), ''), '(sem nome)'), null::uuid, 'IGNORADO'::text, p_motivo;
end;
$$;
comment on function public.xls_receber_ignorado(uuid, text, text) is 'Records an entry of a batch that is not an .xlsx (PDF, __MACOSX/, ~$ lock file...) with status IGNORADO and its reason; no processing. XL400 without batch or reason, XL404 unknown batch.';

create function public.xls_conjunto_recebido(p_conjunto_id uuid)
returns table (ordem integer, arquivo text, processamento_id uuid, status text, motivo text)
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
#variable_conflict use_column
begin
  perform 1 from public.xls_conjunto_lote l where l.id = p_conjunto_id for update;
  if not found then
    raise exception 'lote % não existe', p_conjunto_id using errcode = 'XL404';
  end if;
  -- a batch whose entries generated no processing has nothing to wait for
  update public.xls_conjunto_lote l
     set fechado_em = now(), fechamento_motivo = 'nenhuma entrada gerou processamento'
   where l.id = p_conjunto_id and l.fechado_em is null
     and not exists (select from public.xls_processamento p where p.conjunto_id = l.id);
  return query
    select i.ordem, i.arquivo, i.processamento_id, i.status, i.motivo
      from public.xls_conjunto_item i where i.conjunto_id = p_conjunto_id order by i.ordem;
end;
$$;
comment on function public.xls_conjunto_recebido(uuid) is 'Ends the receipt of a batch (call last, in the receipt transaction): closes it at once when no entry generated a processing, and returns its entries in zip order (the receipt response: total = number of entries; 202 when any is ENFILEIRADO or REPROCESSANDO). XL404 unknown batch.';

-- migrate:down
set local lock_timeout = '5s';
drop function public.xls_conjunto_recebido(uuid);
drop function public.xls_receber_ignorado(uuid, text, text);
drop function public.xls_receber(text, text, bigint, text, bytea, uuid, text, text);
drop function public.xls_conjunto_item_registrar(uuid, text, text, uuid, text);
drop function public.xls_conjunto_abrir(text, text, text);
drop function public.xls_requeue(uuid, text[]);
drop function public.xls_enfileirar(uuid);
drop index app.xls_job_processamento_idx;
drop function public.xls_log_arquivo(uuid, timestamptz);
drop function public.xls_objeto_chave(text, timestamptz);
