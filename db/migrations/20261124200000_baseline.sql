-- migrate:up
-- Baseline: the schema as the 28 migrations up to 20261124200000 left it, in one file —
-- tables, sequences, constraints, indexes, comments, grants, description rows, seed data,
-- the publication, triggers, event triggers and pg_cron schedules. No function and no view:
-- those are the files of db/functions and db/views. The migrate step applies the files it
-- can before the migrations (trigger functions, the functions CHECK constraints and seeds
-- call) and all of them after (src/db/migrate.ts). It carries the version of the last
-- migration it replaces, so a database already at 20261124200000 counts it as applied
-- (db/README.md, "The baseline"). One difference from 2.2.0: the triggers name their functions
-- in app (app.tg_*), where 20261125110000_auxiliares_app moves them on a 2.2.0 database.

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'bi_sync_reader') THEN
    CREATE ROLE bi_sync_reader NOLOGIN; -- cluster-wide: survives the down (other databases may use it)
  END IF;
END
$$;

CREATE SCHEMA IF NOT EXISTS app;

COMMENT ON SCHEMA app IS 'Internal machinery of the service (job queue, workers, helpers). DBAs may read it; the application owns it. Domain tables and the functions staff and DBAs call live in public.';

CREATE TYPE app.erp_sync_item AS (
	idx integer,
	ean text,
	sku text,
	preco_cheio numeric(12,2),
	preco_desconto numeric(12,2),
	estoque integer,
	erros text[],
	variante_ids bigint[],
	variante_skus text[],
	variante_id bigint,
	variante_sku text,
	variante_ean text,
	preco_cheio_atual numeric(12,2),
	preco_desconto_atual numeric(12,2),
	estoque_atual integer
);

COMMENT ON TYPE app.erp_sync_item IS 'Working row of erp_sync(): one request item as read and validated (idx, key, received values, error codes), its candidate variants, and the matched variant''s stored values.';

CREATE TABLE app.job (
    id bigint NOT NULL,
    kind text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 5 NOT NULL,
    unique_key text,
    locked_by text,
    locked_at timestamp with time zone,
    last_error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT job_max_attempts_check CHECK ((max_attempts > 0)),
    CONSTRAINT job_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'running'::text, 'done'::text, 'failed'::text])))
);

COMMENT ON TABLE app.job IS 'Background jobs. Claimed once across replicas (FOR UPDATE SKIP LOCKED), woken by NOTIFY app_jobs (payload: the kind), swept every minute by pg_cron in case a notification was lost.';

COMMENT ON COLUMN app.job.unique_key IS 'When set, at most one pending or running job per (kind, unique_key): enqueueing again is a no-op.';

CREATE TABLE app.login_tentativa (
    state text NOT NULL,
    nonce text NOT NULL,
    code_verifier text NOT NULL,
    destino text NOT NULL,
    criada_em timestamp with time zone DEFAULT now() NOT NULL,
    expira_em timestamp with time zone DEFAULT (now() + '00:10:00'::interval) NOT NULL,
    CONSTRAINT login_tentativa_destino_check CHECK (((destino ~ '^/'::text) AND (destino !~ '^//'::text) AND (destino !~ '^/\\'::text))),
    CONSTRAINT login_tentativa_state_check CHECK ((length(state) >= 32))
);

COMMENT ON TABLE app.login_tentativa IS 'Identity-provider logins started and not yet finished: the OAuth state (also the CSRF token of the callback), the OIDC nonce, the PKCE code verifier and the local path to return to. A row is consumed once by the callback (app.login_consumir) and lives at most 10 minutes.';

CREATE TABLE public.partner_pedido (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    code text NOT NULL,
    estado text NOT NULL,
    status text NOT NULL,
    total numeric(14,2),
    pago_em timestamp with time zone,
    atualizado_no_parceiro timestamp with time zone NOT NULL,
    cliente_nome text,
    cliente_email text,
    cliente_documento text,
    itens jsonb DEFAULT '[]'::jsonb NOT NULL,
    recurso jsonb NOT NULL,
    origem text NOT NULL,
    nao_pago_visto_em timestamp with time zone,
    recebido_visto_em timestamp with time zone,
    enfileirado_em timestamp with time zone,
    enfileirado_por text,
    liberacao text,
    criado_em timestamp with time zone DEFAULT now() NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT partner_pedido_estado_check CHECK ((estado = ANY (ARRAY['CAPTURADO'::text, 'ENFILEIRADO'::text, 'CANCELADO'::text]))),
    CONSTRAINT partner_pedido_liberacao CHECK (((liberacao IS NULL) = (enfileirado_em IS NULL))),
    CONSTRAINT partner_pedido_liberacao_check CHECK ((liberacao = ANY (ARRAY['gate_transicao'::text, 'gate_resgate_primeira_captura'::text, 'console'::text]))),
    CONSTRAINT partner_pedido_origem_check CHECK ((origem = ANY (ARRAY['webhook'::text, 'poll'::text, 'contingencia'::text, 'manual'::text])))
);

COMMENT ON TABLE public.partner_pedido IS 'Orders of the order platform, one row per code (the idempotency key), holding the newest observation (highest updated_at; ties broken by lifecycle rank). estado is local: CAPTURADO (known, not released), ENFILEIRADO (released to the fulfilment queue), CANCELADO.';

COMMENT ON COLUMN public.partner_pedido.status IS 'Platform status of the newest observation: waiting_payment, refused, received, invoiced, shipped, delivered, cancelled.';

COMMENT ON COLUMN public.partner_pedido.origem IS 'Path of the newest observation: webhook, poll (6-hourly REST), contingencia (REST while the webhook is silent), manual.';

COMMENT ON COLUMN public.partner_pedido.nao_pago_visto_em IS 'Earliest updated_at observed with an unpaid status (waiting_payment, refused). With recebido_visto_em it is the gate''s evidence of the transition to received.';

COMMENT ON COLUMN public.partner_pedido.recebido_visto_em IS 'Latest updated_at observed with status received.';

COMMENT ON COLUMN public.partner_pedido.liberacao IS 'Why the order was released: gate_transicao (transition to received witnessed), gate_resgate_primeira_captura (PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE), console (Enfileirar).';

CREATE TABLE app.sessao (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    token_hash bytea NOT NULL,
    email text NOT NULL,
    nome text,
    papel text DEFAULT 'equipe'::text NOT NULL,
    csrf text NOT NULL,
    criada_em timestamp with time zone DEFAULT now() NOT NULL,
    ultimo_uso_em timestamp with time zone DEFAULT now() NOT NULL,
    expira_em timestamp with time zone NOT NULL,
    encerrada_em timestamp with time zone,
    motivo_encerramento text,
    CONSTRAINT sessao_check CHECK ((expira_em > criada_em)),
    CONSTRAINT sessao_csrf_check CHECK ((length(csrf) >= 32)),
    CONSTRAINT sessao_motivo_encerramento_check CHECK ((motivo_encerramento = ANY (ARRAY['logout'::text, 'rotacao'::text, 'expirada'::text]))),
    CONSTRAINT sessao_papel_check CHECK ((papel = ANY (ARRAY['equipe'::text, 'smoke'::text])))
);

COMMENT ON TABLE app.sessao IS 'Login sessions of the staff screens. The browser holds a random token in the session cookie; only its SHA-256 (token_hash) is stored, so a copy of this table opens no session. csrf is the token every form of the session carries. papel: equipe (identity-provider login) or smoke (POST /smoke/session: may only read). Write only through app.sessao_* functions.';

CREATE TABLE public.bi_configuracao (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    chave text NOT NULL,
    valor text NOT NULL,
    tipo text NOT NULL,
    sistema boolean DEFAULT false NOT NULL,
    descricao text,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_configuracao_chave_formato CHECK ((chave ~ '^[a-z][a-z0-9_]{0,62}$'::text)),
    CONSTRAINT bi_configuracao_tipo_check CHECK ((tipo = ANY (ARRAY['string'::text, 'integer'::text, 'boolean'::text, 'duration'::text])))
);

COMMENT ON TABLE public.bi_configuracao IS 'Global key/value configuration, replicated to the mobile clients (sync stream at priority 0). Rows with sistema = true are written only by the service itself (e.g. ultimo_nuke by the replication reset).';

