create or replace view public.xls_v_processamento as
 SELECT p.id,
    p.status,
    p.tipo,
    p.arquivo,
    p.checksum,
    p.recebido_em,
    p.iniciado_em,
    p.finalizado_em,
    (COALESCE(p.finalizado_em,
        CASE
            WHEN (p.status = 'PROCESSANDO'::text) THEN now()
            ELSE NULL::timestamp with time zone
        END) - p.iniciado_em) AS duracao,
    p.conjunto_id,
    p.worker,
        CASE
            WHEN (p.status = 'PROCESSANDO'::text) THEN app.xls_worker_vivo(p.worker)
            ELSE NULL::boolean
        END AS worker_vivo,
    p.execucoes,
    p.linhas_enviadas,
    p.linhas_efetivas,
    p.linhas_removidas,
    jsonb_array_length(p.avisos) AS avisos,
    jsonb_array_length(p.linhas_rejeitadas) AS linhas_rejeitadas,
    p.erro_mensagem,
    p.alarmar,
    p.fk_falhas,
    p.fk_retentar,
        CASE
            WHEN ((p.objeto_chave IS NOT NULL) AND (p.arquivo_bytes IS NOT NULL)) THEN 'PSQL_OBJSTORE'::text
            WHEN (p.objeto_chave IS NOT NULL) THEN 'OBJSTORE'::text
            ELSE 'PSQL'::text
        END AS armazenamento,
    p.objeto_tamanho_bytes,
    p.log_arquivo,
    p.uploader_nome
   FROM public.xls_processamento p;

comment on view public.xls_v_processamento is 'One row per processing, for DBAs: status, type, timings (duracao runs while PROCESSANDO), whether the holding worker is alive, metrics, counts of warnings and rejected rows, error, alarm and FK-retry state, where the original is stored. Example: select * from xls_v_processamento where status = ''ERRO'' order by recebido_em desc limit 20;';
