/**
 * The reference phone without an engine (src/celular/celular.ts): the ultimo_nuke rule on
 * the phone's own SQLite file (values written locally stand for what a sync would bring),
 * and the engine refusing the token (a local HTTP server answering as the engine does).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Celular, ErroCelular, TABELAS, resumoErro, sondarMotor, tokenRecusado } from '../../src/celular/celular.js';
import { AppSchema } from '../../src/celular/esquema.js';

const abertos: Celular[] = [];
const pastas: string[] = [];
afterEach(async () => {
  for (const c of abertos.splice(0)) await c.fechar().catch(() => undefined);
  for (const p of pastas.splice(0)) rmSync(p, { recursive: true, force: true });
});

function arquivoNovo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bi-celular-'));
  pastas.push(dir);
  return join(dir, 'celular', 'suporte.db');
}

async function abrir(arquivo: string, url = 'http://127.0.0.1:9', log: string[] = []): Promise<Celular> {
  const c = await Celular.abrir({ url, token: () => 'x', arquivo, log: (l) => log.push(l) });
  abertos.push(c);
  return c;
}

/** Writes ultimo_nuke into the phone's bi_configuracao, as a sync would. */
async function nuke(c: Celular, valor: string): Promise<void> {
  const r = await c.banco.execute("update bi_configuracao set valor = ? where chave = 'ultimo_nuke'", [valor]);
  if (!r.rowsAffected) await c.banco.execute("insert into bi_configuracao (id, chave, valor, tipo, sistema) values (uuid(), 'ultimo_nuke', ?, 'string', 1)", [valor]);
}
const vendedor = (c: Celular, codigo: string) => c.banco.execute("insert into bi_vendedor (id, codigo, nome) values (uuid(), ?, 'Ana')", [codigo]);
const pausa = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the ultimo_nuke rule', () => {
  it('first value: remembered, nothing cleared; a different one: the data is cleared and the new value remembered', async () => {
    const log: string[] = [];
    const c = await abrir(arquivoNovo(), undefined, log);
    expect(await c.ultimoNuke()).toBeNull();
    await nuke(c, '2026-01-01T00:00:00.000Z');
    await vendedor(c, 'V1');
    await vi.waitFor(() => expect(log).toContain('ultimo_nuke 2026-01-01T00:00:00.000Z (primeira vez: guardado)'));
    await pausa(200);
    expect(c.limpezas).toBe(0);
    expect(await c.linhas('bi_vendedor')).toHaveLength(1);

    await nuke(c, '2026-02-01T00:00:00.000Z');
    await vi.waitFor(() => expect(c.limpezas).toBe(1));
    expect(log).toContain('ultimo_nuke mudou de 2026-01-01T00:00:00.000Z para 2026-02-01T00:00:00.000Z: limpando os dados e sincronizando do zero');
    expect(Object.values(await c.contagens()).every((n) => n === 0)).toBe(true);
    expect(await c.ultimoNuke()).toBeNull(); // cleared with the rest: the next sync brings it back
  });

  it('what it remembers survives a restart and the clear: the same value again is nothing, a new one clears', async () => {
    const arquivo = arquivoNovo();
    let c = await abrir(arquivo);
    await nuke(c, 'A');
    await vi.waitFor(async () => expect((await c.banco.getAll('select valor from celular_estado'))).toEqual([{ valor: 'A' }]));
    await nuke(c, 'B');
    await vi.waitFor(() => expect(c.limpezas).toBe(1));
    expect(await c.banco.getAll('select valor from celular_estado')).toEqual([{ valor: 'B' }]);
    await c.fechar();

    c = await abrir(arquivo);
    expect(c.limpezas).toBe(0);
    await nuke(c, 'B'); // the sync after the clear brings the new value back: nothing to do
    await vendedor(c, 'V1');
    await pausa(300);
    expect(c.limpezas).toBe(0);
    expect(await c.linhas('bi_vendedor')).toHaveLength(1);
    await nuke(c, 'C');
    await vi.waitFor(() => expect(c.limpezas).toBe(1));
    expect(await c.linhas('bi_vendedor')).toEqual([]);
  });

  it('applies the rule to what the file already holds when it opens', async () => {
    const arquivo = arquivoNovo();
    let c = await abrir(arquivo);
    await nuke(c, 'A');
    await vi.waitFor(async () => expect((await c.banco.getAll('select valor from celular_estado'))).toHaveLength(1));
    // the value changes while this instance is not watching (the state row rewritten behind it)
    await c.banco.execute("update celular_estado set valor = 'velho'");
    await c.fechar();
    c = await abrir(arquivo);
    expect(c.limpezas).toBe(1);
    expect(await c.banco.getAll('select valor from celular_estado')).toEqual([{ valor: 'A' }]);
  });
});

