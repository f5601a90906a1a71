/** The sync engine's stand-in (motor-substituto.mjs) as a SYNC_ENGINE_CMD, for the tests (CI has no engine). */
import { join } from 'node:path';
import { findPgBinDir } from '../../src/db/pg-bin.js';
import { projectRoot } from '../../src/paths.js';

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A command line run by /bin/sh, to which the caller appends `start -c <configuration file>`. */
export function substitutoCmd(): string {
  return [process.execPath, join(projectRoot, 'test', 'harness', 'motor-substituto.mjs'), join(findPgBinDir(), 'pg_recvlogical')].map(q).join(' ');
}
