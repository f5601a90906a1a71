-- migrate:up
-- Staff screens (issue 14): login sessions and pending identity-provider logins in the
-- app schema (the service's own state), and the list indexes of the processing screen.
set local lock_timeout = '5s';

create table app.sessao (
  id uuid primary key default gen_random_uuid(),
  token_hash bytea not null,
  email text not null,
  nome text,
  papel text not null default 'equipe' check (papel in ('equipe', 'smoke')),
  csrf text not null check (length(csrf) >= 32),
  criada_em timestamptz not null default now(),
  ultimo_uso_em timestamptz not null default now(),
  expira_em timestamptz not null,
  encerrada_em timestamptz,
  motivo_encerramento text check (motivo_encerramento in ('logout', 'rotacao', 'expirada')),
  check (expira_em > criada_em)
);
comment on table app.sessao is 'Login sessions of the staff screens. The browser holds a random token in the session cookie; only its SHA-256 (token_hash) is stored, so a copy of this table opens no session. csrf is the token every form of the session carries. papel: equipe (identity-provider login) or smoke (POST /smoke/session: may only read). Write only through app.sessao_* functions.';
create unique index sessao_token_hash_key on app.sessao (token_hash);
create index sessao_email_idx on app.sessao (email, criada_em desc);
create index sessao_expira_idx on app.sessao (expira_em);

create table app.login_tentativa (
  state text primary key check (length(state) >= 32),
  nonce text not null,
  code_verifier text not null,
  destino text not null check (destino ~ '^/' and destino !~ '^//' and destino !~ '^/\\'),
  criada_em timestamptz not null default now(),
  expira_em timestamptz not null default now() + interval '10 minutes'
);
comment on table app.login_tentativa is 'Identity-provider logins started and not yet finished: the OAuth state (also the CSRF token of the callback), the OIDC nonce, the PKCE code verifier and the local path to return to. A row is consumed once by the callback (app.login_consumir) and lives at most 10 minutes.';
create index login_tentativa_expira_idx on app.login_tentativa (expira_em);

-- The processing list (screen and API) orders by recebido_em desc, id desc and filters by
-- status, tipo or both: one index per combination, each in the exact order of the list.
drop index public.xls_processamento_recebido_idx;
drop index public.xls_processamento_status_idx;
drop index public.xls_processamento_tipo_idx;
create index xls_processamento_recebido_idx on public.xls_processamento (recebido_em desc, id desc);
create index xls_processamento_status_idx on public.xls_processamento (status, recebido_em desc, id desc);
create index xls_processamento_tipo_idx on public.xls_processamento (tipo, recebido_em desc, id desc);
create index xls_processamento_status_tipo_idx on public.xls_processamento (status, tipo, recebido_em desc, id desc);

select app.schedule('app_sessao_expirar', '17 * * * *', 'select app.sessao_expirar()');

-- migrate:down
set local lock_timeout = '5s';
select app.unschedule('app_sessao_expirar');
drop index public.xls_processamento_status_tipo_idx;
drop index public.xls_processamento_tipo_idx;
drop index public.xls_processamento_status_idx;
drop index public.xls_processamento_recebido_idx;
create index xls_processamento_recebido_idx on public.xls_processamento (recebido_em desc, id);
create index xls_processamento_status_idx on public.xls_processamento (status, recebido_em desc);
create index xls_processamento_tipo_idx on public.xls_processamento (tipo, recebido_em desc);
drop function if exists app.login_iniciar(text, text, text, text);
drop function if exists app.login_consumir(text);
drop function if exists app.sessao_criar(text, text, text, text, interval, text, text);
drop function if exists app.sessao_validar(text);
drop function if exists app.sessao_encerrar(text);
drop function if exists app.sessao_expirar();
drop function if exists public.configuracao_criar(text, text, text, text);
drop function if exists public.configuracao_remover(text, timestamptz);
drop function if exists public.destinatario_salvar(uuid, text, text, boolean, timestamptz);
drop function if exists public.destinatario_remover(uuid);
drop table app.login_tentativa;
drop table app.sessao;
