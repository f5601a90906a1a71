-- migrate:up
-- Internal helpers of the spreadsheet intake move from public to app (public keeps what a DBA
-- calls: entry points and views). Their new text lives in db/functions/app.<name>.sql; the
-- callers' files call app.<name>.
drop function public.xls_r18_periodo(jsonb);
drop function public.xls_staging_exigir(text);
drop function public.xls_travar(text[]);
drop function public.xls_avisos_normalizar(jsonb);
drop function public.xls_rejeitadas_normalizar(jsonb);
drop function public.xls_requeue(uuid,text[]);
drop function public.xls_enfileirar(uuid);
drop function public.xls_conjunto_item_registrar(uuid,text,text,uuid,text);
drop function public.xls_transicao_recusada(uuid,text,text);

-- migrate:down
CREATE OR REPLACE FUNCTION public.xls_r18_periodo(p_meta jsonb, OUT inicio date, OUT fim date)
 RETURNS record
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  begin
    inicio := (p_meta ->> 'periodo_inicio')::date;
    fim := (p_meta ->> 'periodo_fim')::date;
  exception when data_exception then
    raise exception 'período do relatório inválido (aba 10, células E1 e F1): % a %',
      coalesce(p_meta ->> 'periodo_inicio', '?'), coalesce(p_meta ->> 'periodo_fim', '?') using errcode = 'XL422';
  end;
  if inicio is null or fim is null then
    raise exception 'período do relatório ausente (aba 10, células E1 e F1)' using errcode = 'XL422';
  end if;
  if fim < inicio then
    raise exception 'período do relatório inválido: fim % antes do início %', fim, inicio using errcode = 'XL422';
  end if;
end;
$function$
;

comment on function public.xls_r18_periodo(jsonb) is 'The RELATORIO18 period of p_meta (periodo_inicio, periodo_fim: tab 10, cells E1/F1), checked. XL422 when missing, unreadable or ending before it starts.';

CREATE OR REPLACE FUNCTION public.xls_staging_exigir(p_tipo text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_staging text;
begin
  for v_staging in select distinct d.staging from public.xls_staging_definicao(p_tipo) d loop
    if to_regclass('pg_temp.xls_stg_' || v_staging) is null then
      raise exception 'staging % ausente: chame xls_staging_preparar(%) e o COPY na mesma transação do merge', v_staging, p_tipo
        using errcode = 'XL500';
    end if;
  end loop;
end;
$function$
;

comment on function public.xls_staging_exigir(text) is 'Raises XL500 unless every staging temp table of the type exists in this transaction.';

CREATE OR REPLACE FUNCTION public.xls_travar(p_tabelas text[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_tabela text;
begin
  for v_tabela in select distinct t from unnest(p_tabelas) t order by t loop
    perform pg_advisory_xact_lock(hashtextextended('xls_merge:' || v_tabela, 0));
  end loop;
end;
$function$
;

comment on function public.xls_travar(text[]) is 'Serialises merges that delete within a scope of the same tables: one transaction advisory lock per table name (taken in name order, released at commit). Reading, parsing and COPY of concurrent processings still run in parallel.';

CREATE OR REPLACE FUNCTION public.xls_avisos_normalizar(p_avisos jsonb)
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

comment on function public.xls_avisos_normalizar(jsonb) is 'Normalises warnings given by the edge to the stored shape [{categoria, motivo, quantidade, linhas: [{aba, linha, valor}]}]; a plain string becomes {categoria: geral, motivo: <string>}. XL400 for anything else.';

CREATE OR REPLACE FUNCTION public.xls_rejeitadas_normalizar(p_linhas jsonb)
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

comment on function public.xls_rejeitadas_normalizar(jsonb) is 'Normalises the rows rejected by the reader (RowError: {linha, campo, valor, mensagem}, optional aba) to the stored shape [{aba, linha, campo, valor, mensagem}] ordered by tab and row. XL400 for anything else.';

CREATE OR REPLACE FUNCTION public.xls_requeue(p_id uuid, p_de text[] DEFAULT ARRAY['ERRO'::text])
 RETURNS boolean
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.xls_requeue(uuid,text[]) is 'Internal transition shared by resend, reprocess buttons and the batch FK retry: puts a processing whose status is in p_de (default ERRO) back to PENDENTE, clears the results of the previous run (metrics, warnings, rejected rows, error) and queues its job. False (nothing done) when the status is not in p_de. Callers check and lock.';

CREATE OR REPLACE FUNCTION public.xls_enfileirar(p_id uuid)
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.xls_enfileirar(uuid) is 'Queues the job xls_processar {id} (unique key = id) inside the caller''s transaction; when a running job still holds the key (it is finishing the previous run), queues a follow-up without key. Returns the job id, or null when a pending job already exists.';

CREATE OR REPLACE FUNCTION public.xls_conjunto_item_registrar(p_conjunto_id uuid, p_arquivo text, p_status text, p_processamento_id uuid, p_motivo text)
 RETURNS integer
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.xls_conjunto_item_registrar(uuid,text,text,uuid,text) is 'Internal to the receipt: appends one entry to a batch (ordem = position in the zip) and counts it in total. XL404 unknown batch, XL409 batch already closed.';

CREATE OR REPLACE FUNCTION public.xls_transicao_recusada(p_id uuid, p_worker text, p_destino text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.xls_transicao_recusada(uuid,text,text) is 'Raises the refusal of a transition: XL404 when the processing does not exist, else XL409 naming its current status and worker.';

