-- migrate:up
set local lock_timeout = '5s';

-- Status transitions of xls_processamento, one function each; the batch close with its
-- transient-FK retry; reprocessing; recovery of orphans (startup and every minute).
--
-- Lock order, everywhere: the processing row first, then its batch row. A function that
-- holds a batch row only waits on processing rows whose ERRO is committed, which no
-- transition holds while waiting for a batch: no deadlock.

create function public.xls_tipo_mestre(p_tipo text) returns boolean
language sql immutable
set search_path to pg_catalog, pg_temp
as $$ select p_tipo is not distinct from 'RELATORIO18' $$;
comment on function public.xls_tipo_mestre(text) is 'True for the master report type (RELATORIO18): the one that creates branches, sellers, customers, products and vehicles that the other types reference; its success closes its batch.';

create function public.xls_worker_vivo(p_worker text) returns boolean
language sql stable
set search_path to pg_catalog, public, pg_temp
as $$
  select exists (select from app.worker w where w.id = p_worker and w.heartbeat_at > now() - app.worker_timeout());
$$;
comment on function public.xls_worker_vivo(text) is 'True when the app.worker p_worker heartbeated within app.worker_timeout().';

create function public.xls_orfao(p_id uuid, p_worker text) returns boolean
language sql stable
set search_path to pg_catalog, public, pg_temp
as $$
  select not public.xls_worker_vivo(p_worker)
      or not exists (select from app.job j
                      where j.kind = 'xls_processar' and j.status = 'running' and j.locked_by = p_worker
                        and j.payload ->> 'id' = p_id::text);
$$;
comment on function public.xls_orfao(uuid, text) is 'True when a PROCESSANDO processing held by p_worker has nobody working on it: the worker is dead (no heartbeat within app.worker_timeout()), or it holds no running xls_processar job for it (the job ended, or was rescued and given to another worker).';

create function public.xls_avisos_normalizar(p_avisos jsonb) returns jsonb
language plpgsql immutable
set search_path to pg_catalog, public, pg_temp
as $$
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
$$;
comment on function public.xls_avisos_normalizar(jsonb) is 'Normalises warnings given by the edge to the stored shape [{categoria, motivo, quantidade, linhas: [{aba, linha, valor}]}]; a plain string becomes {categoria: geral, motivo: <string>}. XL400 for anything else.';

create function public.xls_rejeitadas_normalizar(p_linhas jsonb) returns jsonb
language plpgsql immutable
set search_path to pg_catalog, public, pg_temp
as $$
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
$$;
comment on function public.xls_rejeitadas_normalizar(jsonb) is 'Normalises the rows rejected by the reader (RowError: {linha, campo, valor, mensagem}, optional aba) to the stored shape [{aba, linha, campo, valor, mensagem}] ordered by tab and row. XL400 for anything else.';

create function public.xls_transicao_recusada(p_id uuid, p_worker text, p_destino text) returns void
language plpgsql stable
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_status text;
  v_worker text;
begin
  select p.status, p.worker into v_status, v_worker from public.xls_processamento p where p.id = p_id;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  raise exception 'processamento % está em % (worker %): o worker % não pode levá-lo a %',
    p_id, v_status, coalesce(v_worker, '-'), coalesce(p_worker, '-'), p_destino using errcode = 'XL409';
end;
$$;
comment on function public.xls_transicao_recusada(uuid, text, text) is 'Raises the refusal of a transition: XL404 when the processing does not exist, else XL409 naming its current status and worker.';

create function public.xls_conjunto_avaliar(p_conjunto_id uuid)
returns table (fechado boolean, reprocessados uuid[])
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_fechado_em timestamptz;
  v_motivo text;
  v_ids uuid[] := '{}';
  v_id uuid;
