/**
 * `npm run db:definitions:export [-- --url postgres://…] [--only schema.name]`: writes the live
 * definition of every function (db/functions/<schema>.<name>.sql, all overloads of the name)
 * and view (db/views/<schema>.<name>.sql) of the schemas public and app, with their comments
 * and grants, as the database holds them. Without --url it migrates a throwaway database.
 *
 * For a DBA who fixed a function in psql and wants the fix in the repository, and for the
 * one-time move of the definitions out of the migrations. Review the diff before committing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { definitionsRoot } from '../src/db/repeatable.js';
import { startTestCluster, prepareDatabases, TEMPLATE_DB, type TestCluster } from '../test/harness/cluster.js';

const args = process.argv.slice(2);
const opt = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };

const OBJECTS = `
  select n.nspname as schema, p.proname as name, 'functions' as dir,
         string_agg(
           -- pg_get_functiondef leaves VOLATILE out (the default); every file states it
           -- (test/foundation/volatilidade.test.ts), so it goes back after the LANGUAGE line
           case when p.prokind = 'f' and p.provolatile = 'v'
                then regexp_replace(regexp_replace(pg_get_functiondef(p.oid),
                       '(' || chr(10) || ' LANGUAGE \\w+' || chr(10) || ')', '\\1 VOLATILE' || chr(10)),
                       '(' || chr(10) || ' VOLATILE)' || chr(10) || ' ((STRICT|SECURITY|LEAKPROOF|PARALLEL)[^' || chr(10) || ']*' || chr(10) || ')', '\\1 \\2')
                else pg_get_functiondef(p.oid) end || ';' || e'\\n'
           || coalesce(e'\\n' || format('comment on %s %s is %L;', case p.prokind when 'p' then 'procedure' else 'function' end,
                                        p.oid::regprocedure, obj_description(p.oid, 'pg_proc')), '')
           || coalesce((select string_agg(
                 case when a.grantee = 0 then format(e'\\n' || 'grant execute on %s %s to public;', case p.prokind when 'p' then 'procedure' else 'function' end, p.oid::regprocedure)
                      else format(e'\\n' || 'grant execute on %s %s to %I;', case p.prokind when 'p' then 'procedure' else 'function' end, p.oid::regprocedure, r.rolname) end, '')
               from aclexplode(p.proacl) a left join pg_roles r on r.oid = a.grantee
               where a.grantee <> p.proowner), '')
           -- no revoke from PUBLIC: 20261125110100_execute_privilegios does it for every
           -- function, by default privileges too, so no file carries one (db/README.md)
           ,
           e'\\n\\n' order by p.oid::regprocedure::text) as sql
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname in ('public', 'app') and p.prokind in ('f', 'p')
     and not exists (select from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
   group by 1, 2, 3
  union all
  select n.nspname, c.relname, 'views',
         format(e'create or replace view %s as\\n%s', c.oid::regclass, pg_get_viewdef(c.oid))
         || coalesce(e'\\n\\n' || format('comment on view %s is %L;', c.oid::regclass, obj_description(c.oid, 'pg_class')), '')
         || coalesce((select string_agg(format(e'\\n' || 'comment on column %s.%I is %L;', c.oid::regclass, a.attname, col_description(c.oid, a.attnum)), '' order by a.attnum)
                        from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and col_description(c.oid, a.attnum) is not null), '')
         || coalesce((select string_agg(format(e'\\n' || 'grant %s on %s to %I;', a.privilege_type, c.oid::regclass, r.rolname), '' order by r.rolname, a.privilege_type)
                        from aclexplode(c.relacl) a join pg_roles r on r.oid = a.grantee where a.grantee <> c.relowner), '')
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname in ('public', 'app') and c.relkind = 'v'
     and not exists (select from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')`;

async function exportFrom(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // names in the output qualified with their schema (regclass, regprocedure, view bodies)
    await client.query(`set search_path = pg_catalog`);
    const only = opt('--only');
    const { rows } = await client.query<{ schema: string; name: string; dir: string; sql: string }>(OBJECTS);
    let n = 0;
    for (const r of rows) {
      if (only && only !== `${r.schema}.${r.name}`) continue;
      mkdirSync(join(definitionsRoot, r.dir), { recursive: true });
      const text = r.sql.replace(/[ \t]+$/gm, '').trimEnd() + '\n';
      writeFileSync(join(definitionsRoot, r.dir, `${r.schema}.${r.name}.sql`), text);
      n += 1;
    }
    return n;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const url = opt('--url');
  let cluster: TestCluster | undefined;
  try {
    let target = url;
    if (!target) {
      cluster = await startTestCluster();
      await prepareDatabases(cluster);
      target = cluster.urlFor(TEMPLATE_DB);
    }
    const n = await exportFrom(target);
    process.stderr.write(`${n} definições escritas em db/functions e db/views\n`);
  } finally {
    await cluster?.stop();
  }
}
void main().then(() => process.exit(0), (err) => { process.stderr.write(`${String(err?.stack ?? err)}\n`); process.exit(1); });
