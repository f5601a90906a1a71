import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecLog, execLogRelativePath } from '../../src/xls/execlog.js';

describe('execution log', () => {
  it('lives at <yyyy>/<mm>/<id>.log by the São Paulo calendar', () => {
    // 2026-12-01 02:00Z is still 30 November in São Paulo
    expect(execLogRelativePath('abc', new Date('2026-12-01T02:00:00Z'))).toBe('2026/11/abc.log');
    expect(execLogRelativePath('abc', new Date('2026-12-01T04:00:00Z'))).toBe('2026/12/abc.log');
  });

  it('appends timestamped lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bi-log-'));
    const log = new ExecLog(dir, '2026/11/x.log');
    log.line('início');
    log.line('fim');
    await log.close();
    const text = readFileSync(join(dir, '2026/11/x.log'), 'utf8');
    expect(text).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} início\n\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} fim\n$/);
  });
});
