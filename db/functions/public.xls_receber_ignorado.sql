CREATE OR REPLACE FUNCTION public.xls_receber_ignorado(p_conjunto_id uuid, p_arquivo text, p_motivo text)
 RETURNS TABLE(arquivo text, processamento_id uuid, status text, motivo text)
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if p_conjunto_id is null then
    raise exception 'entrada ignorada fora de um conjunto: recuse o arquivo avulso na borda' using errcode = 'XL400';
  end if;
  if nullif(btrim(p_motivo), '') is null then
    raise exception 'motivo ausente para a entrada ignorada %', p_arquivo using errcode = 'XL400';
  end if;
  perform app.xls_conjunto_item_registrar(p_conjunto_id, coalesce(nullif(btrim(p_arquivo), ''), '(sem nome)'), 'IGNORADO', null, p_motivo);
  return query select coalesce(nullif(btrim(p_arquivo), ''), '(sem nome)'), null::uuid, 'IGNORADO'::text, p_motivo;
end;
$function$
;

comment on function public.xls_receber_ignorado(uuid,text,text) is 'Records an entry of a batch that is not an .xlsx (PDF, __MACOSX/, ~$ lock file...) with status IGNORADO and its reason; no processing. XL400 without batch or reason, XL404 unknown batch.';