CREATE TABLE public.destinatario (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    email text NOT NULL,
    nome text,
    ativo boolean DEFAULT true NOT NULL,
    criado_em timestamp with time zone DEFAULT now() NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT destinatario_email_check CHECK ((email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$'::text))
);

COMMENT ON TABLE public.destinatario IS 'Recipients of the operational alert e-mails (the /destinatarios page): every active row receives the order-webhook alerts ''Webhook parado'' and ''Webhook voltou a funcionar''. DBAs may INSERT/UPDATE/DELETE rows; ativo = false keeps a row without sending to it.';

CREATE TABLE public.partner_configuracao (
    id boolean DEFAULT true NOT NULL,
    watchdog_habilitado boolean DEFAULT false NOT NULL,
    limite_min_comercial integer DEFAULT 45 NOT NULL,
    limite_horas integer DEFAULT 24 NOT NULL,
    contingencia_apos_min_comercial integer DEFAULT 15 NOT NULL,
    contingencia_intervalo_min integer DEFAULT 5 NOT NULL,
    poll_intervalo_horas integer DEFAULT 6 NOT NULL,
    aviso_retorno_max interval DEFAULT '01:00:00'::interval NOT NULL,
    puxada_janela_inicial interval DEFAULT '24:00:00'::interval NOT NULL,
    gate_primeira_captura_desde timestamp with time zone,
    api_configurada boolean DEFAULT false NOT NULL,
    monitorando_desde timestamp with time zone,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT partner_configuracao_contingencia_apos_min_comercial_check CHECK ((contingencia_apos_min_comercial > 0)),
    CONSTRAINT partner_configuracao_contingencia_intervalo_min_check CHECK ((contingencia_intervalo_min > 0)),
    CONSTRAINT partner_configuracao_id_check CHECK (id),
    CONSTRAINT partner_configuracao_limite_horas_check CHECK ((limite_horas > 0)),
    CONSTRAINT partner_configuracao_limite_min_comercial_check CHECK ((limite_min_comercial > 0)),
    CONSTRAINT partner_configuracao_poll_intervalo_horas_check CHECK ((poll_intervalo_horas > 0))
);

COMMENT ON TABLE public.partner_configuracao IS 'One row: the settings of the order-webhook watchdog, contingency, poll and gate, as SQL needs them (pg_cron runs the decisions without the application). Every replica writes it at boot from its environment (partner_configurar); a DBA change lasts until the next boot.';

COMMENT ON COLUMN public.partner_configuracao.gate_primeira_captura_desde IS 'PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE: an order first seen already paid, with paid_at at or after this instant, is released by the gate. Null = rescue off.';

COMMENT ON COLUMN public.partner_configuracao.api_configurada IS 'PARTNER_API_URL and PARTNER_API_TOKEN are set: the REST poll and the contingency may run.';

COMMENT ON COLUMN public.partner_configuracao.monitorando_desde IS 'Start of the watch when no webhook was ever received: silence is measured from here until the first event.';

CREATE TABLE public.xls_resetar_replicator (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    status text DEFAULT 'EM_ANDAMENTO'::text NOT NULL,
    step_atual text,
    step_falho text,
    erro_mensagem text,
    motivo text,
    solicitante text,
    estrategia text,
    job_id bigint,
    worker text,
    assumido_em timestamp with time zone,
    slots_removidos text[] DEFAULT '{}'::text[] NOT NULL,
    slot_novo text,
    ultimo_nuke text,
    iniciado_em timestamp with time zone DEFAULT now() NOT NULL,
    finalizado_em timestamp with time zone,
    CONSTRAINT xls_resetar_replicator_erro_tem_mensagem CHECK (((status <> 'ERRO'::text) OR (erro_mensagem IS NOT NULL))),
    CONSTRAINT xls_resetar_replicator_estrategia_valida CHECK ((estrategia = ANY (ARRAY['hosting'::text, 'manual'::text]))),
    CONSTRAINT xls_resetar_replicator_fim CHECK (((status = 'EM_ANDAMENTO'::text) = (finalizado_em IS NULL))),
    CONSTRAINT xls_resetar_replicator_motivo_tamanho CHECK ((char_length(motivo) <= 500)),
    CONSTRAINT xls_resetar_replicator_status_valido CHECK ((status = ANY (ARRAY['EM_ANDAMENTO'::text, 'SUCESSO'::text, 'ERRO'::text]))),
    CONSTRAINT xls_resetar_replicator_step_falho_valido CHECK ((step_falho = ANY (ARRAY['VALIDAR'::text, 'PAUSAR'::text, 'AGUARDAR_PARADA'::text, 'RESET_SLOT'::text, 'DROP_DOCSTORE'::text, 'RECRIAR_PUBLICACAO'::text, 'RESUME'::text, 'AGUARDAR_REPLICACAO'::text, 'FINALIZAR'::text]))),
    CONSTRAINT xls_resetar_replicator_step_valido CHECK ((step_atual = ANY (ARRAY['VALIDAR'::text, 'PAUSAR'::text, 'AGUARDAR_PARADA'::text, 'RESET_SLOT'::text, 'DROP_DOCSTORE'::text, 'RECRIAR_PUBLICACAO'::text, 'RESUME'::text, 'AGUARDAR_REPLICACAO'::text, 'FINALIZAR'::text])))
);

COMMENT ON TABLE public.xls_resetar_replicator IS 'One row per reset of the replication to the phones (start: replicacao_resetar). status EM_ANDAMENTO -> SUCESSO | ERRO; step_atual is the last step started (kept on ERRO), step_falho the step that failed; at most one EM_ANDAMENTO (partial unique index). The steps are in xls_resetar_replicator_passo.';

COMMENT ON COLUMN public.xls_resetar_replicator.assumido_em IS 'When a worker took the execution (holding the advisory lock of the execution for as long as it runs); an EM_ANDAMENTO execution already taken whose lock nobody holds is an orphan (replicacao_recuperar).';

COMMENT ON COLUMN public.xls_resetar_replicator.ultimo_nuke IS 'The value FINALIZAR wrote to bi_configuracao.ultimo_nuke.';

CREATE TABLE public.xls_resetar_replicator_passo (
    id bigint NOT NULL,
    execucao_id uuid NOT NULL,
    ordem smallint NOT NULL,
    step text NOT NULL,
    status text DEFAULT 'EM_ANDAMENTO'::text NOT NULL,
    mensagem text,
    iniciado_em timestamp with time zone DEFAULT now() NOT NULL,
    finalizado_em timestamp with time zone,
    CONSTRAINT xls_resetar_replicator_passo_fim CHECK (((status = 'EM_ANDAMENTO'::text) = (finalizado_em IS NULL))),
    CONSTRAINT xls_resetar_replicator_passo_status_valido CHECK ((status = ANY (ARRAY['EM_ANDAMENTO'::text, 'SUCESSO'::text, 'AVISO'::text, 'PULADO'::text, 'ERRO'::text]))),
    CONSTRAINT xls_resetar_replicator_passo_step_valido CHECK ((step = ANY (ARRAY['VALIDAR'::text, 'PAUSAR'::text, 'AGUARDAR_PARADA'::text, 'RESET_SLOT'::text, 'DROP_DOCSTORE'::text, 'RECRIAR_PUBLICACAO'::text, 'RESUME'::text, 'AGUARDAR_REPLICACAO'::text, 'FINALIZAR'::text])))
);

COMMENT ON TABLE public.xls_resetar_replicator_passo IS 'Per-step log of a reset: one row per step started, with its outcome (SUCESSO, AVISO = done with a warning, PULADO = skipped, ERRO), timestamps and the last message.';

ALTER TABLE app.job ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME app.job_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1);

CREATE TABLE app.repeatable_file (
    arquivo text NOT NULL,
    sha256 text NOT NULL,
    aplicado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT repeatable_file_sha256_check CHECK ((sha256 ~ '^[0-9a-f]{64}$'::text))
);

COMMENT ON TABLE app.repeatable_file IS 'Functions and views applied from db/functions/*.sql and db/views/*.sql: the file (relative to db/), the SHA-256 of the text applied and when. A file whose text differs (or is absent here) is applied again at the next migrate; every file is applied again after any dbmate migration. Delete a row to force one file to be re-applied.';

CREATE TABLE app.replicacao_publicacao (
    nome text NOT NULL,
    registrada_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT replicacao_publicacao_nome_formato CHECK ((nome ~ '^[a-z_][a-z0-9_]{0,62}$'::text))
);

COMMENT ON TABLE app.replicacao_publicacao IS 'Publications of the sync engine that the service keeps covering exactly the bi_* tables of public (event trigger _200_bi_publicar, and the reset step RECRIAR_PUBLICACAO, which registers REPLICATOR_PUBLICATION here). Default: powersync.';

CREATE TABLE app.worker (
    id text NOT NULL,
    hostname text NOT NULL,
    pid integer NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE app.worker IS 'One row per live application process (replica). Workers heartbeat; a worker silent for longer than app.worker_timeout() is dead and its claimed jobs return to the queue.';

CREATE TABLE app.xls_alvo (
    tipo text NOT NULL,
    staging text NOT NULL,
    tabela text NOT NULL,
    ordem integer DEFAULT 1 NOT NULL,
    aba text,
    escopo text NOT NULL,
    escopo_coluna text,
    comparar text[],
    expressoes jsonb DEFAULT '{}'::jsonb NOT NULL,
    reter text[] DEFAULT '{}'::text[] NOT NULL,
    CONSTRAINT xls_alvo_check CHECK (((escopo = 'tudo'::text) = (escopo_coluna IS NULL))),
    CONSTRAINT xls_alvo_escopo_check CHECK ((escopo = ANY (ARRAY['periodo'::text, 'valores'::text, 'meses'::text, 'tudo'::text]))),
    CONSTRAINT xls_alvo_escopo_coluna_check CHECK ((escopo_coluna ~ '^[a-z][a-z0-9_]*$'::text)),
    CONSTRAINT xls_alvo_expressoes_check CHECK ((jsonb_typeof(expressoes) = 'object'::text)),
    CONSTRAINT xls_alvo_ordem_check CHECK ((ordem > 0)),
    CONSTRAINT xls_alvo_staging_check CHECK ((staging ~ '^[a-z][a-z0-9_]*$'::text)),
    CONSTRAINT xls_alvo_tabela_check CHECK ((tabela ~ '^bi_[a-z0-9_]+$'::text))
);

COMMENT ON TABLE app.xls_alvo IS 'One row per target table of a spreadsheet type: staging table pg_temp.xls_stg_<staging> feeds public.<tabela>. The natural key is the target''s UNIQUE constraint, string lengths its varchar(n). escopo: which stored rows one file may delete — periodo (escopo_coluna between p_meta periodo_inicio and periodo_fim), valores (the values of escopo_coluna present in the file), meses (the calendar months the dates of escopo_coluna cover), tudo (the whole table). comparar: the columns whose change rewrites a row (null: every written non-key column). expressoes: target or extra column -> SQL expression over the normalised staging columns (trimmed, empty -> NULL), applied before the cut to the column length. reter: extra columns of accepted rows kept until the end of the merge for the type''s hook. aba: the tab named in messages and matched by rejected rows. Applied by app.xls_merge_chunk / app.xls_merge_fim; see docs/xls-merge.md.';

COMMENT ON COLUMN app.xls_alvo.ordem IS 'Order of the targets of one type: chunks, deletes and metrics follow it (a target another one references comes first).';

CREATE TABLE app.xls_staging_coluna (
    tipo text NOT NULL,
    staging text NOT NULL,
    ordem integer NOT NULL,
    coluna text NOT NULL,
    tipo_sql text NOT NULL,
    CONSTRAINT xls_staging_coluna_check CHECK (((ordem = 1) = (coluna = 'linha'::text))),
    CONSTRAINT xls_staging_coluna_check1 CHECK (((coluna <> 'linha'::text) OR (tipo_sql = 'integer'::text))),
    CONSTRAINT xls_staging_coluna_coluna_check CHECK ((coluna ~ '^[a-z][a-z0-9_]*$'::text)),
    CONSTRAINT xls_staging_coluna_ordem_check CHECK ((ordem > 0)),
    CONSTRAINT xls_staging_coluna_staging_check CHECK ((staging ~ '^[a-z][a-z0-9_]*$'::text)),
    CONSTRAINT xls_staging_coluna_tipo_sql_check CHECK ((tipo_sql = ANY (ARRAY['integer'::text, 'text'::text, 'date'::text, 'numeric'::text, 'boolean'::text])))
);

COMMENT ON TABLE app.xls_staging_coluna IS 'The staging tables of each spreadsheet type and their typed columns, in COPY order: the contract between the reader (src/xlsx/readers, field = column) and the merge. Column 1 is always linha, the sheet''s own 1-based row number. xls_staging_preparar creates pg_temp.xls_stg_<staging> from these rows; a test checks every reader''s fields against them.';

CREATE TABLE app.xls_tipo (
    tipo text NOT NULL,
    ordem integer NOT NULL,
    mestre boolean DEFAULT false NOT NULL,
    hook text,
    descricao text NOT NULL,
    CONSTRAINT xls_tipo_hook_check CHECK ((hook ~ '^app\.[a-z_][a-z0-9_]*$'::text)),
    CONSTRAINT xls_tipo_ordem_check CHECK ((ordem > 0))
);

COMMENT ON TABLE app.xls_tipo IS 'The spreadsheet types, in detection order (ordem). mestre: the batch''s master report (its success closes the batch). hook: optional function app.<name>(p_fase text, p_staging text, p_meta jsonb) returns jsonb, called by the generic merge at its phases (docs/xls-merge.md) for what belongs to one type only. Checked against TIPOS_PLANILHA (TypeScript) and public.xls_tipo_valido by the tests.';

CREATE TABLE public.bi_centro_custo (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    codigo character varying(20) NOT NULL,
    descricao character varying(120),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.bi_centro_custo IS 'Cost centres. NK codigo. Upserted by FLUXO_PAGAR_RECEBER (descricao; an empty one keeps the stored value); never deleted by a spreadsheet.';

CREATE TABLE public.bi_cliente (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    codigo character varying(20) NOT NULL,
    nome character varying(150),
    cnpj_cpf character varying(14),
    classe character varying(40),
    municipio character varying(100),
    uf character varying(2),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.bi_cliente IS 'Customers. NK codigo. RELATORIO18 upserts codigo and nome only and keeps the other columns; MARGEM_DIA (later) fills cnpj_cpf, classe, municipio, uf and keeps the stored value when its sheet lacks the field.';

COMMENT ON COLUMN public.bi_cliente.cnpj_cpf IS 'Digits only.';

CREATE TABLE public.bi_compra (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    data date NOT NULL,
    cnpj_fornecedor character varying(14) NOT NULL,
    nota_fiscal character varying(20) NOT NULL,
    produto character varying(60) NOT NULL,
    codigo_onu smallint NOT NULL,
    quantidade numeric,
    valor_total numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_compra_combustivel CHECK ((codigo_onu = ANY (ARRAY[1170, 1202, 1203, 1223, 1863, 3475])))
);

COMMENT ON TABLE public.bi_compra IS 'Fuel purchases (COMPRAS). NK (cnpj_fornecedor, nota_fiscal, produto). Only fuels: codigo_onu in {1170, 1202, 1203, 1223, 1863, 3475}. Quantity and value raw (the client derives the average cost). Scope of one file: the calendar months its dates cover.';

CREATE TABLE public.bi_cota_fornecedor (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    ano smallint NOT NULL,
    polo character varying(60) NOT NULL,
    produto character varying(60) NOT NULL,
    mes smallint NOT NULL,
    quantidade numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_cota_fornecedor_ano CHECK (((ano >= 1900) AND (ano <= 9999))),
    CONSTRAINT bi_cota_fornecedor_mes CHECK (((mes >= 1) AND (mes <= 12)))
);

COMMENT ON TABLE public.bi_cota_fornecedor IS 'Supplier quota matrix (COTA_FORNECEDOR), unpivoted: one row per (ano, polo, produto, mes). ano = the tab''s name, mes 1..12. Scope: the whole table (each send replaces the whole matrix; a send without data rows deletes nothing).';

CREATE TABLE public.bi_faturamento (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    filial character varying(20) NOT NULL,
    nota_fiscal character varying(20) NOT NULL,
    serie character varying(5) NOT NULL,
    item character varying(10) NOT NULL,
    emissao date NOT NULL,
    cliente character varying(20),
    vendedor character varying(20),
    produto character varying(20),
    quantidade numeric,
    valor_unitario numeric,
    valor_total numeric,
    placa character varying(10),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.bi_faturamento IS 'Billing rows of RELATORIO18 tab 20. NK (filial, nota_fiscal, serie, item); an empty serie or item is stored as ''''. Scope of one report: emissao within its period (rows of the period absent from the file are deleted).';

COMMENT ON COLUMN public.bi_faturamento.placa IS 'Plate as sent, normalised (uppercase, no dash or space) even when invalid; the registry is bi_veiculo.';

CREATE TABLE public.bi_filial (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    codigo character varying(20) NOT NULL,
    municipio character varying(100),
    uf character varying(2),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.bi_filial IS 'Branches. NK codigo. Spreadsheets only insert new codes (RELATORIO18, MARGEM_CONSOLIDADA); municipio and uf are manual registry data that no spreadsheet writes (a new branch gets them NULL).';

CREATE TABLE public.bi_fornecedor (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    cnpj character varying(14) NOT NULL,
    nome character varying(150),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.bi_fornecedor IS 'Suppliers. NK cnpj (digits only). Upserted by COMPRAS (nome; an empty name keeps the stored one); never deleted by a spreadsheet.';

CREATE TABLE public.bi_margem_consolidada (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    competencia date NOT NULL,
    filial character varying(20) NOT NULL,
    produto character varying(20) NOT NULL,
    volume numeric,
    receita_liquida numeric,
    cmv numeric,
    margem_total numeric,
    margem_por_litro numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_margem_consolidada_competencia_mes CHECK ((competencia = (date_trunc('month'::text, (competencia)::timestamp with time zone))::date))
);

COMMENT ON TABLE public.bi_margem_consolidada IS 'Consolidated margin per month, branch and product (MARGEM_CONSOLIDADA). NK (competencia, filial, produto); competencia is the first day of the month. Scope of one file: the competências present in it. New branch codes go to bi_filial (code only).';

CREATE TABLE public.bi_margem_dia (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    data date NOT NULL,
    filial character varying(20) NOT NULL,
    cliente character varying(20) NOT NULL,
    produto character varying(20) NOT NULL,
    vendedor character varying(20),
    volume numeric,
    preco_medio numeric,
    custo_medio numeric,
    margem numeric,
    prazo numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.bi_margem_dia IS 'Daily margin per branch, customer and product (MARGEM_DIA). NK (data, filial, cliente, produto). Scope of one file: the dates present in it. The customer''s name, CNPJ/CPF, classe, município and UF go to bi_cliente (a missing or empty field keeps the stored value).';

COMMENT ON COLUMN public.bi_margem_dia.prazo IS 'Payment term in days as sent; an empty cell (or an absent column) is NULL, never 0.';

CREATE TABLE public.bi_meta (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    competencia date NOT NULL,
    vendedor character varying(20) NOT NULL,
    produto character varying(20) NOT NULL,
    meta_volume numeric,
    meta_margem numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_meta_competencia_mes CHECK ((competencia = (date_trunc('month'::text, (competencia)::timestamp with time zone))::date))
);

COMMENT ON TABLE public.bi_meta IS 'Goals per seller and product (META). NK (competencia, vendedor, produto); competencia is the first day of the month. Scope of one file: the competências present in it. vendedor must exist in bi_vendedor: a missing seller fails the file with XL424 (transient inside a batch: retried once after the master report).';

CREATE TABLE public.bi_meta_carteira (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    competencia date NOT NULL,
    cliente character varying(20) NOT NULL,
    produto character varying(20) NOT NULL,
    meta_volume numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_meta_carteira_competencia_mes CHECK ((competencia = (date_trunc('month'::text, (competencia)::timestamp with time zone))::date))
);

COMMENT ON TABLE public.bi_meta_carteira IS 'Goals per customer and product (META_CARTEIRA). NK (competencia, cliente, produto). Scope of one file: the competências present in it. cliente must exist in bi_cliente: a missing customer fails the file with XL424 (transient inside a batch: retried once after the master report), as META.';

CREATE TABLE public.bi_movimento (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    filial character varying(20) NOT NULL,
    data date NOT NULL,
    lancamento character varying(20) NOT NULL,
    conta character varying(40) NOT NULL,
    descricao_conta character varying(120),
    historico character varying(250),
    debito numeric,
    credito numeric,
    placa character varying(10),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.bi_movimento IS 'Accounting movement rows of RELATORIO18 tab 30. NK (filial, lancamento, conta). Scope of one report: data within its period.';

CREATE TABLE public.bi_posto (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    cnpj character varying(14) NOT NULL,
    razao_social character varying(150),
    nome_fantasia character varying(150),
    bandeira character varying(60),
    endereco character varying(200),
    bairro character varying(100),
    municipio character varying(100),
    uf character varying(2),
    cep character varying(8),
    tipo_instalacao character varying(60),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.bi_posto IS 'Fuel stations registry (POSTOS). NK cnpj (digits only). Scope: the whole table, the file is the full registry.';

COMMENT ON COLUMN public.bi_posto.cep IS 'Digits only.';

CREATE TABLE public.bi_produto (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    codigo character varying(20) NOT NULL,
    descricao character varying(150),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.bi_produto IS 'Products. NK codigo. Upserted by RELATORIO18 (descricao); never deleted by a spreadsheet.';

CREATE TABLE public.bi_titulo (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    posicao date NOT NULL,
    tipo character varying(7) NOT NULL,
    documento character varying(30) NOT NULL,
    parcela character varying(10) NOT NULL,
    pessoa character varying(150),
    cnpj_cpf character varying(14),
    emissao date,
    vencimento date NOT NULL,
    valor numeric,
    saldo numeric NOT NULL,
    centro_custo character varying(20),
    atual boolean DEFAULT false NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_titulo_tipo CHECK ((tipo IN ('PAGAR', 'RECEBER')))
);

COMMENT ON TABLE public.bi_titulo IS 'Open payables and receivables (FLUXO_PAGAR_RECEBER, tab SemQuebras), with history per position (the report date). NK (posicao, tipo, documento, parcela); an empty parcela is ''''. Scope of one file: its position (a re-import replaces it). Only the rows of the newest position carry atual = true; the sync engine publishes only those (where atual).';

COMMENT ON COLUMN public.bi_titulo.tipo IS 'PAGAR or RECEBER (the sheet may say Pagar/Receber or P/R).';

COMMENT ON COLUMN public.bi_titulo.atual IS 'True on the rows of the newest position only (xls_merge_fluxo keeps it so under a lock). Indexed partially: a sync stream selects `where atual`.';

CREATE TABLE public.bi_trr (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    cnpj character varying(14) NOT NULL,
    razao_social character varying(150),
    municipio character varying(100),
    uf character varying(2),
    tipo_instalacao character varying(60),
    qualificacao_empresa character varying(100),
    capacidade_m3 numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.bi_trr IS 'Retail-wholesale resellers (TRR) registry. NK cnpj (digits only). Scope: the whole table, the file is the full registry.';

CREATE TABLE public.bi_veiculo (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    placa character varying(7) NOT NULL,
    ano_fabricacao smallint,
    ano_modelo smallint,
    modelo character varying(80),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_veiculo_placa_formato CHECK (((placa)::text ~ '^[A-Z]{3}[0-9][A-Z0-9][0-9]{2}$'::text))
);

COMMENT ON TABLE public.bi_veiculo IS 'Vehicle registry. NK placa (normalised: uppercase, no dash or space; AAA9999 or Mercosul AAA9A99). Upserted by RELATORIO18 from billing and movement rows with a valid plate; a missing or invalid year or model keeps the stored value. Never deleted by a spreadsheet.';

COMMENT ON COLUMN public.bi_veiculo.ano_fabricacao IS 'Construction year: left of the slash in ''YYYY/YYYY''.';

COMMENT ON COLUMN public.bi_veiculo.ano_modelo IS 'Model year: right of the slash in ''YYYY/YYYY''.';

CREATE TABLE public.bi_vendedor (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    codigo character varying(20) NOT NULL,
    nome character varying(120),
    filial character varying(20),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.bi_vendedor IS 'Sellers. NK codigo. Upserted by RELATORIO18 (nome, filial of its latest billing row); never deleted by a spreadsheet. Referenced by bi_meta.';

CREATE TABLE public.erp_sync_audit (
    id bigint NOT NULL,
    called_at timestamp with time zone DEFAULT now() NOT NULL,
    dry_run boolean NOT NULL,
    recebidos integer NOT NULL,
    casados integer NOT NULL,
    atualizados integer NOT NULL,
    nao_encontrados integer NOT NULL,
    ambiguos integer NOT NULL,
    erros integer NOT NULL,
    request_sha256 text,
    idempotency_key text,
    replay_of bigint,
    application_name text DEFAULT NULLIF(current_setting('application_name'::text, true), ''::text),
    response jsonb,
    recusa_status smallint,
    recusa_detalhe text,
    CONSTRAINT erp_sync_audit_recusa_check CHECK (((recusa_status IS NULL) OR ((recusa_status = ANY (ARRAY[400, 413, 422])) AND (replay_of IS NULL)))),
    CONSTRAINT erp_sync_audit_response_check CHECK ((((replay_of IS NULL) AND (recusa_status IS NULL)) = (response IS NOT NULL))),
    CONSTRAINT erp_sync_audit_sha256_check CHECK ((request_sha256 ~ '^[0-9a-f]{64}$'::text))
);

COMMENT ON TABLE public.erp_sync_audit IS 'One row per call of erp_sync() (POST /sync/erp or psql), in either mode: when, mode, the response counts, the SHA-256 of the request items (canonical jsonb text), the Idempotency-Key and the full response. A replay of an idempotent call is a row with replay_of = the original and response null; its counts repeat the original''s (sum atualizados over replay_of is null). A call refused with 400, 413 or 422 is a row with recusa_status and recusa_detalhe (erp_sync_recusa_registrar), counts 0 and response null; a 401 leaves no row. Rows are kept until a DBA deletes them (changes cascade).';

COMMENT ON COLUMN public.erp_sync_audit.recebidos IS 'Items received.';

COMMENT ON COLUMN public.erp_sync_audit.casados IS 'Items matched to exactly one variant.';

COMMENT ON COLUMN public.erp_sync_audit.atualizados IS 'Variants actually changed (0 in dry run).';

COMMENT ON COLUMN public.erp_sync_audit.nao_encontrados IS 'Items with a valid key and no variant.';

COMMENT ON COLUMN public.erp_sync_audit.ambiguos IS 'Items whose EAN matches more than one variant.';

COMMENT ON COLUMN public.erp_sync_audit.erros IS 'Items refused by validation (an item may carry several codes in the response''s erros[]).';

COMMENT ON COLUMN public.erp_sync_audit.request_sha256 IS 'Hex SHA-256 of the items as canonical jsonb text (key order and whitespace do not matter); null for a refused call whose body had no readable items.';

COMMENT ON COLUMN public.erp_sync_audit.application_name IS 'application_name of the calling session: bi-comercial for the HTTP endpoint, psql for a DBA.';

COMMENT ON COLUMN public.erp_sync_audit.recusa_status IS 'HTTP status of a refused call (400 envelope or body invalid, 413 more than 200 items or a body over 1 MiB, 422 Idempotency-Key reused with another body or mode); null for an answered call. A refused call applies nothing; its counts are 0 but recebidos (the items it carried, when they could be read).';

COMMENT ON COLUMN public.erp_sync_audit.recusa_detalhe IS 'The detail of the refusal, as the caller received it (problem+json detail).';

ALTER TABLE public.erp_sync_audit ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME public.erp_sync_audit_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1);

CREATE TABLE public.erp_sync_audit_variante (
    audit_id bigint NOT NULL,
    variante_id bigint NOT NULL,
    idx integer NOT NULL,
    sku text NOT NULL,
    ean text,
    preco_cheio_antes numeric(12,2),
    preco_cheio_depois numeric(12,2),
    preco_desconto_antes numeric(12,2),
    preco_desconto_depois numeric(12,2),
    estoque_antes integer NOT NULL,
    estoque_depois integer NOT NULL
);

COMMENT ON TABLE public.erp_sync_audit_variante IS 'Before/after of every variant changed by a real-mode call of erp_sync() (one row per changed variant; unchanged variants are not rewritten and have no row). idx is the item''s 0-based index in the request. No foreign key to variante: the history outlives a deleted variant.';

CREATE TABLE public.feriado (
    data date NOT NULL,
    nome text NOT NULL,
    abrangencia text DEFAULT 'nacional'::text NOT NULL,
    criado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT feriado_abrangencia_check CHECK ((abrangencia = ANY (ARRAY['nacional'::text, 'estadual'::text, 'municipal'::text, 'empresa'::text]))),
    CONSTRAINT feriado_nome_check CHECK ((btrim(nome) <> ''::text))
);

COMMENT ON TABLE public.feriado IS 'Days that are not business days even when they fall Monday to Friday. Seeded with the Brazilian national holidays 2026-2040 (fixed dates and Good Friday). DBAs add state, municipal or company days (e.g. Carnaval, Corpus Christi) with a plain INSERT and remove them with DELETE; public.minutos_comerciais honours every row.';

COMMENT ON COLUMN public.feriado.abrangencia IS 'nacional (seeded), estadual, municipal or empresa: informative only, every row counts.';

CREATE TABLE public.partner_aviso (
    id bigint NOT NULL,
    tipo text NOT NULL,
    episodio_id bigint,
    contingencia_id bigint,
    criado_em timestamp with time zone NOT NULL,
    dados jsonb DEFAULT '{}'::jsonb NOT NULL,
    registrado_em timestamp with time zone,
    rastreador_em timestamp with time zone,
    concluido_em timestamp with time zone,
    CONSTRAINT partner_aviso_tipo_check CHECK ((tipo = ANY (ARRAY['webhook_parado'::text, 'webhook_voltou'::text, 'contingencia_ligada'::text, 'contingencia_desligada'::text])))
);

COMMENT ON TABLE public.partner_aviso IS 'Outbox of the watchdog: each row is one notice decided by SQL, carried out once by the job partner_aviso (one job per notice, claimed once across replicas): the log line, the error-tracker event (webhook_parado) and the e-mails (partner_aviso_envio).';

CREATE TABLE public.partner_aviso_envio (
    aviso_id bigint NOT NULL,
    email text NOT NULL,
    enviado_em timestamp with time zone,
    tentativas integer DEFAULT 0 NOT NULL,
    erro text
);

COMMENT ON TABLE public.partner_aviso_envio IS 'One e-mail of a notice per recipient (the active public.destinatario rows when the notice was decided). enviado_em null = not delivered yet; a retry of the job sends only these.';

ALTER TABLE public.partner_aviso ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME public.partner_aviso_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1);

CREATE TABLE public.partner_contingencia (
    id bigint NOT NULL,
    silencio_desde timestamp with time zone NOT NULL,
    ligada_em timestamp with time zone NOT NULL,
    desligada_em timestamp with time zone,
    retorno_em timestamp with time zone
);

COMMENT ON TABLE public.partner_contingencia IS 'Contingency periods: switched on after contingencia_apos_min_comercial business minutes of silence (orders pulled by REST every contingencia_intervalo_min minutes), off when the webhook returns. At most one on.';

ALTER TABLE public.partner_contingencia ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME public.partner_contingencia_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1);

CREATE TABLE public.partner_episodio (
    id bigint NOT NULL,
    silencio_desde timestamp with time zone NOT NULL,
    aberto_em timestamp with time zone NOT NULL,
    motivo text NOT NULL,
    minutos_comerciais numeric NOT NULL,
    fechado_em timestamp with time zone,
    retorno_em timestamp with time zone,
    aviso_retorno boolean,
    CONSTRAINT partner_episodio_fechado CHECK (((fechado_em IS NULL) = (retorno_em IS NULL))),
    CONSTRAINT partner_episodio_motivo_check CHECK ((motivo = ANY (ARRAY['limite_min_comercial'::text, 'limite_horas'::text])))
);

COMMENT ON TABLE public.partner_episodio IS 'Silence episodes of the webhook: opened (one alert ''Webhook parado'') when the silence since max(partner_webhook.recebido_em) reaches the business-minute limit or the hour net; closed by itself when max(recebido_em) advances. At most one open.';

COMMENT ON COLUMN public.partner_episodio.retorno_em IS 'recebido_em of the first event after the silence.';

COMMENT ON COLUMN public.partner_episodio.aviso_retorno IS 'Whether ''Webhook voltou a funcionar'' was sent: only when the return was at most partner_configuracao.aviso_retorno_max old when the episode closed.';

ALTER TABLE public.partner_episodio ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME public.partner_episodio_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1);

CREATE TABLE public.partner_pedido_transicao (
    id bigint NOT NULL,
    pedido_id uuid NOT NULL,
    de text,
    para text NOT NULL,
    motivo text NOT NULL,
    em timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.partner_pedido_transicao IS 'History of the local state of each order (de -> para, with the reason: captura, gate_transicao, gate_resgate_primeira_captura, console, cancelamento).';

ALTER TABLE public.partner_pedido_transicao ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME public.partner_pedido_transicao_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1);

CREATE TABLE public.partner_puxada (
    id bigint NOT NULL,
    motivo text NOT NULL,
    solicitada_em timestamp with time zone NOT NULL,
    job_id bigint,
    status text DEFAULT 'PENDENTE'::text NOT NULL,
    atualizado_desde timestamp with time zone,
    iniciada_em timestamp with time zone,
    concluida_em timestamp with time zone,
    tentativas integer DEFAULT 0 NOT NULL,
    paginas integer DEFAULT 0 NOT NULL,
    pedidos integer DEFAULT 0 NOT NULL,
    criados integer DEFAULT 0 NOT NULL,
    atualizados integer DEFAULT 0 NOT NULL,
    obsoletos integer DEFAULT 0 NOT NULL,
    repetidos integer DEFAULT 0 NOT NULL,
    invalidos integer DEFAULT 0 NOT NULL,
    erro text,
    CONSTRAINT partner_puxada_motivo_check CHECK ((motivo = ANY (ARRAY['poll'::text, 'contingencia'::text, 'manual'::text]))),
    CONSTRAINT partner_puxada_status_check CHECK ((status = ANY (ARRAY['PENDENTE'::text, 'EM_ANDAMENTO'::text, 'CONCLUIDA'::text, 'ERRO'::text])))
);

COMMENT ON TABLE public.partner_puxada IS 'Pulls of orders from the platform''s REST API (GET /orders?updated_since=&page=): the 6-hourly poll, the contingency pulls and manual ones. Orders go through partner_pedido_observar, like the webhook''s. erro: the last failure (a failing pull is retried by its job; ERRO when it gave up).';

ALTER TABLE public.partner_puxada ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME public.partner_puxada_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1);

CREATE TABLE public.partner_webhook (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    recebido_em timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    corpo bytea NOT NULL,
    content_type text,
    ip text,
    user_agent text,
    situacao text DEFAULT 'PENDENTE'::text NOT NULL,
    resultado text,
    detalhe text,
    evento text,
    code text,
    payload jsonb,
    processado_em timestamp with time zone,
    tentativas integer DEFAULT 0 NOT NULL,
    proxima_tentativa_em timestamp with time zone,
    CONSTRAINT partner_webhook_processado CHECK (((situacao = 'PENDENTE'::text) = (processado_em IS NULL))),
    CONSTRAINT partner_webhook_situacao_check CHECK ((situacao = ANY (ARRAY['PENDENTE'::text, 'NORMALIZADO'::text, 'REVISAR'::text])))
);

COMMENT ON TABLE public.partner_webhook IS 'Every delivery of the order platform''s webhook, stored byte for byte before the 200 answer (the platform disables the webhook after one failed delivery and never resends). situacao: PENDENTE (not normalised yet), NORMALIZADO, REVISAR (stored but not understood: see resultado/detalhe). max(recebido_em) is what the watchdog watches.';

COMMENT ON COLUMN public.partner_webhook.corpo IS 'The request body exactly as received (any bytes, even invalid JSON or UTF-8). Read it with convert_from(corpo, ''UTF8'') or the payload column.';

COMMENT ON COLUMN public.partner_webhook.resultado IS 'NORMALIZADO: criado | atualizado | obsoleto (older updated_at, state kept) | repetido (same updated_at and status). REVISAR: json_invalido | formato_desconhecido | evento_desconhecido | pedido_invalido | erro_interno.';

COMMENT ON COLUMN public.partner_webhook.payload IS 'The body parsed as JSON, when it is JSON (filled by the normalisation).';

COMMENT ON COLUMN public.partner_webhook.tentativas IS 'Failed normalisation attempts (unexpected errors, e.g. a lock timeout); retried with backoff at proxima_tentativa_em, REVISAR (resultado erro_interno) after 8.';

CREATE TABLE public.produto (
    id bigint NOT NULL,
    codigo_erp text NOT NULL,
    nome text NOT NULL,
    criado_em timestamp with time zone DEFAULT now() NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT produto_codigo_erp_check CHECK ((btrim(codigo_erp) <> ''::text)),
    CONSTRAINT produto_nome_check CHECK ((btrim(nome) <> ''::text))
);

COMMENT ON TABLE public.produto IS 'Product of the catalogue (natural key codigo_erp). Loaded by catalogo_carregar(jsonb); the ERP sync never creates products.';

COMMENT ON COLUMN public.produto.codigo_erp IS 'Code of the product in the ERP; natural key used by catalogo_carregar.';

ALTER TABLE public.produto ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME public.produto_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1);

CREATE TABLE public.variante (
    id bigint NOT NULL,
    produto_id bigint NOT NULL,
    sku text NOT NULL,
    ean text,
    preco_cheio numeric(12,2),
    preco_desconto numeric(12,2),
    estoque integer DEFAULT 0 NOT NULL,
    criado_em timestamp with time zone DEFAULT now() NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT variante_ean_check CHECK (((ean IS NULL) OR (btrim(ean) <> ''::text))),
    CONSTRAINT variante_estoque_check CHECK ((estoque >= 0)),
    CONSTRAINT variante_preco_cheio_check CHECK ((preco_cheio >= (0)::numeric)),
    CONSTRAINT variante_preco_desconto_check CHECK ((preco_desconto >= (0)::numeric)),
    CONSTRAINT variante_sku_check CHECK ((btrim(sku) <> ''::text))
);

COMMENT ON TABLE public.variante IS 'Sellable variant of a product: sku (unique), EAN (several variants may share one: POST /sync/erp reports them as ambiguos), prices and stock. POST /sync/erp updates preco_cheio, preco_desconto and estoque.';

COMMENT ON COLUMN public.variante.ean IS 'GTIN (EAN-8, UPC-A, EAN-13 or GTIN-14) as registered; not unique. Matched by exact text.';

COMMENT ON COLUMN public.variante.preco_cheio IS 'Full price, the price on credit (a prazo).';

COMMENT ON COLUMN public.variante.preco_desconto IS 'Discount price, the price for cash (à vista, promotional).';

COMMENT ON COLUMN public.variante.estoque IS 'Stock quantity.';

ALTER TABLE public.variante ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME public.variante_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1);