begin
  select l.fechado_em into v_fechado_em from public.xls_conjunto_lote l where l.id = p_conjunto_id for update;
  if not found or v_fechado_em is not null then
    return query select false, '{}'::uuid[];
    return;
  end if;
  select format('relatório mestre concluído: processamento %s', p.id) into v_motivo
    from public.xls_processamento p
   where p.conjunto_id = p_conjunto_id and p.status = 'SUCESSO' and public.xls_tipo_mestre(p.tipo)
   order by p.finalizado_em limit 1;
  if v_motivo is null and not exists (select from public.xls_processamento p
                                       where p.conjunto_id = p_conjunto_id and p.status in ('PENDENTE', 'PROCESSANDO')) then
    v_motivo := 'todos os processamentos do lote terminaram';
  end if;
  if v_motivo is null then
    return query select false, '{}'::uuid[];
    return;
  end if;
  update public.xls_conjunto_lote set fechado_em = now(), fechamento_motivo = v_motivo where id = p_conjunto_id;
  for v_id in
    select p.id from public.xls_processamento p
     where p.conjunto_id = p_conjunto_id and p.status = 'ERRO' and p.fk_retentar
     order by p.id for update
  loop
    if public.xls_requeue(v_id) then
      v_ids := v_ids || v_id;
    end if;
  end loop;
  return query select true, v_ids;
end;
$$;
comment on function public.xls_conjunto_avaliar(uuid) is 'Closes an open batch when its master report (RELATORIO18) is in SUCESSO, or when none of its processings is PENDENTE or PROCESSANDO any more; on closing, every item in ERRO waiting for it (fk_retentar: first transient FK failure) is reprocessed once. Returns whether this call closed the batch and the ids reprocessed. Called by the transitions; harmless to call by hand.';

create function public.xls_iniciar(p_id uuid, p_worker text)
returns table (id uuid, tipo text, arquivo text, checksum text, recebido_em timestamptz, conjunto_id uuid,
  objeto_bucket text, objeto_chave text, objeto_tamanho_bytes bigint, tem_arquivo_bytes boolean,
  log_arquivo text, execucoes integer)
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
#variable_conflict use_column
begin
  if nullif(btrim(p_worker), '') is null then
    raise exception 'worker ausente' using errcode = 'XL400';
  end if;
  return query
    with claimed as (
      update public.xls_processamento p
         set status = 'PROCESSANDO', worker = p_worker, iniciado_em = now(), finalizado_em = null,
             execucoes = p.execucoes + 1, alarmar = false
       where p.id = p_id and p.status = 'PENDENTE'
      returning p.id, p.tipo, p.arquivo, p.checksum, p.recebido_em, p.conjunto_id, p.objeto_bucket, p.objeto_chave,
                p.objeto_tamanho_bytes, p.arquivo_bytes is not null, p.log_arquivo, p.execucoes)
    select * from claimed;
  if not found and not exists (select from public.xls_processamento p where p.id = p_id) then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
end;
$$;
comment on function public.xls_iniciar(uuid, text) is 'Transition PENDENTE -> PROCESSANDO, called by the job handler with its worker id (app.worker). Returns the processing (without bytes: read arquivo_bytes apart when tem_arquivo_bytes and the storage mode reads the database), or no row when it is not PENDENTE (a stale or duplicate job: nothing to do). XL404 unknown id.';

create function public.xls_definir_tipo(p_id uuid, p_worker text, p_tipo text) returns void
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
begin
  if p_tipo is null or not public.xls_tipo_valido(p_tipo) then
    raise exception 'tipo de planilha desconhecido: %', coalesce(p_tipo, 'null') using errcode = 'XL400';
  end if;
  update public.xls_processamento p set tipo = p_tipo
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker;
  if not found then
    perform public.xls_transicao_recusada(p_id, p_worker, 'tipo ' || p_tipo);
  end if;
end;
$$;
comment on function public.xls_definir_tipo(uuid, text, text) is 'Records the detected type of a processing held (PROCESSANDO) by p_worker; call it in its own transaction right after detection, so the type survives a failed merge. XL400 unknown type, XL404 unknown id, XL409 not PROCESSANDO by this worker.';

create function public.xls_concluir(p_id uuid, p_worker text, p_linhas_rejeitadas jsonb default '[]', p_avisos jsonb default '[]')
returns table (processamento_id uuid, status text, alarmar boolean, motivo text, conjunto_fechado boolean, reprocessados uuid[])
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
#variable_conflict use_column
declare
  v_avisos jsonb := public.xls_avisos_normalizar(p_avisos);
  v_rejeitadas jsonb := public.xls_rejeitadas_normalizar(p_linhas_rejeitadas);
  v_conjunto uuid;
  v_fechado boolean := false;
  v_ids uuid[] := '{}';
