-- migrate:up
-- The outcome of a processing's final transition: one type for the three functions that
-- returned the same RETURNS TABLE (xls_concluir, xls_falhar, xls_ignorar).
create type app.xls_desfecho as (
  processamento_id uuid,
  status text,
  alarmar boolean,
  motivo text,
  conjunto_fechado boolean,
  reprocessados uuid[]
);
comment on type app.xls_desfecho is 'The outcome of a final transition of a processing (xls_concluir, xls_falhar, xls_ignorar): processamento_id, the new status, alarmar (whether staff are told now), motivo (the reason as recorded), conjunto_fechado (its batch closed with it) and reprocessados (processings of the batch put back in the queue by that close, or the processing itself on an automatic retry).';

-- migrate:down
-- the three functions go with the type; the files of the code being rolled back define them
-- again with their RETURNS TABLE (they are applied after every migration)
drop type app.xls_desfecho cascade;
