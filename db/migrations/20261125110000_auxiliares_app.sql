-- migrate:up
-- Internal helpers leave public for app (public keeps what a DBA calls): the trigger functions,
-- the orphan test of a processing, the worker liveness test and the two bot texts. Their files
-- (db/functions/app.*) were applied before this migration; the triggers are pointed at them
-- and the public names dropped. On a database built from the baseline this changes nothing.
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_centro_custo FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_cliente FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_compra FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_cota_fornecedor FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_faturamento FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_filial FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_fornecedor FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_margem_consolidada FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_margem_dia FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_meta FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_meta_carteira FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_movimento FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_posto FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_produto FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_titulo FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_trr FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_veiculo FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.bi_vendedor FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.destinatario FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.partner_configuracao FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.partner_pedido FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.produto FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.variante FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _100_touch BEFORE UPDATE ON public.xls_processamento FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();
create or replace trigger _900_notify AFTER INSERT OR DELETE OR UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION app.tg_bi_configuracao__notify();
-- a constraint trigger has no OR REPLACE
drop trigger _900_notificar_bot on public.xls_processamento;
CREATE CONSTRAINT TRIGGER _900_notificar_bot AFTER UPDATE OF status ON public.xls_processamento DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.status IS DISTINCT FROM new.status) AND (new.status = ANY (ARRAY['SUCESSO'::text, 'ERRO'::text, 'IGNORADO'::text])))) EXECUTE FUNCTION app.tg_xls_processamento__notificar_bot();
-- the view reads the liveness test: its file re-creates it on app's after this migration
drop view if exists public.xls_v_processamento;
drop function if exists public.tg__touch_atualizado_em();
drop function if exists public.tg_bi_configuracao__notify();
drop function if exists public.tg_xls_processamento__notificar_bot();
drop function if exists public.xls_orfao(uuid, text);
drop function if exists public.xls_worker_vivo(text);
drop function if exists public.xls_mensagem_bot(uuid);
drop function if exists public.replicacao_texto_bot(public.xls_resetar_replicator);

-- migrate:down
-- back to public with their current text; triggers and the view follow the function itself
alter function app.tg__touch_atualizado_em() set schema public;
alter function app.tg_bi_configuracao__notify() set schema public;
alter function app.tg_xls_processamento__notificar_bot() set schema public;
alter function app.xls_orfao(uuid, text) set schema public;
alter function app.xls_worker_vivo(text) set schema public;
alter function app.xls_mensagem_bot(uuid) set schema public;
alter function app.replicacao_texto_bot(public.xls_resetar_replicator) set schema public;