begin
  update public.xls_processamento p
     set status = 'SUCESSO', finalizado_em = now(), erro_mensagem = null, alarmar = false, fk_retentar = false,
         avisos = p.avisos || v_avisos, linhas_rejeitadas = p.linhas_rejeitadas || v_rejeitadas
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
  returning p.conjunto_id into v_conjunto;
  if not found then
    perform public.xls_transicao_recusada(p_id, p_worker, 'SUCESSO');
  end if;
  if v_conjunto is not null then
    select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v_conjunto) a;
  end if;
  return query select p_id, 'SUCESSO'::text, false, null::text, v_fechado, v_ids;
end;
$$;
comment on function public.xls_concluir(uuid, text, jsonb, jsonb) is 'Transition PROCESSANDO -> SUCESSO by the worker that holds it; call it in the merge transaction, so data and status commit together. Appends p_linhas_rejeitadas and p_avisos (beyond those the merge recorded). When it is its batch''s master report (RELATORIO18), the batch closes and items waiting for it by a transient FK failure are reprocessed (listed in reprocessados). XL404 unknown id, XL409 not PROCESSANDO by this worker, XL400 malformed lists.';

create function public.xls_ignorar(p_id uuid, p_worker text, p_motivo text)
returns table (processamento_id uuid, status text, alarmar boolean, motivo text, conjunto_fechado boolean, reprocessados uuid[])
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
#variable_conflict use_column
declare
  v_conjunto uuid;
  v_fechado boolean := false;
  v_ids uuid[] := '{}';
begin
  if nullif(btrim(p_motivo), '') is null then
    raise exception 'motivo ausente' using errcode = 'XL400';
  end if;
  update public.xls_processamento p
     set status = 'IGNORADO', finalizado_em = now(), erro_mensagem = p_motivo, alarmar = false, fk_retentar = false
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
  returning p.conjunto_id into v_conjunto;
  if not found then
    perform public.xls_transicao_recusada(p_id, p_worker, 'IGNORADO');
  end if;
  if v_conjunto is not null then
    select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v_conjunto) a;
  end if;
  return query select p_id, 'IGNORADO'::text, false, p_motivo, v_fechado, v_ids;
end;
$$;
comment on function public.xls_ignorar(uuid, text, text) is 'Transition PROCESSANDO -> IGNORADO (a valid xlsx of no known type; motivo ''tipo não reconhecido''). A resend of the same file reprocesses it. XL400 without motivo, XL404 unknown id, XL409 not PROCESSANDO by this worker.';

create function public.xls_falhar(p_id uuid, p_worker text, p_motivo text, p_sqlstate text default null,
  p_linhas_rejeitadas jsonb default '[]', p_avisos jsonb default '[]')
returns table (processamento_id uuid, status text, alarmar boolean, motivo text, conjunto_fechado boolean, reprocessados uuid[])
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
#variable_conflict use_column
declare
  v_fk boolean := coalesce(p_sqlstate in ('XL424', '23503'), false);
  v_avisos jsonb := public.xls_avisos_normalizar(p_avisos);
  v_rejeitadas jsonb := public.xls_rejeitadas_normalizar(p_linhas_rejeitadas);
  v_conjunto uuid;
  v_falhas integer;
  v_fechado_em timestamptz;
  v_alarmar boolean := true;
  v_motivo text := p_motivo;
  v_fechado boolean := false;
  v_ids uuid[] := '{}';
  v_mais uuid[];
  v_status text;
