CREATE OR REPLACE FUNCTION public.replicacao_slots_remover(p_prefixo text DEFAULT 'powersync_'::text, p_execucao uuid DEFAULT NULL::uuid)
 RETURNS text[]
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_ativo text;
  v_slot text;
  v_removidos text[] := '{}';
begin
  if p_prefixo is null or p_prefixo = '' then
    raise exception 'prefixo de slot vazio: recusado (removeria todos os slots)' using errcode = 'RR400';
  end if;
  select s.slot_name into v_ativo from public.replicacao_slots(p_prefixo) s where s.active limit 1;
  if v_ativo is not null then
    raise exception 'o slot % está ativo: o motor de sincronização ainda o usa; nenhum slot foi removido', v_ativo
      using errcode = 'RR409';
  end if;
  for v_slot in select s.slot_name from public.replicacao_slots(p_prefixo) s where not s.active loop
    perform pg_drop_replication_slot(v_slot);
    v_removidos := v_removidos || v_slot;
  end loop;
  if p_execucao is not null then
    update public.xls_resetar_replicator set slots_removidos = slots_removidos || v_removidos where id = p_execucao;
  end if;
  return v_removidos;
end;
$function$
;

comment on function public.replicacao_slots_remover(text, uuid) is 'Reset step RESET_SLOT, also for psql: drops every inactive replication slot of this database whose name starts with p_prefixo (two can coexist) and returns their names; records them on the execution p_execucao when given. RR409 when one of them is active (nothing is dropped); RR400 for an empty prefix.';
