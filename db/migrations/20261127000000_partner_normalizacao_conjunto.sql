-- migrate:up
-- The webhook's normalisation works on a set of events (a batch) instead of one event at a
-- time: the order fields read from a platform payload travel between the reader and the
-- applier as rows of this type (docs/webhook.md, "How a batch is normalised").
create type app.partner_pedido_lido as (
  recurso jsonb,
  code text,
  status text,
  atualizado timestamptz,
  pago_em timestamptz,
  total numeric,
  cliente jsonb,
  itens jsonb,
  erro text
);
comment on type app.partner_pedido_lido is 'An order of the platform as read by app.partner_pedido_ler: the payload (recurso), its code, status (lower-case), atualizado (updated_at, else the event''s time), pago_em, total, cliente (the customer object or {}), itens (the items array or null); erro: why it cannot be read (the PW422 message of partner_pedido_observar), the other fields then null.';

-- their rules now live in app.partner_pedido_ler (one statement for a whole batch) and
-- app.partner_webhook_normalizar_ids; nothing else called them
drop function if exists app.partner_instante(jsonb, text);
drop function if exists app.partner_numero(jsonb, text);
drop function if exists app.partner_webhook_interpretar(public.partner_webhook, timestamptz);
-- the gate decides for a set of orders now (app.partner_gate(uuid[], timestamptz))
drop function if exists app.partner_gate(public.partner_pedido, timestamptz);

-- migrate:down
-- the functions using the type go with it; the files of the code being rolled back to define
-- the dropped ones again (they are applied after every migration)
drop type app.partner_pedido_lido cascade;
drop function if exists app.partner_gate(uuid[], timestamptz);
