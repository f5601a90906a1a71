create or replace view public.xls_v_resumo_diario as
 SELECT ((p.recebido_em AT TIME ZONE 'America/Sao_Paulo'::text))::date AS dia,
    COALESCE(p.tipo, '(não detectado)'::text) AS tipo,
    p.status,
    count(*) AS processamentos,
    sum(p.linhas_enviadas) AS linhas_enviadas,
    sum(p.linhas_efetivas) AS linhas_efetivas,
    sum(p.linhas_removidas) AS linhas_removidas,
    avg((p.finalizado_em - p.iniciado_em)) AS duracao_media,
    max((p.finalizado_em - p.iniciado_em)) AS duracao_maxima
   FROM public.xls_processamento p
  GROUP BY (((p.recebido_em AT TIME ZONE 'America/Sao_Paulo'::text))::date), COALESCE(p.tipo, '(não detectado)'::text), p.status;

comment on view public.xls_v_resumo_diario is 'Processings per day of receipt (America/Sao_Paulo), type and status, with summed metrics and durations. Example: select * from xls_v_resumo_diario where dia >= current_date - 7 order by dia desc, tipo, status;';
