/** Names and execution-log lines: controls and bidi controls never reach staff. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escaparLinha, limparNome, nomeDownload } from '../../src/planilhas/nomes.js';
import { ExecLog } from '../../src/planilhas/execlog.js';
import { contentDisposition } from '../../src/planilhas/arquivo.js';

describe('limparNome', () => {
  it('strips C0, DEL, C1 and bidi controls, keeps accents and emoji', () => {
    expect(limparNome('rel\u202eatório\u200f\u2066 nov\u0007\u001b[0m\u0085.xlsx')).toBe('relatório nov[0m.xlsx');
    expect(limparNome('a\r\nb\tc.xlsx')).toBe('abc.xlsx');
    expect(limparNome('metas 😀 São João.xlsx')).toBe('metas 😀 São João.xlsx');
    expect(limparNome('\u202e\u0000 ')).toBe('');
  });
});

describe('nomeDownload', () => {
  it('always ends in .xlsx; a legacy .xls keeps its extension', () => {
    expect(nomeDownload('lote/metas.xlsx')).toBe('metas.xlsx');
    expect(nomeDownload('relatorio')).toBe('relatorio.xlsx');
    expect(nomeDownload('planilha.exe')).toBe('planilha.exe.xlsx');
    expect(nomeDownload('cod\u202exslx.exe')).toBe('codxslx.exe.xlsx');
    expect(nomeDownload('antiga.XLS')).toBe('antiga.XLS');
    expect(nomeDownload('fim.')).toBe('fim.xlsx');
    expect(nomeDownload('\u0007')).toBe('arquivo.xlsx');
    expect(contentDisposition('x\u202egpj.xlsx')).toBe(`attachment; filename="xgpj.xlsx"; filename*=UTF-8''xgpj.xlsx`);
  });
});

describe('execution log lines', () => {
  it('escape anything non-printable: one event, one line', async () => {
    expect(escaparLinha('a\nb\rc\td\u001b[31m\u202e\u0000\u0085\ud800 ok é 😀')).toBe('a\\nb\\rc\\td\\e[31m\\u{202e}\\x00\\x85\\u{d800} ok é 😀');
    const dir = mkdtempSync(join(tmpdir(), 'bi-execlog-'));
    const log = new ExecLog(dir, '2026/11/x.log');
    log.line('início: nov.xlsx\n2026-11-23 10:00:00.000 desfecho: SUCESSO\u001b[2J');
    log.line('desfecho: ERRO');
    await log.close();
    const lines = readFileSync(join(dir, '2026/11/x.log'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/início: nov\.xlsx\\n2026-11-23 10:00:00\.000 desfecho: SUCESSO\\e\[2J$/);
  });
});