begin
  if nullif(btrim(p_motivo), '') is null then
    raise exception 'motivo ausente' using errcode = 'XL400';
  end if;
  update public.xls_processamento p
     set status = 'ERRO', finalizado_em = now(), erro_mensagem = p_motivo, alarmar = true, fk_retentar = false,
         fk_falhas = p.fk_falhas + case when v_fk then 1 else 0 end,
         avisos = p.avisos || v_avisos, linhas_rejeitadas = p.linhas_rejeitadas || v_rejeitadas
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
  returning p.conjunto_id, p.fk_falhas into v_conjunto, v_falhas;
  if not found then
    perform public.xls_transicao_recusada(p_id, p_worker, 'ERRO');
  end if;

  -- Transient FK policy: inside a batch, the first failure is silent and retried once
  -- (when the batch closes, or now if it is closed already); the second alarms. A loose
  -- file alarms at once.
  if v_fk and v_conjunto is not null and v_falhas = 1 then
    v_alarmar := false;
    select l.fechado_em into v_fechado_em from public.xls_conjunto_lote l where l.id = v_conjunto for update;
    if v_fechado_em is null then
      v_motivo := p_motivo || ' (falha transitória: nova tentativa automática quando o relatório mestre do lote for concluído)';
      update public.xls_processamento p set alarmar = false, fk_retentar = true, erro_mensagem = v_motivo where p.id = p_id;
    else
      update public.xls_processamento p set alarmar = false where p.id = p_id;
      perform public.xls_requeue(p_id);
      v_ids := array[p_id];
      v_motivo := p_motivo || ' (falha transitória: nova tentativa automática agora)';
    end if;
  end if;

  if v_conjunto is not null then
    select a.fechado, a.reprocessados into v_fechado, v_mais from public.xls_conjunto_avaliar(v_conjunto) a;
    v_ids := v_ids || v_mais;
  end if;
  select p.status into v_status from public.xls_processamento p where p.id = p_id;
  return query select p_id, v_status, v_alarmar, v_motivo, v_fechado, v_ids;
end;
$$;
comment on function public.xls_falhar(uuid, text, text, text, jsonb, jsonb) is 'Transition PROCESSANDO -> ERRO by the worker that holds it, in its own transaction after the failed one rolled back. p_sqlstate: the SQLSTATE of the failure, if any; XL424 (or 23503) is a transient foreign-key failure: inside a batch the first one is silent (alarmar false) and the item is reprocessed once when the batch closes, or at once (status PENDENTE in the result) when it is closed already; the second alarms; a loose file alarms at once. Every other failure alarms. XL400 without motivo or malformed lists, XL404 unknown id, XL409 not PROCESSANDO by this worker.';

create function public.xls_reprocessar(p_id uuid) returns uuid[]
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_status text;
begin
  select p.status into v_status from public.xls_processamento p where p.id = p_id for update;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  if v_status <> 'ERRO' then
    raise exception 'processamento % está em %: só um processamento em ERRO pode ser reprocessado', p_id, v_status
      using errcode = 'XL409';
  end if;
  perform public.xls_requeue(p_id);
  return array[p_id];
end;
$$;
comment on function public.xls_reprocessar(uuid) is 'Reprocess button, one processing: ERRO -> PENDENTE from the stored file (no resend), job queued. Returns {id}. XL404 unknown id; XL409 when not in ERRO (SUCESSO, PENDENTE, PROCESSANDO, IGNORADO), so a double click changes nothing.';

create function public.xls_reprocessar_conjunto(p_conjunto_id uuid) returns uuid[]
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_ids uuid[] := '{}';
  v_id uuid;
begin
  if not exists (select from public.xls_conjunto_lote l where l.id = p_conjunto_id) then
    raise exception 'lote % não existe', p_conjunto_id using errcode = 'XL404';
  end if;
  for v_id in
    select p.id from public.xls_processamento p
     where p.conjunto_id = p_conjunto_id and p.status = 'ERRO'
     order by p.recebido_em, p.id for update skip locked
  loop
    if public.xls_requeue(v_id) then
      v_ids := v_ids || v_id;
    end if;
  end loop;
  return v_ids;
end;
$$;
comment on function public.xls_reprocessar_conjunto(uuid) is 'Reprocess button, the errors of a batch: every processing of the batch in ERRO -> PENDENTE. Returns the ids reprocessed (possibly none). XL404 unknown batch.';

create function public.xls_reprocessar_erros(p_tipo text default null) returns uuid[]
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_ids uuid[] := '{}';
  v_id uuid;
begin
  if p_tipo is not null and not public.xls_tipo_valido(p_tipo) then
    raise exception 'tipo de planilha desconhecido: %', p_tipo using errcode = 'XL400';
  end if;
  for v_id in
    select p.id from public.xls_processamento p
     where p.status = 'ERRO' and (p_tipo is null or p.tipo = p_tipo)
     order by p.recebido_em, p.id for update skip locked
  loop
    if public.xls_requeue(v_id) then
      v_ids := v_ids || v_id;
    end if;
  end loop;
  return v_ids;
