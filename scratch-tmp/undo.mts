import pg from 'pg';
import { migrate } from '/work/main/src/db/migrate.js';
const admin = new pg.Client('postgres://postgres@127.0.0.1:55432/postgres'); await admin.connect();
await admin.query('drop database if exists dev2'); await admin.query('create database dev2'); await admin.end();
await migrate('postgres://postgres@127.0.0.1:55432/dev2');
console.log('ok');
process.exit(0);
