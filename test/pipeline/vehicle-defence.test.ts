/** The vehicle-registry defence through the whole pipeline: detail, bot text, one tracker warning. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { startFakeBot, type FakeBot } from '../harness/fake-bot.js';
import { startErrtrackerReceiver, type ErrtrackerReceiver } from '../harness/errtracker-receiver.js';
import { bearer } from '../harness/service.js';
import { flushErrtracker, initErrtracker } from '../../src/integrations/errtracker.js';
import { buildRelatorio18, generatedFaturamento } from '../fixtures/builder.js';
import { contentDisposition } from '../../src/planilhas/arquivo.js';

let db: TestDatabase;
let bot: FakeBot;
let tracker: ErrtrackerReceiver;
let p: Pipeline;

beforeAll(async () => {
  [db, bot, tracker] = await Promise.all([createTestDatabase(), startFakeBot(), startErrtrackerReceiver()]);
  initErrtracker({ dsn: tracker.dsn, release: 'test', environment: 'test', commit: null });
  p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL', BOT_TOKEN: bot.token, BOT_CHAT_ID: '-9', BOT_API_URL: bot.url } });
});
afterAll(async () => {
  await p?.close();
  await Promise.all([db?.drop(), bot?.close(), tracker?.close()]);
});

describe('vehicle-registry defence', () => {
  it('imports the rows, lists the reasons in the detail and the bot message, and sends one warning event', async () => {
    const base = (i: number) => generatedFaturamento(1000 + i);
    const file = await buildRelatorio18({
      faturamento: [
        { ...base(0), placa: 'XX-12', ano_veiculo: '2019/2020' },          // placa inválida
        { ...base(1), placa: null, ano_veiculo: '2019/2020' },             // placa ausente
        { ...base(2), placa: 'ABC1234', ano_veiculo: '2019' },             // ano do veículo inválido
        { ...base(3), placa: 'ABC1D23', ano_veiculo: '2021/2019' },        // ano modelo incoerente
        { ...base(4), placa: 'ABC1D24', ano_veiculo: '2020/2021' },        // ok
      ],
    });
    const res = await p.upload('r18-veiculos.xlsx', file, 'application/octet-stream');
    expect(res.statusCode).toBe(202);
    await p.drain();
    const id = res.json().itens[0].processamentoId;
    const detail = (await p.app.inject({ url: `/api/comercial/processamentos/${id}`, headers: bearer() })).json();
    expect(detail.status).toBe('SUCESSO');
    expect(detail.linhasEfetivas).toBe(5);
    const motivos = (detail.avisos as Array<{ categoria: string; motivo: string; quantidade: number }>)
      .filter((a) => a.categoria === 'veiculo').map((a) => `${a.motivo}:${a.quantidade}`).sort();
    expect(motivos).toEqual(['ano do veículo inválido:1', 'ano modelo incoerente:1', 'placa ausente:1', 'placa inválida:1']);
    await bot.waitFor((m) => m.text.includes(id) && m.text.includes('placa inválida'));
    await flushErrtracker();
    const ev = await tracker.waitFor((e) => String(e.message ?? '').startsWith('defesa do cadastro de veículos'));
    expect(ev.level).toBe('warning');
    expect(tracker.events.filter((e) => String(e.message ?? '').startsWith('defesa do cadastro de veículos'))).toHaveLength(1);
  });
});

describe('Content-Disposition (RFC 6266)', () => {
  it('gives an ASCII fallback and the exact UTF-8 name', () => {
    expect(contentDisposition('lote/Relatório "Nov" 2026.xlsx'))
      .toBe(`attachment; filename="Relatorio _Nov_ 2026.xlsx"; filename*=UTF-8''Relat%C3%B3rio%20%22Nov%22%202026.xlsx`);
    expect(contentDisposition('simples.xlsx')).toBe(`attachment; filename="simples.xlsx"; filename*=UTF-8''simples.xlsx`);
  });
});
