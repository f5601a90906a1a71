CREATE OR REPLACE FUNCTION public.partner_puxada_iniciar(p_id bigint, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS TABLE(atualizado_desde timestamp with time zone, motivo text, status text)
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.partner_puxada;
  v_desde timestamptz;
begin
  select * into v_row from public.partner_puxada p where p.id = p_id for update;
  if not found then
    raise exception 'puxada % não existe', p_id using errcode = 'PW404';
  end if;
  if v_row.status = 'CONCLUIDA' then
    return query select v_row.atualizado_desde, v_row.motivo, v_row.status;
    return;
  end if;
  v_desde := coalesce(
    (select max(p.iniciada_em) - interval '10 minutes' from public.partner_puxada p where p.status = 'CONCLUIDA'),
    p_agora - (select c.puxada_janela_inicial from public.partner_configuracao c));
  update public.partner_puxada p set status = 'EM_ANDAMENTO', iniciada_em = p_agora, atualizado_desde = v_desde,
         tentativas = p.tentativas + 1, paginas = 0, pedidos = 0, criados = 0, atualizados = 0, obsoletos = 0,
         repetidos = 0, invalidos = 0
   where p.id = p_id;
  return query select v_desde, v_row.motivo, 'EM_ANDAMENTO'::text;
end;
$function$
;

comment on function public.partner_puxada_iniciar(bigint,timestamp with time zone) is 'Starts (or restarts, after a failed attempt) a pull and decides its updated_since: the start of the last completed pull minus 10 minutes of overlap, or partner_configuracao.puxada_janela_inicial ago for the first one. A pull already CONCLUIDA is returned as is (the job then does nothing).';
