-- migrate:up
-- Functions and views live one per file under db/functions/ and db/views/ and are re-applied
-- after the dbmate migrations, in the same advisory-locked step, when their text changes
-- (src/db/migrate.ts). This table records which text of each file the database carries.
create table app.repeatable_file (
  arquivo text primary key,
  sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  aplicado_em timestamptz not null default now()
);
comment on table app.repeatable_file is
  'Functions and views applied from db/functions/*.sql and db/views/*.sql: the file (relative to db/), the SHA-256 of the text applied and when. A file whose text differs (or is absent here) is applied again at the next migrate; every file is applied again after any dbmate migration. Delete a row to force one file to be re-applied.';

-- migrate:down
drop table app.repeatable_file;
