-- migrate:up
-- Fencing tokens. A job's claim has an epoch (app.job.epoch, +1 at every claim) and a
-- processing's run has one (xls_processamento.execucoes, +1 at every xls_iniciar): the worker
-- passes its epoch to every write of the job (app.complete_job, app.fail_job, xls_concluir,
-- xls_falhar, and the merge entry check through p_meta.execucao), and SQL refuses a write of an
-- older epoch, so a worker that was stopped (SIGSTOP, a long GC, a frozen VM) and resumed after
-- its job was reclaimed cannot commit over the new outcome, even under the same worker id. The
-- new signatures are in db/functions; the old ones are dropped here (the down drops the new
-- ones: the files of the version migrated to bring their functions back).
alter table app.job add column epoch bigint not null default 0;
comment on column app.job.epoch is 'Fencing token of the current claim: +1 at every app.claim_jobs. app.complete_job and app.fail_job given p_epoch refuse (false / null) a claim that is not the current one.';
drop function if exists app.complete_job(text,bigint);
drop function if exists app.fail_job(text,bigint,text);
drop function if exists public.xls_concluir(uuid,text,jsonb,jsonb);
drop function if exists public.xls_falhar(uuid,text,text,text,jsonb,jsonb);
drop function if exists app.xls_transicao_recusada(uuid,text,text);

-- migrate:down
drop function if exists app.complete_job(text,bigint,bigint);
drop function if exists app.fail_job(text,bigint,text,bigint);
drop function if exists public.xls_concluir(uuid,text,jsonb,jsonb,integer);
drop function if exists public.xls_falhar(uuid,text,text,text,jsonb,jsonb,integer);
drop function if exists app.xls_transicao_recusada(uuid,text,text,integer);
alter table app.job drop column epoch;
