CREATE OR REPLACE FUNCTION app.xls_conjunto_item_registrar(p_conjunto_id uuid, p_arquivo text, p_status text, p_processamento_id uuid, p_motivo text)
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_ordem integer;
  v_fechado timestamptz;
begin
  update public.xls_conjunto set total = total + 1 where id = p_conjunto_id
  returning total, fechado_em into v_ordem, v_fechado;
  if not found then
    raise exception 'conjunto % não existe', p_conjunto_id using errcode = 'XL404';
  end if;
  if v_fechado is not null then
    raise exception 'conjunto % já foi fechado; envie os arquivos num novo conjunto (zip)', p_conjunto_id using errcode = 'XL409';
  end if;
  insert into public.xls_conjunto_item (conjunto_id, ordem, arquivo, status, processamento_id, motivo)
  values (p_conjunto_id, v_ordem, p_arquivo, p_status, p_processamento_id, p_motivo);
  return v_ordem;
end;
$function$
;

comment on function app.xls_conjunto_item_registrar(uuid,text,text,uuid,text) is 'Internal to the receipt: appends one entry to a batch (ordem = position in the zip) and counts it in total. XL404 unknown batch, XL409 batch already closed.';
