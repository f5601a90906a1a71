CREATE OR REPLACE FUNCTION public.erp_sync_recusa_registrar(p_status integer, p_detalhe text, p_items jsonb, p_idempotency_key text, p_dry_run boolean)
 RETURNS bigint
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_id bigint;
begin
  if p_status is null or p_status not in (400, 413, 422) then
    raise exception 'recusa de POST /sync/erp com status % : só 400, 413 e 422 são auditados', p_status using errcode = 'ES400';
  end if;
  insert into public.erp_sync_audit (dry_run, recebidos, casados, atualizados, nao_encontrados, ambiguos, erros,
                                     request_sha256, idempotency_key, response, recusa_status, recusa_detalhe)
  values (coalesce(p_dry_run, true),
          case when jsonb_typeof(p_items) = 'array' then jsonb_array_length(p_items) else 0 end, 0, 0, 0, 0, 0,
          case when jsonb_typeof(p_items) = 'array' then encode(sha256(convert_to(p_items::text, 'UTF8')), 'hex') end,
          -- a malformed key is not kept as a key (the detail names it)
          case when p_idempotency_key ~ '^[\x20-\x7e]{1,255}$' then p_idempotency_key end,
          null, p_status, left(p_detalhe, 2000))
  returning id into v_id;
  return v_id;
end;
$function$
;

comment on function public.erp_sync_recusa_registrar(integer,text,jsonb,text,boolean) is 'Audits a call of POST /sync/erp refused with 400, 413 or 422 (the edge calls it after answering the refusal, the failed erp_sync() transaction being rolled back): one erp_sync_audit row with recusa_status, recusa_detalhe, the mode, the items received and their SHA-256 when the body had an items list, and the Idempotency-Key when well formed. Returns the row id.';
