CREATE OR REPLACE FUNCTION public.xls_conjunto_avaliar(p_conjunto_id uuid)
 RETURNS TABLE(fechado boolean, reprocessados uuid[])
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_fechado_em timestamptz;
  v_motivo text;
  v_ids uuid[] := '{}';
  v_id uuid;
begin
  select l.fechado_em into v_fechado_em from public.xls_conjunto l where l.id = p_conjunto_id for update;
  if not found or v_fechado_em is not null then
    return query select false, '{}'::uuid[];
    return;
  end if;
  select format('relatório mestre concluído: processamento %s', p.id) into v_motivo
    from public.xls_processamento p
   where p.conjunto_id = p_conjunto_id and p.status = 'SUCESSO' and public.xls_tipo_mestre(p.tipo)
   order by p.finalizado_em limit 1;
  if v_motivo is null and not exists (select from public.xls_processamento p
                                       where p.conjunto_id = p_conjunto_id and p.status in ('PENDENTE', 'PROCESSANDO')) then
    v_motivo := 'todos os processamentos do conjunto terminaram';
  end if;
  if v_motivo is null then
    return query select false, '{}'::uuid[];
    return;
  end if;
  update public.xls_conjunto set fechado_em = now(), fechamento_motivo = v_motivo where id = p_conjunto_id;
  for v_id in
    select p.id from public.xls_processamento p
     where p.conjunto_id = p_conjunto_id and p.status = 'ERRO' and p.fk_retentar
     order by p.id for update
  loop
    if app.xls_requeue(v_id) then
      v_ids := v_ids || v_id;
    end if;
  end loop;
  return query select true, v_ids;
end;
$function$
;

comment on function public.xls_conjunto_avaliar(uuid) is 'Closes an open batch when its master report (RELATORIO18) is in SUCESSO, or when none of its processings is PENDENTE or PROCESSANDO any more; on closing, every item in ERRO waiting for it (fk_retentar: first transient FK failure) is reprocessed once. Returns whether this call closed the batch and the ids reprocessed. Called by the transitions; harmless to call by hand.';
