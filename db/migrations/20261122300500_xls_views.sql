-- migrate:up
set local lock_timeout = '5s';

-- Views for DBAs: what is running, what failed, how batches are doing. No file bytes.

create view public.xls_v_processamento as
select p.id,
       p.status,
       p.tipo,
       p.arquivo,
       p.checksum,
       p.recebido_em,
       p.iniciado_em,
       p.finalizado_em,
       coalesce(p.finalizado_em, case when p.status = 'PROCESSANDO' then now() end) - p.iniciado_em as duracao,
       p.conjunto_id,
       p.worker,
       case when p.status = 'PROCESSANDO' then public.xls_worker_vivo(p.worker) end as worker_vivo,
       p.execucoes,
       p.linhas_enviadas,
       p.linhas_efetivas,
       p.linhas_removidas,
       jsonb_array_length(p.avisos) as avisos,
       jsonb_array_length(p.linhas_rejeitadas) as linhas_rejeitadas,
       p.erro_mensagem,
       p.alarmar,
       p.fk_falhas,
       p.fk_retentar,
       case when p.objeto_chave is not null and p.arquivo_bytes is not null then 'PSQL_OBJSTORE'
            when p.objeto_chave is not null then 'OBJSTORE'
            else 'PSQL' end as armazenamento,
       p.objeto_tamanho_bytes,
       p.log_arquivo,
       p.uploader_nome
  from public.xls_processamento p;
comment on view public.xls_v_processamento is 'One row per processing, for DBAs: status, type, timings (duracao runs while PROCESSANDO), whether the holding worker is alive, metrics, counts of warnings and rejected rows, error, alarm and FK-retry state, where the original is stored. Example: select * from xls_v_processamento where status = ''ERRO'' order by recebido_em desc limit 20;';

create view public.xls_v_conjunto as
select l.id,
       l.arquivo,
       l.recebido_em,
       l.fechado_em,
       l.fechamento_motivo,
       l.total,
       coalesce(i.enfileirados, 0) as enfileirados,
       coalesce(i.reprocessando, 0) as reprocessando,
       coalesce(i.duplicados, 0) as duplicados,
       coalesce(i.ignorados, 0) as ignorados,
       coalesce(p.pendentes, 0) as pendentes,
       coalesce(p.processando, 0) as processando,
       coalesce(p.sucesso, 0) as sucesso,
       coalesce(p.erro, 0) as erro,
       coalesce(p.ignorado, 0) as ignorado,
       coalesce(p.aguardando_fk, 0) as aguardando_fk,
       coalesce(p.mestre_concluido, false) as mestre_concluido,
       l.uploader_nome
  from public.xls_conjunto_lote l
  left join lateral (
    select count(*) filter (where x.status = 'ENFILEIRADO') as enfileirados,
           count(*) filter (where x.status = 'REPROCESSANDO') as reprocessando,
           count(*) filter (where x.status = 'DUPLICADO') as duplicados,
           count(*) filter (where x.status = 'IGNORADO') as ignorados
      from public.xls_conjunto_item x where x.conjunto_id = l.id) i on true
  left join lateral (
    select count(*) filter (where y.status = 'PENDENTE') as pendentes,
           count(*) filter (where y.status = 'PROCESSANDO') as processando,
           count(*) filter (where y.status = 'SUCESSO') as sucesso,
           count(*) filter (where y.status = 'ERRO') as erro,
           count(*) filter (where y.status = 'IGNORADO') as ignorado,
           count(*) filter (where y.fk_retentar) as aguardando_fk,
           bool_or(y.status = 'SUCESSO' and public.xls_tipo_mestre(y.tipo)) as mestre_concluido
      from public.xls_processamento y where y.conjunto_id = l.id) p on true;
comment on view public.xls_v_conjunto is 'One row per batch (zip), for DBAs: entries by receipt status (enfileirados, reprocessando, duplicados, ignorados), its processings by current status, how many wait for the batch to close to retry a transient FK failure (aguardando_fk), whether the master report committed, and when/why it closed. Example: select * from xls_v_conjunto where fechado_em is null;';

create view public.xls_v_resumo_diario as
select (p.recebido_em at time zone 'America/Sao_Paulo')::date as dia,
       coalesce(p.tipo, '(não detectado)') as tipo,
       p.status,
       count(*) as processamentos,
       sum(p.linhas_enviadas) as linhas_enviadas,
       sum(p.linhas_efetivas) as linhas_efetivas,
       sum(p.linhas_removidas) as linhas_removidas,
       avg(p.finalizado_em - p.iniciado_em) as duracao_media,
       max(p.finalizado_em - p.iniciado_em) as duracao_maxima
  from public.xls_processamento p
 group by 1, 2, 3;
comment on view public.xls_v_resumo_diario is 'Processings per day of receipt (America/Sao_Paulo), type and status, with summed metrics and durations. Example: select * from xls_v_resumo_diario where dia >= current_date - 7 order by dia desc, tipo, status;';

-- migrate:down
set local lock_timeout = '5s';
drop view public.xls_v_resumo_diario;
drop view public.xls_v_conjunto;
drop view public.xls_v_processamento;
