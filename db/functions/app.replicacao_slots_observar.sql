CREATE OR REPLACE FUNCTION app.replicacao_slots_observar()
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  v_n integer;
begin
  -- a slot dropped since the last look: its row goes (a new slot of the same name starts afresh)
  delete from app.replicacao_slot_visto v
   where not exists (select from pg_replication_slots s
                      where s.database = current_database() and s.slot_name::text = v.slot);
  insert into app.replicacao_slot_visto as v (slot, observado_desde, visto_em, ativo_visto_em)
  select s.slot_name::text, now(), now(), case when s.active then now() end
    from pg_replication_slots s
   where s.database = current_database()
  on conflict (slot) do update set
    visto_em = excluded.visto_em,
    -- a gap of more than 5 minutes between two looks (pg_cron stopped): what happened in it is
    -- unknown, so the slot is observed anew from this look
    observado_desde = case when v.visto_em < excluded.visto_em - interval '5 minutes'
                           then excluded.observado_desde else v.observado_desde end,
    ativo_visto_em = case when v.visto_em < excluded.visto_em - interval '5 minutes'
                          then excluded.ativo_visto_em
                          else coalesce(excluded.ativo_visto_em, v.ativo_visto_em) end;
  get diagnostics v_n = row_count;
  return v_n;
end;
$function$
;

comment on function app.replicacao_slots_observar() is 'Looks at every replication slot of this database and records in app.replicacao_slot_visto when each was last seen active (a client holding it), so that public.replicacao_saude can say since when an inactive slot is inactive (Postgres 15 does not record it). Run every minute by the pg_cron job replicacao_slots_observar; returns how many slots it saw. A gap of more than 5 minutes between two looks restarts the observation of every slot.';
