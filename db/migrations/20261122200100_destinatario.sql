-- migrate:up
set local lock_timeout = '5s';

create table public.destinatario (
  id uuid primary key default gen_random_uuid(),
  email text not null check (email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
  nome text,
  ativo boolean not null default true,
  criado_em timestamptz not null default now(),
  atualizado_em timestamptz not null default now()
);
comment on table public.destinatario is 'Recipients of the operational alert e-mails (the /destinatarios page): every active row receives the order-webhook alerts ''Webhook parado'' and ''Webhook voltou a funcionar''. DBAs may INSERT/UPDATE/DELETE rows; ativo = false keeps a row without sending to it.';
create unique index destinatario_email_key on public.destinatario (lower(email));

create trigger _100_touch before update on public.destinatario
  for each row execute function public.tg__touch_atualizado_em();

-- migrate:down
set local lock_timeout = '5s';
drop table public.destinatario;