CREATE TABLE public.xls_conjunto_item (
    conjunto_id uuid NOT NULL,
    ordem integer NOT NULL,
    arquivo text NOT NULL,
    status text NOT NULL,
    processamento_id uuid,
    motivo text,
    CONSTRAINT xls_conjunto_item_ordem_check CHECK ((ordem > 0)),
    CONSTRAINT xls_conjunto_item_sem_processamento CHECK (((status = ANY (ARRAY['ENFILEIRADO'::text, 'REPROCESSANDO'::text])) OR (processamento_id IS NULL))),
    CONSTRAINT xls_conjunto_item_status_valido CHECK ((status = ANY (ARRAY['ENFILEIRADO'::text, 'REPROCESSANDO'::text, 'DUPLICADO'::text, 'IGNORADO'::text])))
);

COMMENT ON TABLE public.xls_conjunto_item IS 'One row per entry of a batch''s zip, in zip order, with its receipt status: ENFILEIRADO (new processing), REPROCESSANDO (same checksum found in ERRO or IGNORADO: that record is reprocessed), DUPLICADO (same checksum in SUCESSO, PENDENTE or PROCESSANDO) or IGNORADO (not an .xlsx). processamento_id is null when the entry generated no processing.';

COMMENT ON COLUMN public.xls_conjunto_item.motivo IS 'Why the entry was DUPLICADO (names the existing processing id), IGNORADO or REPROCESSANDO.';

