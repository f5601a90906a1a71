-- migrate:up
-- POST /sync/erp (issue 13): refused calls (400, 413, 422) leave an audit row too.
alter table public.erp_sync_audit
  add column recusa_status smallint,
  add column recusa_detalhe text,
  alter column request_sha256 drop not null,
  drop constraint erp_sync_audit_response_check,
  add constraint erp_sync_audit_response_check check ((replay_of is null and recusa_status is null) = (response is not null)),
  add constraint erp_sync_audit_recusa_check check (recusa_status is null or (recusa_status in (400, 413, 422) and replay_of is null));
comment on column public.erp_sync_audit.recusa_status is 'HTTP status of a refused call (400 envelope or body invalid, 413 more than 200 items or a body over 1 MiB, 422 Idempotency-Key reused with another body or mode); null for an answered call. A refused call applies nothing; its counts are 0 but recebidos (the items it carried, when they could be read).';
comment on column public.erp_sync_audit.recusa_detalhe is 'The detail of the refusal, as the caller received it (problem+json detail).';
comment on column public.erp_sync_audit.request_sha256 is 'Hex SHA-256 of the items as canonical jsonb text (key order and whitespace do not matter); null for a refused call whose body had no readable items.';
comment on table public.erp_sync_audit is 'One row per call of erp_sync() (POST /sync/erp or psql), in either mode: when, mode, the response counts, the SHA-256 of the request items (canonical jsonb text), the Idempotency-Key and the full response. A replay of an idempotent call is a row with replay_of = the original and response null; its counts repeat the original''s (sum atualizados over replay_of is null). A call refused with 400, 413 or 422 is a row with recusa_status and recusa_detalhe (erp_sync_recusa_registrar), counts 0 and response null; a 401 leaves no row. Rows are kept until a DBA deletes them (changes cascade).';

-- migrate:down
delete from public.erp_sync_audit where recusa_status is not null;
alter table public.erp_sync_audit
  drop constraint erp_sync_audit_recusa_check,
  drop constraint erp_sync_audit_response_check,
  add constraint erp_sync_audit_response_check check ((replay_of is null) = (response is not null)),
  alter column request_sha256 set not null,
  drop column recusa_detalhe,
  drop column recusa_status;
drop function if exists public.erp_sync_recusa_registrar(integer, text, jsonb, text, boolean);
comment on column public.erp_sync_audit.request_sha256 is 'Hex SHA-256 of the items as canonical jsonb text (key order and whitespace do not matter).';
comment on table public.erp_sync_audit is 'One row per answered call of erp_sync() (POST /sync/erp or psql), in either mode: when, mode, the response counts, the SHA-256 of the request items (canonical jsonb text), the Idempotency-Key and the full response. A replay of an idempotent call is a row with replay_of = the original and response null; its counts repeat the original''s (sum atualizados over replay_of is null). Calls refused before the decision (401, 400, 413, 422) leave no row. Rows are kept until a DBA deletes them (changes cascade).';
