import { startEmbeddedPostgres } from '/work/wt/i18-undo/src/embedded/postgres.js';
import { migrate } from '/work/wt/i18-undo/src/db/migrate.js';
import pg from 'pg';
const e = await startEmbeddedPostgres({ dataDir: '/tmp/scratch/data', cronDatabase: 'postgres', port: 55432, log: console.log } as any);
const c = new pg.Client(e.url('postgres')); await c.connect();
await c.query('drop database if exists dev'); await c.query('create database dev'); await c.end();
const r = await migrate(e.url('dev'));
console.log('migrated', r.aplicados.length, e.url('dev'));
process.stdin.resume();
