CREATE OR REPLACE FUNCTION public.xls_conjunto_recebido(p_conjunto_id uuid)
 RETURNS TABLE(ordem integer, arquivo text, processamento_id uuid, status text, motivo text)
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
#variable_conflict use_column
begin
  perform 1 from public.xls_conjunto l where l.id = p_conjunto_id for update;
  if not found then
    raise exception 'conjunto % não existe', p_conjunto_id using errcode = 'XL404';
  end if;
  -- a batch whose entries generated no processing has nothing to wait for
  update public.xls_conjunto l
     set fechado_em = now(), fechamento_motivo = 'nenhuma entrada gerou processamento'
   where l.id = p_conjunto_id and l.fechado_em is null
     and not exists (select from public.xls_processamento p where p.conjunto_id = l.id);
  return query
    select i.ordem, i.arquivo, i.processamento_id, i.status, i.motivo
      from public.xls_conjunto_item i where i.conjunto_id = p_conjunto_id order by i.ordem;
end;
$function$
;

comment on function public.xls_conjunto_recebido(uuid) is 'Ends the receipt of a batch (call last, in the receipt transaction): closes it at once when no entry generated a processing, and returns its entries in zip order (the receipt response: total = number of entries; 202 when any is ENFILEIRADO or REPROCESSANDO). XL404 unknown batch.';