CREATE TABLE public.xls_conjunto_lote (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    arquivo text,
    total integer DEFAULT 0 NOT NULL,
    recebido_em timestamp with time zone DEFAULT now() NOT NULL,
    fechado_em timestamp with time zone,
    fechamento_motivo text,
    uploader_id text,
    uploader_nome text,
    CONSTRAINT xls_conjunto_lote_fechamento CHECK (((fechado_em IS NULL) = (fechamento_motivo IS NULL))),
    CONSTRAINT xls_conjunto_lote_total_check CHECK ((total >= 0))
);

COMMENT ON TABLE public.xls_conjunto_lote IS 'A batch: the files sent together in one .zip. It closes (fechado_em) when its master report (RELATORIO18) commits, or when every processing of the batch has ended; on closing, items that failed by a transient foreign-key violation are reprocessed once (see xls_conjunto_avaliar).';

COMMENT ON COLUMN public.xls_conjunto_lote.arquivo IS 'Name of the .zip as uploaded.';

COMMENT ON COLUMN public.xls_conjunto_lote.total IS 'Number of entries of the zip (every entry: .xlsx or ignored), kept by the receipt functions.';

COMMENT ON COLUMN public.xls_conjunto_lote.fechado_em IS 'When the batch closed; null while open.';

COMMENT ON COLUMN public.xls_conjunto_lote.fechamento_motivo IS 'Why it closed: master report committed, or every processing ended.';

