-- migrate:up
-- Change sets of the spreadsheet merges: what each processing inserted, rewrote and removed
-- in the bi_* tables (enough to undo it exactly), captured by statement-level triggers with
-- transition tables on every bi_* table the merges write; the undo, the approval of a held
-- mass deletion and the retention of the change sets (docs/xls-alteracoes.md).

create table app.xls_alteracao (
  seq bigint generated always as identity primary key,
  processamento_id uuid not null references public.xls_processamento (id) on delete cascade,
  tabela text not null,
  operacao text not null check (operacao in ('INSERIDA', 'ALTERADA', 'REMOVIDA')),
  linha_id uuid not null,
  chave jsonb not null,
  antes jsonb,
  depois jsonb,
  check ((operacao = 'INSERIDA') = (antes is null)),
  check ((operacao = 'REMOVIDA') = (depois is null))
);
comment on table app.xls_alteracao is 'Change set of every spreadsheet processing, one row per bi_* row it changed, in the order written (seq): INSERIDA (depois = the row as inserted), ALTERADA (antes = the stored row before the rewrite, depois = after), REMOVIDA (antes = the stored row before the removal). chave = the natural key (the table''s UNIQUE constraint) as JSON, linha_id = the row''s id. Written only by the trigger app.tg__xls_alteracao during a merge; read through public.xls_alteracoes, public.xls_linhagem and public.xls_desfazer; purged after xls_alteracoes_retencao_dias by app.xls_alteracoes_expurgar.';
comment on column app.xls_alteracao.seq is 'Order of the writes (a later processing has a larger seq): the undo restores the earliest antes of each row and refuses when a later processing touched the same key.';
create index xls_alteracao_processamento_idx on app.xls_alteracao (processamento_id, tabela, operacao, seq);
create index xls_alteracao_chave_idx on app.xls_alteracao (tabela, chave, seq);

alter table public.xls_processamento
  add column desfeito_em timestamptz,
  add column desfeito_por text,
  add column exclusoes_aprovadas_em timestamptz,
  add column exclusoes_aprovadas_por text,
  add column alteracoes_expiradas_em timestamptz,
  add column exclusao_retida boolean not null default false,
  add constraint xls_processamento_desfeito check ((desfeito_em is null) = (desfeito_por is null)),
  add constraint xls_processamento_aprovado check ((exclusoes_aprovadas_em is null) = (exclusoes_aprovadas_por is null));
comment on column public.xls_processamento.desfeito_em is 'When this processing was undone (public.xls_desfazer): every row it changed is back as it was; the status stays.';
comment on column public.xls_processamento.desfeito_por is 'Who undid it: the staff member''s e-mail, "api" (Bearer) or the DBA''s text.';
comment on column public.xls_processamento.exclusoes_aprovadas_em is 'When a person approved the removals the mass-deletion guard held (reprocess with aprovarExclusoes / "Aplicar mesmo assim"); the next run of this processing is not held.';
comment on column public.xls_processamento.exclusoes_aprovadas_por is 'Who approved the held removals: e-mail, "api" or the DBA''s text.';
comment on column public.xls_processamento.exclusao_retida is 'The last run ended ERRO because the mass-deletion guard held it (XL428): it would remove more than xls_exclusao_limite_percentual % (and at least xls_exclusao_limite_linhas rows) of a table''s scope. public.xls_aprovar_exclusoes reprocesses it with the guard lifted.';
comment on column public.xls_processamento.alteracoes_expiradas_em is 'When the change set of this processing was purged by the retention (xls_alteracoes_retencao_dias): it can no longer be undone.';

insert into public.bi_configuracao (chave, valor, tipo, sistema, descricao) values
  ('xls_alteracoes_retencao_dias', '180', 'integer', false,
   'Dias que o registro de alterações de cada importação de planilha é guardado (para desfazer e para o histórico das linhas).'),
  ('xls_exclusao_limite_percentual', '30', 'integer', false,
   'Uma importação que removeria mais que este percentual das linhas do seu escopo numa tabela (e ao menos xls_exclusao_limite_linhas linhas) fica retida até alguém aprovar.'),
  ('xls_exclusao_limite_linhas', '100', 'integer', false,
   'Número mínimo de linhas removidas para a trava de exclusão em massa reter uma importação.');

-- The change-set triggers (_900_xls_alteracao_*) and the event trigger _300_bi_alteracoes are
-- installed by db/functions/app.xls_alteracao_instalar.sql, applied after the migrations.

select app.schedule('app_xls_alteracoes_expurgar', '41 3 * * *', 'select app.xls_alteracoes_expurgar()');

-- migrate:down
select app.unschedule('app_xls_alteracoes_expurgar');
delete from public.bi_configuracao where chave in ('xls_alteracoes_retencao_dias', 'xls_exclusao_limite_percentual', 'xls_exclusao_limite_linhas');
do $$
declare t record;
begin
  for t in select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'public' and c.relkind = 'r' and c.relname like 'bi\_%' loop
    execute format('drop trigger if exists _900_xls_alteracao_ins on public.%I', t.relname);
    execute format('drop trigger if exists _900_xls_alteracao_upd on public.%I', t.relname);
    execute format('drop trigger if exists _900_xls_alteracao_del on public.%I', t.relname);
  end loop;
end $$;
drop event trigger if exists _300_bi_alteracoes;
alter table public.xls_processamento
  drop column desfeito_em, drop column desfeito_por, drop column exclusoes_aprovadas_em,
  drop column exclusoes_aprovadas_por, drop column alteracoes_expiradas_em, drop column exclusao_retida;
drop table app.xls_alteracao;
