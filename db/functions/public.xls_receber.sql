-- the signature before p_extensao (the format's extension of the object key)
drop function if exists public.xls_receber(text,text,bigint,text,bytea,uuid,text,text);

CREATE OR REPLACE FUNCTION public.xls_receber(p_arquivo text, p_checksum text, p_tamanho_bytes bigint, p_objeto_bucket text DEFAULT NULL::text, p_arquivo_bytes bytea DEFAULT NULL::bytea, p_conjunto_id uuid DEFAULT NULL::uuid, p_uploader_id text DEFAULT NULL::text, p_uploader_nome text DEFAULT NULL::text, p_extensao text DEFAULT 'xlsx'::text)
 RETURNS TABLE(arquivo text, processamento_id uuid, status text, motivo text, objeto_chave text, armazenar_objeto boolean)
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
#variable_conflict use_column
declare
  v_checksum text := lower(btrim(p_checksum));
  v_arquivo text := nullif(btrim(p_arquivo), '');
  v_agora timestamptz := now();
  v_id uuid := app.uuid_v7();
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
    perform 1 from public.xls_conjunto l where l.id = p_conjunto_id;
    if not found then
      raise exception 'conjunto % não existe', p_conjunto_id using errcode = 'XL404';
    end if;
    if exists (select from public.xls_conjunto l where l.id = p_conjunto_id and l.fechado_em is not null) then
      raise exception 'conjunto % já foi fechado; envie os arquivos num novo conjunto (zip)', p_conjunto_id using errcode = 'XL409';
    end if;
  end if;

  -- Race-free dedup: a concurrent receipt of the same checksum waits on the unique
  -- index until the first transaction ends, then finds its row below.
  insert into public.xls_processamento as p (id, status, arquivo, checksum, recebido_em, conjunto_id,
      objeto_bucket, objeto_chave, objeto_tamanho_bytes, arquivo_bytes, log_arquivo, uploader_id, uploader_nome)
  values (v_id, 'PENDENTE', v_arquivo, v_checksum, v_agora, p_conjunto_id,
      p_objeto_bucket, case when p_objeto_bucket is not null then public.xls_objeto_chave(v_checksum, v_agora, p_extensao) end,
      p_tamanho_bytes, p_arquivo_bytes, public.xls_log_arquivo(v_id, v_agora), p_uploader_id, p_uploader_nome)
  on conflict (checksum) do nothing
  returning p.id, p.objeto_chave into v_proc, v_chave;

  if v_proc is not null then
    v_status := 'ENFILEIRADO';
    v_armazenar := v_chave is not null;
    perform app.xls_enfileirar(v_proc);
  else
    select p.id, p.status, p.objeto_chave, p.recebido_em into v_existente
      from public.xls_processamento p where p.checksum = v_checksum for update;
    if v_existente.status = 'ERRO' and app.xls_fk_aguardando(v_existente.id) is not null then
      -- it waits for its batch's master report (first transient FK failure): running it now
      -- would fail again and use up its one retry; the batch close reprocesses it
      v_proc := v_existente.id;
      v_chave := v_existente.objeto_chave;
      update public.xls_processamento p
         set arquivo = v_arquivo, uploader_id = p_uploader_id, uploader_nome = p_uploader_nome,
             arquivo_bytes = case when p.arquivo_bytes is null and p.objeto_chave is null then p_arquivo_bytes else p.arquivo_bytes end
       where p.id = v_proc;
      v_status := 'REPROCESSANDO';
      v_motivo := format('mesmo arquivo do processamento %s, que aguarda o relatório mestre do conjunto %s (falha transitória de chave estrangeira): será reprocessado quando ele concluir',
                         v_proc, app.xls_fk_aguardando(v_proc));
    elsif v_existente.status in ('ERRO', 'IGNORADO') then
      v_proc := v_existente.id;
      v_chave := coalesce(v_existente.objeto_chave,
        case when p_objeto_bucket is not null then public.xls_objeto_chave(v_checksum, v_existente.recebido_em, p_extensao) end);
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
      perform app.xls_requeue(v_proc, array['ERRO', 'IGNORADO']);
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
    perform app.xls_conjunto_item_registrar(p_conjunto_id, v_arquivo, v_status, v_proc, v_motivo);
  end if;

  return query select v_arquivo, v_proc, v_status, v_motivo, v_chave, v_armazenar;
end;
$function$
;

comment on function public.xls_receber(text,text,bigint,text,bytea,uuid,text,text,text) is 'Receives one spreadsheet (loose, or an entry of batch p_conjunto_id; p_extensao: its format read from its content, xlsx, xls or ods, the extension of its object key) and decides by checksum: new file -> ENFILEIRADO (processing created, job queued); same checksum in ERRO or IGNORADO -> REPROCESSANDO (that record back to PENDENTE, job queued; but a record in ERRO waiting for its open batch after a first transient FK failure keeps waiting and is reprocessed when the batch closes, app.xls_fk_aguardando); in SUCESSO, PENDENTE or PROCESSANDO -> DUPLICADO (nothing stored, processamento_id null, motivo names the existing id). p_objeto_bucket: the bucket when the storage mode uses the object store (else null); p_arquivo_bytes: the bytes when it uses the database column (else null). Returns objeto_chave and armazenar_objeto: when true, the caller must put the bytes at objeto_chave before committing (rollback on failure: nothing stays). Errors: XL400 bad arguments, XL404 unknown batch, XL409 batch closed.';