end;
$$;
comment on function public.xls_reprocessar_erros(text) is 'Reprocess button of the list filtered by ERRO: every processing in ERRO (of type p_tipo when given) -> PENDENTE. Returns the ids reprocessed (possibly none). XL400 unknown type.';

create function public.xls_recuperar()
returns table (orfaos uuid[], reenfileirados uuid[], conjuntos_fechados uuid[])
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_orfaos uuid[] := '{}';
  v_reenf uuid[] := '{}';
  v_conjuntos uuid[] := '{}';
  v record;
  v_fechado boolean;
  v_ids uuid[];
begin
  -- PROCESSANDO whose worker is dead (or holds no job for it) -> ERRO. Processings of live
  -- replicas are left alone, so one replica's restart never fails another's work.
  for v in
    select p.id, p.worker, p.conjunto_id from public.xls_processamento p
     where p.status = 'PROCESSANDO' and public.xls_orfao(p.id, p.worker)
     order by p.id for update skip locked
  loop
    update public.xls_processamento p
       set status = 'ERRO', finalizado_em = now(), alarmar = true, fk_retentar = false,
           erro_mensagem = format('processamento interrompido: o worker %s parou (queda ou reinício da aplicação); use Reprocessar', v.worker)
     where p.id = v.id;
    v_orfaos := v_orfaos || v.id;
    if v.conjunto_id is not null then
      select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v.conjunto_id) a;
      if v_fechado then v_conjuntos := v_conjuntos || v.conjunto_id; end if;
      v_reenf := v_reenf || v_ids;
    end if;
  end loop;

  -- PENDENTE without a queued or running job -> queued again.
  for v in
    select p.id from public.xls_processamento p
     where p.status = 'PENDENTE'
       and not exists (select from app.job j
                        where j.kind = 'xls_processar' and j.status in ('pending', 'running')
                          and j.payload ->> 'id' = p.id::text)
     order by p.recebido_em, p.id for update skip locked
  loop
    perform public.xls_enfileirar(v.id);
    v_reenf := v_reenf || v.id;
  end loop;

  -- open batches that can close (a safety net: transitions normally close them)
  for v in
    select l.id from public.xls_conjunto_lote l where l.fechado_em is null order by l.recebido_em for update skip locked
  loop
    select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v.id) a;
    if v_fechado then v_conjuntos := v_conjuntos || v.id; end if;
    v_reenf := v_reenf || v_ids;
  end loop;

  return query select v_orfaos, v_reenf, v_conjuntos;
end;
$$;
comment on function public.xls_recuperar() is 'Orphan recovery, at application startup and every minute (pg_cron job xls_recuperar): PROCESSANDO held by a dead worker (app.worker heartbeat older than app.worker_timeout(), or no running job of its own) -> ERRO (alarmar); PENDENTE without a queued job -> queued again; open batches that can close are closed (with their FK retry). With several replicas only dead workers'' processings are touched. Returns what it did.';

select app.schedule('xls_recuperar', '* * * * *', 'select public.xls_recuperar()');

-- migrate:down
set local lock_timeout = '5s';
select app.unschedule('xls_recuperar');
drop function public.xls_recuperar();
drop function public.xls_reprocessar_erros(text);
drop function public.xls_reprocessar_conjunto(uuid);
drop function public.xls_reprocessar(uuid);
drop function public.xls_falhar(uuid, text, text, text, jsonb, jsonb);
drop function public.xls_ignorar(uuid, text, text);
drop function public.xls_concluir(uuid, text, jsonb, jsonb);
drop function public.xls_definir_tipo(uuid, text, text);
drop function public.xls_iniciar(uuid, text);
drop function public.xls_conjunto_avaliar(uuid);
drop function public.xls_transicao_recusada(uuid, text, text);
drop function public.xls_rejeitadas_normalizar(jsonb);
drop function public.xls_avisos_normalizar(jsonb);
drop function public.xls_orfao(uuid, text);
drop function public.xls_worker_vivo(text);
drop function public.xls_tipo_mestre(text);
