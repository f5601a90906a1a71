/**
 * The caller does database work between the reader's steps (opening a transaction, creating
 * staging tables): pauses between detectType, meta() and rows() must lose nothing.
 * (Found by the pipeline: a pass left waiting at a sheet boundary lost the next sheet.)
 */
import { describe, expect, it } from 'vitest';
import { buildRelatorio18, buildMeta } from '../fixtures/builder.js';
import { detectType, openWorkbook, readRows } from '../../src/xlsx/index.js';

const ROWS = 20;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('pauses between the reader steps', () => {
  it.each([0, 25, 100])('RELATORIO18 with %i ms pauses reads every row of both tabs', async (ms) => {
    const wb = await openWorkbook(await buildRelatorio18({ rows: ROWS }));
    const tipo = await detectType(wb);
    await pause(ms);
    const reader = readRows(wb, tipo!);
    expect(await reader.meta()).toMatchObject({ periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' });
    await pause(ms);
    const per: Record<string, number> = {};
    for await (const row of reader.rows()) {
      per[row.staging] = (per[row.staging] ?? 0) + 1;
      if (ms && (per[row.staging] === 1 || per[row.staging] === 5)) await pause(ms);
    }
    expect(per).toEqual({ faturamento: ROWS / 2, movimento: ROWS / 2 });
  });

  it('META after a pause', async () => {
    const wb = await openWorkbook(await buildMeta({ rows: 40 }));
    const reader = readRows(wb, (await detectType(wb))!);
    await reader.meta();
    await pause(25);
    let n = 0;
    for await (const _ of reader.rows()) n += 1;
    expect(n).toBe(40);
  });
});
