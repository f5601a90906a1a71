create or replace view public.xls_v_conjunto as
 SELECT l.id,
    l.arquivo,
    l.recebido_em,
    l.fechado_em,
    l.fechamento_motivo,
    l.total,
    COALESCE(i.enfileirados, (0)::bigint) AS enfileirados,
    COALESCE(i.reprocessando, (0)::bigint) AS reprocessando,
    COALESCE(i.duplicados, (0)::bigint) AS duplicados,
    COALESCE(i.ignorados, (0)::bigint) AS ignorados,
    COALESCE(p.pendentes, (0)::bigint) AS pendentes,
    COALESCE(p.processando, (0)::bigint) AS processando,
    COALESCE(p.sucesso, (0)::bigint) AS sucesso,
    COALESCE(p.erro, (0)::bigint) AS erro,
    COALESCE(p.ignorado, (0)::bigint) AS ignorado,
    COALESCE(p.aguardando_fk, (0)::bigint) AS aguardando_fk,
    COALESCE(p.mestre_concluido, false) AS mestre_concluido,
    l.uploader_nome
   FROM ((public.xls_conjunto l
     LEFT JOIN LATERAL ( SELECT count(*) FILTER (WHERE (x.status = 'ENFILEIRADO'::text)) AS enfileirados,
            count(*) FILTER (WHERE (x.status = 'REPROCESSANDO'::text)) AS reprocessando,
            count(*) FILTER (WHERE (x.status = 'DUPLICADO'::text)) AS duplicados,
            count(*) FILTER (WHERE (x.status = 'IGNORADO'::text)) AS ignorados
           FROM public.xls_conjunto_item x
          WHERE (x.conjunto_id = l.id)) i ON (true))
     LEFT JOIN LATERAL ( SELECT count(*) FILTER (WHERE (y.status = 'PENDENTE'::text)) AS pendentes,
            count(*) FILTER (WHERE (y.status = 'PROCESSANDO'::text)) AS processando,
            count(*) FILTER (WHERE (y.status = 'SUCESSO'::text)) AS sucesso,
            count(*) FILTER (WHERE (y.status = 'ERRO'::text)) AS erro,
            count(*) FILTER (WHERE (y.status = 'IGNORADO'::text)) AS ignorado,
            count(*) FILTER (WHERE y.fk_retentar) AS aguardando_fk,
            bool_or(((y.status = 'SUCESSO'::text) AND public.xls_tipo_mestre(y.tipo))) AS mestre_concluido
           FROM public.xls_processamento y
          WHERE (y.conjunto_id = l.id)) p ON (true));

comment on view public.xls_v_conjunto is 'One row per batch (zip), for DBAs: entries by receipt status (enfileirados, reprocessando, duplicados, ignorados), its processings by current status, how many wait for the batch to close to retry a transient FK failure (aguardando_fk), whether the master report committed, and when/why it closed. Example: select * from xls_v_conjunto where fechado_em is null;';
