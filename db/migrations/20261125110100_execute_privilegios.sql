-- migrate:up
-- EXECUTE on functions is not PUBLIC's (PostgreSQL's default grants it to every role): only the
-- owner — the service's role, which migrates and applies db/functions — and superusers run
-- them; another role runs what it is granted by name (db/README.md, "Privileges"). The default
-- privileges cover the functions created later by this role, so no file repeats the revoke.
alter default privileges revoke execute on functions from public;
revoke execute on all functions in schema public, app from public;

-- migrate:down
grant execute on all functions in schema public, app to public;
alter default privileges grant execute on functions to public;
