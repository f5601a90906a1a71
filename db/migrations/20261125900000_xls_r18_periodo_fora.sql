-- migrate:up
-- RELATORIO18's own period check leaves: the merge checks the period of every type with a
-- periodo scope (app.xls_merge_preparar, XL422), and the hook no longer calls it.
drop function if exists app.xls_r18_periodo(jsonb);

-- migrate:down
-- No migration holds a function body: to bring app.xls_r18_periodo back, apply by hand the file
-- db/functions/app.xls_r18_periodo.sql of release 2.2.0's successor tree (git show
-- 321e2fa:db/functions/app.xls_r18_periodo.sql | psql); the hook of this tree does not call it.
select 1;