CREATE SEQUENCE public.xls_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    MAXVALUE 1152921504606846975
    CACHE 1000
    CYCLE;

COMMENT ON SEQUENCE public.xls_id_seq IS 'Low 60 bits of the time-ordered ids (UUID version 7 layout: 48-bit Unix milliseconds, version 7, variant 10, then this counter) that the RELATORIO18 lots give new bi_faturamento / bi_movimento rows: ids that grow in insertion order go to the right edge of the primary-key index instead of a random leaf (measured: inserting 200 000 rows in 8 lots, 1.35-1.41 s with random ids, 1.15 s with these). Other writers keep the column default.';

CREATE TABLE public.xls_processamento (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    status text DEFAULT 'PENDENTE'::text NOT NULL,
    tipo text,
    arquivo text NOT NULL,
    checksum text NOT NULL,
    recebido_em timestamp with time zone DEFAULT now() NOT NULL,
    iniciado_em timestamp with time zone,
    finalizado_em timestamp with time zone,
    conjunto_id uuid,
    objeto_bucket text,
    objeto_chave text,
    objeto_tamanho_bytes bigint,
    arquivo_bytes bytea,
    linhas_enviadas integer,
    linhas_efetivas integer,
    linhas_removidas integer,
    metricas jsonb,
    log_arquivo text NOT NULL,
    erro_mensagem text,
    avisos jsonb DEFAULT '[]'::jsonb NOT NULL,
    linhas_rejeitadas jsonb DEFAULT '[]'::jsonb NOT NULL,
    uploader_id text,
    uploader_nome text,
    worker text,
    execucoes integer DEFAULT 0 NOT NULL,
    fk_falhas integer DEFAULT 0 NOT NULL,
    fk_retentar boolean DEFAULT false NOT NULL,
    alarmar boolean DEFAULT false NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT xls_processamento_arquivo_guardado CHECK (((objeto_chave IS NOT NULL) OR (arquivo_bytes IS NOT NULL))),
    CONSTRAINT xls_processamento_avisos_lista CHECK ((jsonb_typeof(avisos) = 'array'::text)),
    CONSTRAINT xls_processamento_checksum_formato CHECK ((checksum ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT xls_processamento_execucoes_check CHECK ((execucoes >= 0)),
    CONSTRAINT xls_processamento_finalizado CHECK (((status = ANY (ARRAY['SUCESSO'::text, 'ERRO'::text, 'IGNORADO'::text])) = (finalizado_em IS NOT NULL))),
    CONSTRAINT xls_processamento_fk_falhas_check CHECK ((fk_falhas >= 0)),
    CONSTRAINT xls_processamento_fk_retentar CHECK (((NOT fk_retentar) OR (status = 'ERRO'::text))),
    CONSTRAINT xls_processamento_objeto CHECK (((objeto_bucket IS NULL) = (objeto_chave IS NULL))),
    CONSTRAINT xls_processamento_objeto_tamanho_bytes_check CHECK ((objeto_tamanho_bytes >= 0)),
    CONSTRAINT xls_processamento_processando CHECK (((status <> 'PROCESSANDO'::text) OR ((worker IS NOT NULL) AND (iniciado_em IS NOT NULL)))),
    CONSTRAINT xls_processamento_rejeitadas_lista CHECK ((jsonb_typeof(linhas_rejeitadas) = 'array'::text)),
    CONSTRAINT xls_processamento_status_valido CHECK ((status = ANY (ARRAY['PENDENTE'::text, 'PROCESSANDO'::text, 'SUCESSO'::text, 'ERRO'::text, 'IGNORADO'::text])))
);
ALTER TABLE ONLY public.xls_processamento ALTER COLUMN arquivo_bytes SET STORAGE EXTERNAL;

COMMENT ON TABLE public.xls_processamento IS 'One processing per distinct file (checksum): its status (PENDENTE, PROCESSANDO, SUCESSO, ERRO, IGNORADO), where the original is stored, the idempotency metrics and the audit trail. Change the status only through the xls_* functions (xls_iniciar, xls_concluir, xls_ignorar, xls_falhar, xls_reprocessar*, xls_recuperar). Never select arquivo_bytes in a listing.';

COMMENT ON COLUMN public.xls_processamento.status IS 'PENDENTE (queued), PROCESSANDO (held by a worker), SUCESSO, ERRO, IGNORADO (not a known type).';

COMMENT ON COLUMN public.xls_processamento.tipo IS 'Detected spreadsheet type (null until detection); kept across reprocessing.';

COMMENT ON COLUMN public.xls_processamento.arquivo IS 'File name as uploaded (the entry name inside the zip), of the latest send.';

COMMENT ON COLUMN public.xls_processamento.checksum IS 'SHA-256 of the file, lowercase hex. Unique: the same file always maps to the same record.';

COMMENT ON COLUMN public.xls_processamento.recebido_em IS 'First receipt of this file; the list order key. A resend reprocesses the record in place and keeps it.';

COMMENT ON COLUMN public.xls_processamento.iniciado_em IS 'Start of the latest run (PENDENTE -> PROCESSANDO).';

COMMENT ON COLUMN public.xls_processamento.finalizado_em IS 'End of the latest run; null while PENDENTE or PROCESSANDO.';

COMMENT ON COLUMN public.xls_processamento.conjunto_id IS 'Batch (zip) of the latest send; null for a loose file.';

COMMENT ON COLUMN public.xls_processamento.objeto_bucket IS 'Object-store bucket of the original; null when stored only in arquivo_bytes.';

COMMENT ON COLUMN public.xls_processamento.objeto_chave IS 'Object key, content-addressed: <yyyy>/<mm>/<checksum>.xlsx (month of the first receipt, America/Sao_Paulo).';

COMMENT ON COLUMN public.xls_processamento.objeto_tamanho_bytes IS 'Size of the original file in bytes.';

COMMENT ON COLUMN public.xls_processamento.arquivo_bytes IS 'Legacy: the original file kept in the database (storage modes PSQL and PSQL_OBJSTORE). Never returned by the API.';

COMMENT ON COLUMN public.xls_processamento.linhas_enviadas IS 'Rows sent, counted in the same scope as linhas_efetivas (the rows of the type''s data tables, not the reference tables). Null before the first successful merge.';

COMMENT ON COLUMN public.xls_processamento.linhas_efetivas IS 'Rows really written (inserted or changed); an identical re-import writes 0.';

COMMENT ON COLUMN public.xls_processamento.linhas_removidas IS 'Rows deleted because they are within the type''s scope and absent from the file.';

COMMENT ON COLUMN public.xls_processamento.metricas IS 'Per-table detail of the latest merge: {"<tabela>": {"enviadas", "efetivas", "removidas"}}.';

COMMENT ON COLUMN public.xls_processamento.log_arquivo IS 'Execution log, relative to APP_LOGS_DIR: <yyyy>/<mm>/<id>.log (month of the first receipt, America/Sao_Paulo).';

COMMENT ON COLUMN public.xls_processamento.erro_mensagem IS 'Reason of ERRO (or IGNORADO), in pt-BR for staff.';

COMMENT ON COLUMN public.xls_processamento.avisos IS 'Warnings of the latest run: [{categoria, motivo, quantidade, linhas: [{aba, linha, valor}]}] (vehicle-registry defence, repeated keys, suspended deletions...).';

COMMENT ON COLUMN public.xls_processamento.linhas_rejeitadas IS 'Rows skipped as invalid: [{aba, linha, campo, valor, mensagem}], mensagem = linha <n>: <campo> ''<valor>'' inválido.';

COMMENT ON COLUMN public.xls_processamento.uploader_id IS 'Identity of who sent the file (manual import page); null through the API.';

COMMENT ON COLUMN public.xls_processamento.worker IS 'app.worker id of the replica that holds (PROCESSANDO) or last ran the processing.';

COMMENT ON COLUMN public.xls_processamento.execucoes IS 'How many times the processing was started.';

COMMENT ON COLUMN public.xls_processamento.fk_falhas IS 'Transient foreign-key failures since the latest send (the first one in a batch is silent and retried once).';

COMMENT ON COLUMN public.xls_processamento.fk_retentar IS 'ERRO by a first transient FK failure, waiting for its batch to close to be reprocessed once.';

COMMENT ON COLUMN public.xls_processamento.alarmar IS 'The latest outcome must raise an alarm (decided by SQL; the edge sends it): every ERRO except a first transient FK failure inside a batch.';

ALTER TABLE public.xls_resetar_replicator_passo ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME public.xls_resetar_replicator_passo_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1);

ALTER TABLE ONLY app.job ADD CONSTRAINT job_pkey PRIMARY KEY (id);

ALTER TABLE ONLY app.login_tentativa ADD CONSTRAINT login_tentativa_pkey PRIMARY KEY (state);

ALTER TABLE ONLY app.repeatable_file ADD CONSTRAINT repeatable_file_pkey PRIMARY KEY (arquivo);

ALTER TABLE ONLY app.replicacao_publicacao ADD CONSTRAINT replicacao_publicacao_pkey PRIMARY KEY (nome);

ALTER TABLE ONLY app.sessao ADD CONSTRAINT sessao_pkey PRIMARY KEY (id);

ALTER TABLE ONLY app.worker ADD CONSTRAINT worker_pkey PRIMARY KEY (id);

ALTER TABLE ONLY app.xls_alvo ADD CONSTRAINT xls_alvo_pkey PRIMARY KEY (tipo, staging);

ALTER TABLE ONLY app.xls_alvo ADD CONSTRAINT xls_alvo_tipo_ordem_key UNIQUE (tipo, ordem);

ALTER TABLE ONLY app.xls_staging_coluna ADD CONSTRAINT xls_staging_coluna_pkey PRIMARY KEY (tipo, staging, ordem);

ALTER TABLE ONLY app.xls_staging_coluna ADD CONSTRAINT xls_staging_coluna_tipo_staging_coluna_key UNIQUE (tipo, staging, coluna);

ALTER TABLE ONLY app.xls_tipo ADD CONSTRAINT xls_tipo_ordem_key UNIQUE (ordem);

ALTER TABLE ONLY app.xls_tipo ADD CONSTRAINT xls_tipo_pkey PRIMARY KEY (tipo);

ALTER TABLE ONLY public.bi_centro_custo ADD CONSTRAINT bi_centro_custo_codigo_key UNIQUE (codigo);

ALTER TABLE ONLY public.bi_centro_custo ADD CONSTRAINT bi_centro_custo_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_cliente ADD CONSTRAINT bi_cliente_codigo_key UNIQUE (codigo);

ALTER TABLE ONLY public.bi_cliente ADD CONSTRAINT bi_cliente_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_compra ADD CONSTRAINT bi_compra_nk UNIQUE (cnpj_fornecedor, nota_fiscal, produto);

ALTER TABLE ONLY public.bi_compra ADD CONSTRAINT bi_compra_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_configuracao ADD CONSTRAINT bi_configuracao_chave_key UNIQUE (chave);

ALTER TABLE ONLY public.bi_configuracao ADD CONSTRAINT bi_configuracao_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_cota_fornecedor ADD CONSTRAINT bi_cota_fornecedor_nk UNIQUE (ano, polo, produto, mes);

ALTER TABLE ONLY public.bi_cota_fornecedor ADD CONSTRAINT bi_cota_fornecedor_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_faturamento ADD CONSTRAINT bi_faturamento_nk UNIQUE (filial, nota_fiscal, serie, item);

ALTER TABLE ONLY public.bi_faturamento ADD CONSTRAINT bi_faturamento_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_filial ADD CONSTRAINT bi_filial_codigo_key UNIQUE (codigo);

ALTER TABLE ONLY public.bi_filial ADD CONSTRAINT bi_filial_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_fornecedor ADD CONSTRAINT bi_fornecedor_cnpj_key UNIQUE (cnpj);

ALTER TABLE ONLY public.bi_fornecedor ADD CONSTRAINT bi_fornecedor_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_margem_consolidada ADD CONSTRAINT bi_margem_consolidada_nk UNIQUE (competencia, filial, produto);

ALTER TABLE ONLY public.bi_margem_consolidada ADD CONSTRAINT bi_margem_consolidada_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_margem_dia ADD CONSTRAINT bi_margem_dia_nk UNIQUE (data, filial, cliente, produto);

ALTER TABLE ONLY public.bi_margem_dia ADD CONSTRAINT bi_margem_dia_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_meta_carteira ADD CONSTRAINT bi_meta_carteira_nk UNIQUE (competencia, cliente, produto);

ALTER TABLE ONLY public.bi_meta_carteira ADD CONSTRAINT bi_meta_carteira_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_meta ADD CONSTRAINT bi_meta_nk UNIQUE (competencia, vendedor, produto);

ALTER TABLE ONLY public.bi_meta ADD CONSTRAINT bi_meta_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_movimento ADD CONSTRAINT bi_movimento_nk UNIQUE (filial, lancamento, conta);

ALTER TABLE ONLY public.bi_movimento ADD CONSTRAINT bi_movimento_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_posto ADD CONSTRAINT bi_posto_cnpj_key UNIQUE (cnpj);

ALTER TABLE ONLY public.bi_posto ADD CONSTRAINT bi_posto_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_produto ADD CONSTRAINT bi_produto_codigo_key UNIQUE (codigo);

ALTER TABLE ONLY public.bi_produto ADD CONSTRAINT bi_produto_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_titulo ADD CONSTRAINT bi_titulo_nk UNIQUE (posicao, tipo, documento, parcela);

ALTER TABLE ONLY public.bi_titulo ADD CONSTRAINT bi_titulo_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_trr ADD CONSTRAINT bi_trr_cnpj_key UNIQUE (cnpj);

ALTER TABLE ONLY public.bi_trr ADD CONSTRAINT bi_trr_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_veiculo ADD CONSTRAINT bi_veiculo_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.bi_veiculo ADD CONSTRAINT bi_veiculo_placa_key UNIQUE (placa);

ALTER TABLE ONLY public.bi_vendedor ADD CONSTRAINT bi_vendedor_codigo_key UNIQUE (codigo);

ALTER TABLE ONLY public.bi_vendedor ADD CONSTRAINT bi_vendedor_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.destinatario ADD CONSTRAINT destinatario_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.erp_sync_audit ADD CONSTRAINT erp_sync_audit_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.erp_sync_audit_variante ADD CONSTRAINT erp_sync_audit_variante_pkey PRIMARY KEY (audit_id, variante_id);

ALTER TABLE ONLY public.feriado ADD CONSTRAINT feriado_pkey PRIMARY KEY (data);

ALTER TABLE ONLY public.partner_aviso_envio ADD CONSTRAINT partner_aviso_envio_pkey PRIMARY KEY (aviso_id, email);

ALTER TABLE ONLY public.partner_aviso ADD CONSTRAINT partner_aviso_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.partner_configuracao ADD CONSTRAINT partner_configuracao_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.partner_contingencia ADD CONSTRAINT partner_contingencia_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.partner_episodio ADD CONSTRAINT partner_episodio_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.partner_pedido ADD CONSTRAINT partner_pedido_code_key UNIQUE (code);

ALTER TABLE ONLY public.partner_pedido ADD CONSTRAINT partner_pedido_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.partner_pedido_transicao ADD CONSTRAINT partner_pedido_transicao_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.partner_puxada ADD CONSTRAINT partner_puxada_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.partner_webhook ADD CONSTRAINT partner_webhook_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.produto ADD CONSTRAINT produto_codigo_erp_key UNIQUE (codigo_erp);

ALTER TABLE ONLY public.produto ADD CONSTRAINT produto_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.variante ADD CONSTRAINT variante_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.variante ADD CONSTRAINT variante_sku_key UNIQUE (sku);

ALTER TABLE ONLY public.xls_conjunto_item ADD CONSTRAINT xls_conjunto_item_pkey PRIMARY KEY (conjunto_id, ordem);

ALTER TABLE ONLY public.xls_conjunto_lote ADD CONSTRAINT xls_conjunto_lote_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.xls_processamento ADD CONSTRAINT xls_processamento_checksum_key UNIQUE (checksum);

ALTER TABLE ONLY public.xls_processamento ADD CONSTRAINT xls_processamento_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.xls_resetar_replicator_passo ADD CONSTRAINT xls_resetar_replicator_passo_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.xls_resetar_replicator_passo ADD CONSTRAINT xls_resetar_replicator_passo_unico UNIQUE (execucao_id, step);

ALTER TABLE ONLY public.xls_resetar_replicator ADD CONSTRAINT xls_resetar_replicator_pkey PRIMARY KEY (id);

CREATE INDEX job_claim_idx ON app.job USING btree (kind, run_at, id) WHERE (status = 'pending'::text);

CREATE INDEX job_running_idx ON app.job USING btree (locked_by) WHERE (status = 'running'::text);

CREATE UNIQUE INDEX job_unique_key_idx ON app.job USING btree (kind, unique_key) WHERE ((unique_key IS NOT NULL) AND (status = ANY (ARRAY['pending'::text, 'running'::text])));

CREATE INDEX login_tentativa_expira_idx ON app.login_tentativa USING btree (expira_em);

CREATE INDEX sessao_email_idx ON app.sessao USING btree (email, criada_em DESC);

CREATE INDEX sessao_expira_idx ON app.sessao USING btree (expira_em);

CREATE UNIQUE INDEX sessao_token_hash_key ON app.sessao USING btree (token_hash);

CREATE INDEX xls_job_processamento_idx ON app.job USING btree (((payload ->> 'id'::text))) WHERE (kind = 'xls_processar'::text);

CREATE UNIQUE INDEX xls_tipo_um_mestre ON app.xls_tipo USING btree (mestre) WHERE mestre;

CREATE INDEX bi_compra_data_idx ON public.bi_compra USING btree (data);

CREATE INDEX bi_faturamento_emissao_idx ON public.bi_faturamento USING btree (emissao);

CREATE INDEX bi_meta_carteira_cliente_idx ON public.bi_meta_carteira USING btree (cliente);

CREATE INDEX bi_meta_vendedor_idx ON public.bi_meta USING btree (vendedor);

CREATE INDEX bi_movimento_data_idx ON public.bi_movimento USING btree (data);

CREATE INDEX bi_titulo_atual_idx ON public.bi_titulo USING btree (tipo, vencimento) WHERE atual;

CREATE UNIQUE INDEX destinatario_email_key ON public.destinatario USING btree (lower(email));

CREATE INDEX erp_sync_audit_called_at_idx ON public.erp_sync_audit USING btree (called_at);

CREATE INDEX erp_sync_audit_idempotency_idx ON public.erp_sync_audit USING btree (idempotency_key, id) WHERE ((idempotency_key IS NOT NULL) AND (replay_of IS NULL));

CREATE INDEX erp_sync_audit_replay_of_idx ON public.erp_sync_audit USING btree (replay_of) WHERE (replay_of IS NOT NULL);

CREATE INDEX erp_sync_audit_variante_variante_idx ON public.erp_sync_audit_variante USING btree (variante_id, audit_id);

CREATE INDEX partner_aviso_episodio_idx ON public.partner_aviso USING btree (episodio_id);

CREATE UNIQUE INDEX partner_contingencia_ligada_key ON public.partner_contingencia USING btree ((true)) WHERE (desligada_em IS NULL);

CREATE UNIQUE INDEX partner_episodio_aberto_key ON public.partner_episodio USING btree ((true)) WHERE (fechado_em IS NULL);

CREATE INDEX partner_pedido_estado_idx ON public.partner_pedido USING btree (estado, atualizado_em);

CREATE INDEX partner_pedido_transicao_pedido_idx ON public.partner_pedido_transicao USING btree (pedido_id, id);

CREATE INDEX partner_puxada_motivo_idx ON public.partner_puxada USING btree (motivo, solicitada_em);

CREATE INDEX partner_webhook_code_idx ON public.partner_webhook USING btree (code) WHERE (code IS NOT NULL);

CREATE INDEX partner_webhook_pendente_idx ON public.partner_webhook USING btree (recebido_em) WHERE (situacao = 'PENDENTE'::text);

CREATE INDEX partner_webhook_recebido_em_idx ON public.partner_webhook USING btree (recebido_em);

CREATE INDEX partner_webhook_revisar_idx ON public.partner_webhook USING btree (recebido_em) WHERE (situacao = 'REVISAR'::text);

CREATE INDEX variante_ean_idx ON public.variante USING btree (ean) WHERE (ean IS NOT NULL);

CREATE INDEX variante_produto_idx ON public.variante USING btree (produto_id);

CREATE INDEX xls_conjunto_item_processamento_idx ON public.xls_conjunto_item USING btree (processamento_id) WHERE (processamento_id IS NOT NULL);

CREATE INDEX xls_processamento_conjunto_idx ON public.xls_processamento USING btree (conjunto_id) WHERE (conjunto_id IS NOT NULL);

CREATE INDEX xls_processamento_recebido_idx ON public.xls_processamento USING btree (recebido_em DESC, id DESC);

CREATE INDEX xls_processamento_status_idx ON public.xls_processamento USING btree (status, recebido_em DESC, id DESC);

CREATE INDEX xls_processamento_status_tipo_idx ON public.xls_processamento USING btree (status, tipo, recebido_em DESC, id DESC);

CREATE INDEX xls_processamento_tipo_idx ON public.xls_processamento USING btree (tipo, recebido_em DESC, id DESC);

CREATE INDEX xls_resetar_replicator_iniciado_em_idx ON public.xls_resetar_replicator USING btree (iniciado_em DESC, id DESC);

CREATE UNIQUE INDEX xls_resetar_replicator_um_em_andamento ON public.xls_resetar_replicator USING btree ((true)) WHERE (status = 'EM_ANDAMENTO'::text);

ALTER TABLE ONLY app.xls_alvo ADD CONSTRAINT xls_alvo_tipo_fkey FOREIGN KEY (tipo) REFERENCES app.xls_tipo(tipo);

ALTER TABLE ONLY app.xls_staging_coluna ADD CONSTRAINT xls_staging_coluna_tipo_fkey FOREIGN KEY (tipo) REFERENCES app.xls_tipo(tipo);

ALTER TABLE ONLY public.bi_compra ADD CONSTRAINT bi_compra_cnpj_fornecedor_fkey FOREIGN KEY (cnpj_fornecedor) REFERENCES public.bi_fornecedor(cnpj);

ALTER TABLE ONLY public.bi_meta_carteira ADD CONSTRAINT bi_meta_carteira_cliente_fkey FOREIGN KEY (cliente) REFERENCES public.bi_cliente(codigo);

ALTER TABLE ONLY public.bi_meta ADD CONSTRAINT bi_meta_vendedor_fkey FOREIGN KEY (vendedor) REFERENCES public.bi_vendedor(codigo);

ALTER TABLE ONLY public.erp_sync_audit ADD CONSTRAINT erp_sync_audit_replay_of_fkey FOREIGN KEY (replay_of) REFERENCES public.erp_sync_audit(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.erp_sync_audit_variante ADD CONSTRAINT erp_sync_audit_variante_audit_id_fkey FOREIGN KEY (audit_id) REFERENCES public.erp_sync_audit(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.partner_aviso ADD CONSTRAINT partner_aviso_contingencia_id_fkey FOREIGN KEY (contingencia_id) REFERENCES public.partner_contingencia(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.partner_aviso_envio ADD CONSTRAINT partner_aviso_envio_aviso_id_fkey FOREIGN KEY (aviso_id) REFERENCES public.partner_aviso(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.partner_aviso ADD CONSTRAINT partner_aviso_episodio_id_fkey FOREIGN KEY (episodio_id) REFERENCES public.partner_episodio(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.partner_pedido_transicao ADD CONSTRAINT partner_pedido_transicao_pedido_id_fkey FOREIGN KEY (pedido_id) REFERENCES public.partner_pedido(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.variante ADD CONSTRAINT variante_produto_id_fkey FOREIGN KEY (produto_id) REFERENCES public.produto(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.xls_conjunto_item ADD CONSTRAINT xls_conjunto_item_conjunto_id_fkey FOREIGN KEY (conjunto_id) REFERENCES public.xls_conjunto_lote(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.xls_conjunto_item ADD CONSTRAINT xls_conjunto_item_processamento_id_fkey FOREIGN KEY (processamento_id) REFERENCES public.xls_processamento(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.xls_processamento ADD CONSTRAINT xls_processamento_conjunto_id_fkey FOREIGN KEY (conjunto_id) REFERENCES public.xls_conjunto_lote(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.xls_resetar_replicator_passo ADD CONSTRAINT xls_resetar_replicator_passo_execucao_id_fkey FOREIGN KEY (execucao_id) REFERENCES public.xls_resetar_replicator(id) ON DELETE CASCADE;

GRANT USAGE ON SCHEMA public TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_configuracao TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_centro_custo TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_cliente TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_compra TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_cota_fornecedor TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_faturamento TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_filial TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_fornecedor TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_margem_consolidada TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_margem_dia TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_meta TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_meta_carteira TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_movimento TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_posto TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_produto TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_titulo TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_trr TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_veiculo TO bi_sync_reader;
GRANT SELECT ON TABLE public.bi_vendedor TO bi_sync_reader;

-- triggers (their functions were applied before this migration)
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_centro_custo FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_cliente FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_compra FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_cota_fornecedor FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_faturamento FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_filial FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_fornecedor FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_margem_consolidada FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_margem_dia FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_meta FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_meta_carteira FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_movimento FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_posto FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_produto FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_titulo FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_trr FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_veiculo FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_vendedor FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.destinatario FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.partner_configuracao FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.partner_pedido FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.produto FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.variante FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE TRIGGER _100_touch BEFORE UPDATE ON public.xls_processamento FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
CREATE CONSTRAINT TRIGGER _900_notificar_bot AFTER UPDATE OF status ON public.xls_processamento DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.status IS DISTINCT FROM new.status) AND (new.status = ANY (ARRAY['SUCESSO'::text, 'ERRO'::text, 'IGNORADO'::text])))) EXECUTE FUNCTION app.tg_xls_processamento__notificar_bot();
CREATE TRIGGER _900_notify AFTER INSERT OR DELETE OR UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION app.tg_bi_configuracao__notify();

-- description of the spreadsheet types and seed data
INSERT INTO app.xls_tipo (tipo, ordem, mestre, hook, descricao) VALUES
  ('COTA_FORNECEDOR', 4, false, NULL, 'Matriz de cotas do fornecedor (bi_cota_fornecedor)'),
  ('POSTOS', 5, false, NULL, 'Cadastro de postos (bi_posto)'),
  ('TRR', 6, false, NULL, 'Cadastro de TRRs (bi_trr)'),
  ('META_CARTEIRA', 8, false, NULL, 'Metas por cliente (bi_meta_carteira)'),
  ('META', 9, false, NULL, 'Metas por vendedor (bi_meta)'),
  ('RELATORIO18', 3, true, 'app.xls_hook_relatorio18', 'Relatório mestre mensal: faturamento (aba 20) e movimento contábil (aba 30)'),
  ('MARGEM_CONSOLIDADA', 7, false, 'app.xls_hook_margem_consolidada', 'Margem consolidada por competência (bi_margem_consolidada)'),
  ('MARGEM_DIA', 10, false, 'app.xls_hook_margem_dia', 'Margem diária por cliente (bi_margem_dia, bi_cliente)'),
  ('COMPRAS', 2, false, 'app.xls_hook_compras', 'Compras de combustível (bi_fornecedor, bi_compra)'),
  ('FLUXO_PAGAR_RECEBER', 1, false, 'app.xls_hook_fluxo', 'Títulos a pagar e a receber por posição (bi_titulo, bi_centro_custo)');

INSERT INTO app.xls_alvo (tipo, staging, tabela, ordem, aba, escopo, escopo_coluna, comparar, expressoes, reter) VALUES
  ('META', 'meta', 'bi_meta', 1, NULL, 'valores', 'competencia', NULL, '{"competencia": "date_trunc(''month'', competencia)::date"}', '{}'),
  ('RELATORIO18', 'faturamento', 'bi_faturamento', 1, '20', 'periodo', 'emissao', NULL, '{"item": "coalesce(item, '''')", "placa": "upper(regexp_replace(placa, ''[-[:space:]]'', '''', ''g''))", "serie": "coalesce(serie, '''')", "placa_bruta": "placa"}', '{cliente,nome_cliente,vendedor,nome_vendedor,produto,descricao_produto}'),
  ('RELATORIO18', 'movimento', 'bi_movimento', 2, '30', 'periodo', 'data', NULL, '{"placa": "upper(regexp_replace(placa, ''[-[:space:]]'', '''', ''g''))", "placa_bruta": "placa"}', '{}'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 'bi_margem_consolidada', 1, NULL, 'valores', 'competencia', NULL, '{"competencia": "date_trunc(''month'', competencia)::date"}', '{}'),
  ('MARGEM_DIA', 'margem_dia', 'bi_margem_dia', 1, NULL, 'valores', 'data', NULL, '{}', '{nome_cliente,cnpj_cpf,classe,municipio,uf}'),
  ('META_CARTEIRA', 'meta_carteira', 'bi_meta_carteira', 1, NULL, 'valores', 'competencia', NULL, '{"competencia": "date_trunc(''month'', competencia)::date"}', '{}'),
  ('POSTOS', 'posto', 'bi_posto', 1, NULL, 'tudo', NULL, NULL, '{}', '{}'),
  ('TRR', 'trr', 'bi_trr', 1, NULL, 'tudo', NULL, NULL, '{}', '{}'),
  ('COMPRAS', 'compra', 'bi_compra', 1, 'Compras', 'meses', 'data', NULL, '{"onu_texto": "codigo_onu", "codigo_onu": "case when regexp_replace(coalesce(codigo_onu, ''''), ''\\D'', '''', ''g'') ~ ''^\\d{1,4}$'' then regexp_replace(codigo_onu, ''\\D'', '''', ''g'')::smallint end"}', '{}'),
  ('COTA_FORNECEDOR', 'cota', 'bi_cota_fornecedor', 1, NULL, 'tudo', NULL, NULL, '{"ano": "case when aba ~ ''^\\d{4}$'' then aba::smallint end"}', '{}'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 'bi_titulo', 1, 'SemQuebras', 'valores', 'posicao', NULL, '{"tipo": "case upper(tipo) when ''P'' then ''PAGAR'' when ''PAGAR'' then ''PAGAR'' when ''R'' then ''RECEBER'' when ''RECEBER'' then ''RECEBER'' end", "atual": "(select e.atual from pg_temp.xls_fluxo_estado e)", "parcela": "coalesce(parcela, '''')", "posicao": "(select e.posicao from pg_temp.xls_fluxo_estado e)"}', '{tipo,saldo,centro_custo,descricao_centro_custo}');

INSERT INTO app.xls_staging_coluna (tipo, staging, ordem, coluna, tipo_sql) VALUES
  ('RELATORIO18', 'faturamento', 1, 'linha', 'integer'),
  ('RELATORIO18', 'faturamento', 2, 'filial', 'text'),
  ('RELATORIO18', 'faturamento', 3, 'nota_fiscal', 'text'),
  ('RELATORIO18', 'faturamento', 4, 'serie', 'text'),
  ('RELATORIO18', 'faturamento', 5, 'item', 'text'),
  ('RELATORIO18', 'faturamento', 6, 'emissao', 'date'),
  ('RELATORIO18', 'faturamento', 7, 'cliente', 'text'),
  ('RELATORIO18', 'faturamento', 8, 'nome_cliente', 'text'),
  ('RELATORIO18', 'faturamento', 9, 'vendedor', 'text'),
  ('RELATORIO18', 'faturamento', 10, 'nome_vendedor', 'text'),
  ('RELATORIO18', 'faturamento', 11, 'produto', 'text'),
  ('RELATORIO18', 'faturamento', 12, 'descricao_produto', 'text'),
  ('RELATORIO18', 'faturamento', 13, 'quantidade', 'numeric'),
  ('RELATORIO18', 'faturamento', 14, 'valor_unitario', 'numeric'),
  ('RELATORIO18', 'faturamento', 15, 'valor_total', 'numeric'),
  ('RELATORIO18', 'faturamento', 16, 'placa', 'text'),
  ('RELATORIO18', 'faturamento', 17, 'ano_veiculo', 'text'),
  ('RELATORIO18', 'faturamento', 18, 'modelo_veiculo', 'text'),
  ('RELATORIO18', 'movimento', 1, 'linha', 'integer'),
  ('RELATORIO18', 'movimento', 2, 'filial', 'text'),
  ('RELATORIO18', 'movimento', 3, 'data', 'date'),
  ('RELATORIO18', 'movimento', 4, 'lancamento', 'text'),
  ('RELATORIO18', 'movimento', 5, 'conta', 'text'),
  ('RELATORIO18', 'movimento', 6, 'descricao_conta', 'text'),
  ('RELATORIO18', 'movimento', 7, 'historico', 'text'),
  ('RELATORIO18', 'movimento', 8, 'debito', 'numeric'),
  ('RELATORIO18', 'movimento', 9, 'credito', 'numeric'),
  ('RELATORIO18', 'movimento', 10, 'placa', 'text'),
  ('RELATORIO18', 'movimento', 11, 'ano_veiculo', 'text'),
  ('META', 'meta', 1, 'linha', 'integer'),
  ('META', 'meta', 2, 'competencia', 'date'),
  ('META', 'meta', 3, 'vendedor', 'text'),
  ('META', 'meta', 4, 'produto', 'text'),
  ('META', 'meta', 5, 'meta_volume', 'numeric'),
  ('META', 'meta', 6, 'meta_margem', 'numeric'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 1, 'linha', 'integer'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 2, 'competencia', 'date'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 3, 'filial', 'text'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 4, 'produto', 'text'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 5, 'volume', 'numeric'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 6, 'receita_liquida', 'numeric'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 7, 'cmv', 'numeric'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 8, 'margem_total', 'numeric'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 9, 'margem_por_litro', 'numeric'),
  ('MARGEM_DIA', 'margem_dia', 1, 'linha', 'integer'),
  ('MARGEM_DIA', 'margem_dia', 2, 'data', 'date'),
  ('MARGEM_DIA', 'margem_dia', 3, 'filial', 'text'),
  ('MARGEM_DIA', 'margem_dia', 4, 'cliente', 'text'),
  ('MARGEM_DIA', 'margem_dia', 5, 'nome_cliente', 'text'),
  ('MARGEM_DIA', 'margem_dia', 6, 'vendedor', 'text'),
  ('MARGEM_DIA', 'margem_dia', 7, 'produto', 'text'),
  ('MARGEM_DIA', 'margem_dia', 8, 'volume', 'numeric'),
  ('MARGEM_DIA', 'margem_dia', 9, 'preco_medio', 'numeric'),
  ('MARGEM_DIA', 'margem_dia', 10, 'custo_medio', 'numeric'),
  ('MARGEM_DIA', 'margem_dia', 11, 'margem', 'numeric'),
  ('MARGEM_DIA', 'margem_dia', 12, 'cnpj_cpf', 'text'),
  ('MARGEM_DIA', 'margem_dia', 13, 'classe', 'text'),
  ('MARGEM_DIA', 'margem_dia', 14, 'municipio', 'text'),
  ('MARGEM_DIA', 'margem_dia', 15, 'uf', 'text'),
  ('MARGEM_DIA', 'margem_dia', 16, 'prazo', 'numeric'),
  ('META_CARTEIRA', 'meta_carteira', 1, 'linha', 'integer'),
  ('META_CARTEIRA', 'meta_carteira', 2, 'competencia', 'date'),
  ('META_CARTEIRA', 'meta_carteira', 3, 'cliente', 'text'),
  ('META_CARTEIRA', 'meta_carteira', 4, 'produto', 'text'),
  ('META_CARTEIRA', 'meta_carteira', 5, 'meta_volume', 'numeric'),
  ('POSTOS', 'posto', 1, 'linha', 'integer'),
  ('POSTOS', 'posto', 2, 'cnpj', 'text'),
  ('POSTOS', 'posto', 3, 'razao_social', 'text'),
  ('POSTOS', 'posto', 4, 'nome_fantasia', 'text'),
  ('POSTOS', 'posto', 5, 'bandeira', 'text'),
  ('POSTOS', 'posto', 6, 'endereco', 'text'),
  ('POSTOS', 'posto', 7, 'bairro', 'text'),
  ('POSTOS', 'posto', 8, 'municipio', 'text'),
  ('POSTOS', 'posto', 9, 'uf', 'text'),
  ('POSTOS', 'posto', 10, 'cep', 'text'),
  ('POSTOS', 'posto', 11, 'tipo_instalacao', 'text'),
  ('TRR', 'trr', 1, 'linha', 'integer'),
  ('TRR', 'trr', 2, 'cnpj', 'text'),
  ('TRR', 'trr', 3, 'razao_social', 'text'),
  ('TRR', 'trr', 4, 'municipio', 'text'),
  ('TRR', 'trr', 5, 'uf', 'text'),
  ('TRR', 'trr', 6, 'tipo_instalacao', 'text'),
  ('TRR', 'trr', 7, 'qualificacao_empresa', 'text'),
  ('TRR', 'trr', 8, 'capacidade_m3', 'numeric'),
  ('COMPRAS', 'compra', 1, 'linha', 'integer'),
  ('COMPRAS', 'compra', 2, 'data', 'date'),
  ('COMPRAS', 'compra', 3, 'cnpj_fornecedor', 'text'),
  ('COMPRAS', 'compra', 4, 'fornecedor', 'text'),
  ('COMPRAS', 'compra', 5, 'nota_fiscal', 'text'),
  ('COMPRAS', 'compra', 6, 'produto', 'text'),
  ('COMPRAS', 'compra', 7, 'codigo_onu', 'text'),
  ('COMPRAS', 'compra', 8, 'quantidade', 'numeric'),
  ('COMPRAS', 'compra', 9, 'valor_total', 'numeric'),
  ('COTA_FORNECEDOR', 'cota', 1, 'linha', 'integer'),
  ('COTA_FORNECEDOR', 'cota', 2, 'aba', 'text'),
  ('COTA_FORNECEDOR', 'cota', 3, 'polo', 'text'),
  ('COTA_FORNECEDOR', 'cota', 4, 'produto', 'text'),
  ('COTA_FORNECEDOR', 'cota', 5, 'mes', 'integer'),
  ('COTA_FORNECEDOR', 'cota', 6, 'quantidade', 'numeric'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 1, 'linha', 'integer'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 2, 'tipo', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 3, 'documento', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 4, 'parcela', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 5, 'pessoa', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 6, 'cnpj_cpf', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 7, 'emissao', 'date'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 8, 'vencimento', 'date'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 9, 'valor', 'numeric'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 10, 'saldo', 'numeric'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 11, 'centro_custo', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 12, 'descricao_centro_custo', 'text');

INSERT INTO public.bi_configuracao (chave, valor, tipo, sistema, descricao) VALUES
  ('ultimo_nuke', '1970-01-01T00:00:00.000Z', 'string', true,
   'Instante (UTC, ISO-8601) do último reset da replicação. Só cresce; clientes que veem um valor novo limpam os dados locais e sincronizam do zero.'),
  ('slow_query_timeout_ms', '5000', 'integer', false,
   'Tempo (ms) a partir do qual o aplicativo considera uma consulta local lenta.');
-- national holidays 2026-2040 (Good Friday from Easter)
INSERT INTO public.feriado (data, nome)
SELECT make_date(y, m, d), nome
  FROM generate_series(2026, 2040) y
 CROSS JOIN (VALUES
   (1, 1, 'Confraternização Universal'), (4, 21, 'Tiradentes'), (5, 1, 'Dia do Trabalho'),
   (9, 7, 'Independência do Brasil'), (10, 12, 'Nossa Senhora Aparecida'), (11, 2, 'Finados'),
   (11, 15, 'Proclamação da República'), (11, 20, 'Dia Nacional de Zumbi e da Consciência Negra'),
   (12, 25, 'Natal')) f(m, d, nome)
UNION ALL
SELECT app.pascoa(y) - 2, 'Sexta-feira Santa' FROM generate_series(2026, 2040) y;
INSERT INTO public.partner_configuracao DEFAULT VALUES;
INSERT INTO app.replicacao_publicacao (nome) VALUES ('powersync');

-- CHECKs that call a function (it may read the rows above)
ALTER TABLE public.partner_pedido ADD CONSTRAINT partner_pedido_status_check CHECK ((app.partner_status_ordem(status) IS NOT NULL));
ALTER TABLE public.bi_configuracao ADD CONSTRAINT bi_configuracao_valor_valido CHECK (public.configuracao_valor_valido(tipo, valor));
ALTER TABLE app.xls_tipo ADD CONSTRAINT xls_tipo_tipo_check CHECK (public.xls_tipo_valido(tipo));
ALTER TABLE public.xls_processamento ADD CONSTRAINT xls_processamento_tipo_valido CHECK (((tipo IS NULL) OR public.xls_tipo_valido(tipo)));

-- the sync engine's publication: every bi_* table of public
CREATE PUBLICATION powersync WITH (publish = 'insert, update, delete, truncate');
COMMENT ON PUBLICATION powersync IS 'Publication of the sync engine: every bi_* table of public, also those created later (event trigger _200_bi_publicar), and nothing else.';
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_centro_custo;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_cliente;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_compra;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_configuracao;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_cota_fornecedor;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_faturamento;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_filial;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_fornecedor;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_margem_consolidada;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_margem_dia;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_meta;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_meta_carteira;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_movimento;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_posto;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_produto;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_titulo;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_trr;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_veiculo;
ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_vendedor;

CREATE EVENT TRIGGER _100_bi_grant_sync_reader ON ddl_command_end WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO') EXECUTE FUNCTION app.tg__grant_bi_select();
CREATE EVENT TRIGGER _200_bi_publicar ON ddl_command_end WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE') EXECUTE FUNCTION app.tg__publicar_bi();

SELECT app.schedule('app_sweep_jobs', '* * * * *', 'select app.sweep_jobs()');
SELECT app.schedule('partner_tick', '* * * * *', 'select public.partner_tick(now())');
SELECT app.schedule('xls_recuperar', '* * * * *', 'select public.xls_recuperar()');
SELECT app.schedule('app_sessao_expirar', '17 * * * *', 'select app.sessao_expirar()');
SELECT app.schedule('replicacao_recuperar', '* * * * *', 'select count(*) from public.replicacao_recuperar()');

-- migrate:down
SELECT app.unschedule('app_sweep_jobs');
SELECT app.unschedule('partner_tick');
SELECT app.unschedule('xls_recuperar');
SELECT app.unschedule('app_sessao_expirar');
SELECT app.unschedule('replicacao_recuperar');
DROP EVENT TRIGGER IF EXISTS _200_bi_publicar;
DROP EVENT TRIGGER IF EXISTS _100_bi_grant_sync_reader;
DROP PUBLICATION IF EXISTS powersync;
-- the views of db/views read these tables: CASCADE drops them with the tables
DROP TABLE public.partner_pedido, public.bi_configuracao, public.destinatario, public.partner_configuracao, public.xls_resetar_replicator, public.xls_resetar_replicator_passo, public.bi_centro_custo, public.bi_cliente, public.bi_compra, public.bi_cota_fornecedor, public.bi_faturamento, public.bi_filial, public.bi_fornecedor, public.bi_margem_consolidada, public.bi_margem_dia, public.bi_meta, public.bi_meta_carteira, public.bi_movimento, public.bi_posto, public.bi_produto, public.bi_titulo, public.bi_trr, public.bi_veiculo, public.bi_vendedor, public.erp_sync_audit, public.erp_sync_audit_variante, public.feriado, public.partner_aviso, public.partner_aviso_envio, public.partner_contingencia, public.partner_episodio, public.partner_pedido_transicao, public.partner_puxada, public.partner_webhook, public.produto, public.variante, public.xls_conjunto_item, public.xls_conjunto_lote, public.xls_processamento CASCADE;
DROP SEQUENCE public.xls_id_seq;
REVOKE USAGE ON SCHEMA public FROM bi_sync_reader;
DROP SCHEMA app CASCADE;