describe('the phone', () => {
  it('lists rows by id with the synced columns, and counts every synced table', async () => {
    const c = await abrir(arquivoNovo());
    await vendedor(c, 'V2');
    await vendedor(c, 'V1');
    const linhas = await c.linhas('bi_vendedor');
    expect(linhas.map((l) => Object.keys(l))).toEqual([['id', 'codigo', 'nome', 'filial', 'atualizado_em'], ['id', 'codigo', 'nome', 'filial', 'atualizado_em']]);
    expect(linhas.map((l) => l.id)).toEqual(linhas.map((l) => l.id as string).sort());
    const contagens = await c.contagens();
    expect(Object.keys(contagens)).toEqual([...TABELAS].sort());
    expect(TABELAS).toEqual(AppSchema.tables.map((t) => t.name));
    expect(contagens.bi_vendedor).toBe(2);
    await expect(c.linhas('celular_estado')).rejects.toThrow(ErroCelular);
    await expect(c.linhas('bi_x; drop table y')).rejects.toThrow(/tabela desconhecida/);
    expect(c.ultimaSincronizacao()).toBeNull();
  });

  it('aoMudar reports the synced tables that change', async () => {
    const c = await abrir(arquivoNovo());
    const vistas: string[][] = [];
    const parar = c.aoMudar((m) => vistas.push(m.tabelas), 10);
    await vendedor(c, 'V1');
    await vi.waitFor(() => expect(vistas).toContainEqual(['bi_vendedor']));
    parar();
    await vendedor(c, 'V2');
    await pausa(100);
    expect(vistas.flat().filter((t) => t === 'bi_vendedor')).toHaveLength(1);
  });

  it('aguardarSincronia: DESCONECTADO before conectar', async () => {
    const c = await abrir(arquivoNovo());
    await expect(c.aguardarSincronia(1000)).rejects.toMatchObject({ codigo: 'DESCONECTADO' });
  });
});

describe('the engine answering', () => {
  let servidor: Server | null = null;
  afterEach(async () => { await new Promise((r) => (servidor ? servidor.close(r) : r(undefined))); servidor = null; });

  /** Answers like the engine to a token signed with another key. */
  async function motorQueRecusa(): Promise<string> {
    servidor = createServer((req, res) => {
      if (req.url === '/probes/liveness') { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ready":true}'); return; }
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'PSYNC_S2101', status: 401, description: 'signature verification failed', name: 'AuthorizationError' } }));
    });
    await new Promise<void>((r) => servidor!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(servidor.address() as AddressInfo).port}`;
  }

  it('a refused token ends aguardarSincronia at once with TOKEN_RECUSADO and the engine\'s reason', async () => {
    const url = await motorQueRecusa();
    const c = await abrir(arquivoNovo(), url);
    await c.conectar();
    const inicio = Date.now();
    const erro = await c.aguardarSincronia(20_000).catch((e: unknown) => e);
    expect(erro).toBeInstanceOf(ErroCelular);
    expect(erro).toMatchObject({ codigo: 'TOKEN_RECUSADO', message: 'o motor recusou o token do celular (401 PSYNC_S2101: signature verification failed)' });
    expect(Date.now() - inicio).toBeLessThan(10_000);
  });

  it('an engine that does not answer: MOTOR_INACESSIVEL from sondarMotor, TEMPO_ESGOTADO with the last error from aguardarSincronia', async () => {
    const fechado = await motorQueRecusa();
    await new Promise((r) => servidor!.close(r));
    servidor = null;
    await expect(sondarMotor(fechado, 2000)).rejects.toMatchObject({ codigo: 'MOTOR_INACESSIVEL', message: expect.stringContaining(`motor de sincronização inacessível em ${fechado}`) });
    const c = await abrir(arquivoNovo(), fechado);
    await c.conectar();
    await expect(c.aguardarSincronia(1500)).rejects.toMatchObject({ codigo: 'TEMPO_ESGOTADO', message: expect.stringMatching(/^o celular não alcançou o motor em 2 s \(último erro: .*\)$/) });
  });

  it('two phones whose files have the same name, in different folders, sync at the same time', async () => {
    // an engine that takes every sync stream and holds it open: a phone syncing holds the engine client's sync lock
    const abertas = new Map<string, number>(); // phone -> its sync streams open now
    const respostas = new Set<import('node:http').ServerResponse>();
    servidor = createServer((req, res) => {
      if (req.url?.startsWith('/sync/stream')) {
        const quem = String(req.headers.authorization).replace(/^Token /, '');
        abertas.set(quem, (abertas.get(quem) ?? 0) + 1);
        res.on('close', () => abertas.set(quem, abertas.get(quem)! - 1));
        respostas.add(res);
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write(`${JSON.stringify({ token_expires_in: 3600 })}\n`);
        return;
      }
      if (req.url === '/sync/checkpoint-request') { // the engine acknowledges the phone's request id
        let corpo = '';
        req.on('data', (c: Buffer) => { corpo += c.toString(); });
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ data: { checkpoint_request_id: String((JSON.parse(corpo) as { checkpoint_request_id: unknown }).checkpoint_request_id) } }));
        });
        return;
      }
      req.resume();
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => servidor!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(servidor.address() as AddressInfo).port}`;
    const juntos = () => (abertas.get('um') ?? 0) > 0 && (abertas.get('outro') ?? 0) > 0;
    try {
      const um = await Celular.abrir({ url, token: () => 'um', arquivo: arquivoNovo() });
      abertos.push(um);
      const outro = await Celular.abrir({ url, token: () => 'outro', arquivo: arquivoNovo() });
      abertos.push(outro);
      await um.conectar();
      for (const limite = Date.now() + 10_000; !abertas.get('um') && Date.now() < limite;) await pausa(20);
      expect(abertas.get('um')).toBe(1);
      // the second one syncs while the first is syncing: it does not wait for the first to disconnect
      void outro.conectar().catch(() => undefined);
      for (const limite = Date.now() + 10_000; !juntos() && Date.now() < limite;) await pausa(20);
      expect(Object.fromEntries(abertas)).toEqual({ um: 1, outro: 1 });
    } finally {
      for (const r of respostas) r.destroy();
      servidor.closeAllConnections();
    }
  });

  it('tells a refused token from other errors', () => {
    expect(tokenRecusado(new Error('HTTP Unauthorized', { cause: new Error('401') }))).toBe(true);
    expect(tokenRecusado(new Error('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }))).toBe(false);
    expect(resumoErro(new Error('x: {"error":{"code":"PSYNC_S2103","status":401,"description":"token expired"}}'))).toBe('401 PSYNC_S2103: token expired');
  });
});
