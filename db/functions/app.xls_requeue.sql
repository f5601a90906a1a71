CREATE OR REPLACE FUNCTION app.xls_requeue(p_id uuid, p_de text[] DEFAULT ARRAY['ERRO'::text])
 RETURNS boolean
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  update public.xls_processamento
     set status = 'PENDENTE', iniciado_em = null, finalizado_em = null, worker = null, erro_mensagem = null, erro_codigo = null,
         erro_anterior = case when status = 'ERRO' then erro_mensagem end,
         avisos = '[]', linhas_rejeitadas = '[]', metricas = null,
         linhas_enviadas = null, linhas_efetivas = null, linhas_removidas = null,
         fk_retentar = false, alarmar = false, retentar_em = null
   where id = p_id and status = any(p_de);
  if not found then
    return false;
  end if;
  perform app.xls_enfileirar(p_id);
  return true;
end;
$function$
;

comment on function app.xls_requeue(uuid,text[]) is 'Internal transition shared by resend, reprocess buttons and the batch FK retry: puts a processing whose status is in p_de (default ERRO) back to PENDENTE, clears the results of the previous run (metrics, warnings, rejected rows, error; the error message moves to erro_anterior when it came from ERRO, so the list keeps it among the errors until it ends) and queues its job. False (nothing done) when the status is not in p_de. Callers check and lock.';
