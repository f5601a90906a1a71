/**
 * The screens' forms by HTTP: configuration CRUD (404 > 403 > 400, 409), recipients,
 * orders console, processing list/detail and reprocess (409 as a message), the import
 * page's refusal paths, and slow_query_timeout_ms read through the configuration cache.
 */
import { sheetjs } from '../fixtures/legacy.js';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { testEnv } from '../harness/service.js';
import { buildRelatorio18, buildWorkbook } from '../fixtures/builder.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { ConfiguracaoCache } from '../../src/configuracao/cache.js';
import { HTML, IMPORTAR_TOKEN, appHabilitado, navegador, oidcEnv, sessao, type SessaoTeste } from './helpers.js';

let db: TestDatabase;
let app: FastifyInstance;
let s: SessaoTeste;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await appHabilitado(db);
  s = await sessao(db);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const { get, post } = navegador(() => app, () => s);
const versaoDe = (html: string) => /name="versao" value="([^"]+)"/.exec(html)?.[1] ?? '';

describe('/admin/configuracoes', () => {
  it('lists keys; system keys are read-only', async () => {
    const res = await get('/admin/configuracoes');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('slow_query_timeout_ms');
    expect(res.body).toMatch(/ultimo_nuke[\s\S]*?do sistema \(somente leitura\)/);
    expect(res.body).not.toContain('action="/admin/configuracoes/ultimo_nuke/remover"');
    // dates pt-BR, the epoch as "nunca"; types in Portuguese; no ISO instant on the page
    expect(res.body).toMatch(/<code>ultimo_nuke<\/code><\/td>\s*<td data-rotulo="Valor">nunca<\/td>\s*<td data-rotulo="Tipo">Texto<\/td>/);
    expect(res.body).toMatch(/<code>slow_query_timeout_ms<\/code><\/td>\s*<td data-rotulo="Valor">[\d.]+<\/td>\s*<td data-rotulo="Tipo">Número inteiro<\/td>/);
    expect(res.body).not.toContain('1970-01-01T00:00:00.000Z');
    expect(res.body).toMatch(/<td data-rotulo="Atualizada em">\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}<\/td>/);
    const nova = (await get('/admin/configuracoes/nova')).body;
    expect(nova).toContain('<option value="duration">Duração</option>');
    expect(nova).toContain('“5 minutos”');
    expect(nova).not.toMatch(/seconds/);
    const edit = await get('/admin/configuracoes/ultimo_nuke');
    expect(edit.statusCode).toBe(200);
    expect(edit.body).toContain('somente leitura');
    expect(edit.body).not.toContain('name="valor"');
    expect((await get('/admin')).body).toContain('href="/admin/configuracoes"');
  });

  it('create: validation by type (400), duplicate (409), then created', async () => {
    expect((await get('/admin/configuracoes/nova')).statusCode).toBe(200);
    const bad = await post('/admin/configuracoes', { chave: 'limite_teste', tipo: 'integer', valor: 'doze' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('value="doze"');
    for (const [tipo, valor] of [['boolean', 'talvez'], ['duration', 'amanhã'], ['integer', '1.5']] as const) {
      expect((await post('/admin/configuracoes', { chave: 'limite_teste', tipo, valor })).statusCode, `${tipo} ${valor}`).toBe(400);
    }
    expect((await post('/admin/configuracoes', { chave: 'Chave Ruim', tipo: 'string', valor: 'x' })).statusCode).toBe(400);
    const ok = await post('/admin/configuracoes', { chave: 'limite_teste', tipo: 'duration', valor: 'PT30S', descricao: 'teste' });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/admin/configuracoes?ok=criada');
    expect((await post('/admin/configuracoes', { chave: 'limite_teste', tipo: 'string', valor: 'x' })).statusCode).toBe(409);
    expect((await db.pool.query(`select valor, tipo, sistema from bi_configuracao where chave = 'limite_teste'`)).rows[0]).toEqual({ valor: 'PT30S', tipo: 'duration', sistema: false });
  });

  it('edit: precedence 404 > 403 > 400, and 409 when the row changed since the form was opened', async () => {
    expect((await post('/admin/configuracoes/nao_existe', { valor: 'x' })).statusCode).toBe(404);
    expect((await post('/admin/configuracoes/ultimo_nuke', { valor: 'não é data' })).statusCode).toBe(403);
    expect((await post('/admin/configuracoes/slow_query_timeout_ms', { valor: 'muito' })).statusCode).toBe(400);
    const form = await get('/admin/configuracoes/slow_query_timeout_ms');
    const versao = versaoDe(form.body);
    expect(versao).not.toBe('');
    await db.pool.query(`select configuracao_definir('slow_query_timeout_ms', '5001')`);
    const stale = await post('/admin/configuracoes/slow_query_timeout_ms', { valor: '7000', versao });
    expect(stale.statusCode).toBe(409);
    expect(stale.body).toContain('alterada por outra pessoa');
    expect(stale.body).toContain('value="5001"');
    const ok = await post('/admin/configuracoes/slow_query_timeout_ms', { valor: '7000', versao: versaoDe(stale.body) });
    expect(ok.statusCode).toBe(303);
    expect((await db.pool.query(`select valor from bi_configuracao where chave = 'slow_query_timeout_ms'`)).rows[0].valor).toBe('7000');
  });

  it('delete: 404, 403 for a system key, 409 when stale, then removed', async () => {
    await db.pool.query(`select configuracao_criar('apagar_teste', 'true', 'boolean')`);
    expect((await post('/admin/configuracoes/nao_existe/remover', {})).statusCode).toBe(404);
    expect((await post('/admin/configuracoes/ultimo_nuke/remover', {})).statusCode).toBe(403);
    const lista = await get('/admin/configuracoes');
    const versao = /action="\/admin\/configuracoes\/apagar_teste\/remover"[\s\S]*?name="versao" value="([^"]+)"/.exec(lista.body)?.[1];
    expect(versao).toBeTruthy();
    await db.pool.query(`select configuracao_definir('apagar_teste', 'false')`);
    const stale = await post('/admin/configuracoes/apagar_teste/remover', { versao: versao! });
    expect(stale.statusCode).toBe(409);
    expect((await post('/admin/configuracoes/apagar_teste/remover', {})).statusCode).toBe(303);
    expect((await db.pool.query(`select count(*)::int as n from bi_configuracao where chave = 'apagar_teste'`)).rows[0].n).toBe(0);
  });
});

describe('/destinatarios', () => {
  it('add (e-mail validated, duplicates refused), edit, remove', async () => {
    expect((await post('/destinatarios', { email: 'não é e-mail' })).statusCode).toBe(400);
    expect((await post('/destinatarios', { email: 'ops@empresa.com.br', nome: 'Operação' })).statusCode).toBe(303);
    const dup = await post('/destinatarios', { email: 'OPS@empresa.com.br' });
    expect(dup.statusCode).toBe(409);
    expect(dup.body).toContain('já está na lista');
    const { rows: [d] } = await db.pool.query(`select id from destinatario where email = 'ops@empresa.com.br'`);
    const form = await get(`/destinatarios/${d.id}`);
    expect(form.statusCode).toBe(200);
    expect((await post(`/destinatarios/${d.id}`, { email: 'x', nome: 'Operação', ativo: 'true', versao: versaoDe(form.body) })).statusCode).toBe(400);
    expect((await post(`/destinatarios/${d.id}`, { email: 'ops2@empresa.com.br', nome: 'Operação 2', versao: versaoDe(form.body) })).statusCode).toBe(303);
    expect((await db.pool.query(`select email, nome, ativo from destinatario where id = $1`, [d.id])).rows[0]).toEqual({ email: 'ops2@empresa.com.br', nome: 'Operação 2', ativo: false });
    expect((await post(`/destinatarios/${d.id}`, { email: 'ops3@empresa.com.br', versao: versaoDe(form.body) })).statusCode).toBe(409);
    expect((await get('/destinatarios/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await post(`/destinatarios/${d.id}/remover`, {})).statusCode).toBe(303);
    expect((await post(`/destinatarios/${d.id}/remover`, {})).statusCode).toBe(404);
  });
});

describe('/pedidos', () => {
  it('orders by estado, Enfileirar, refusals as messages, the watchdog in words', async () => {
    await db.pool.query(`insert into partner_pedido (code, estado, status, total, pago_em, atualizado_no_parceiro, cliente_nome, recurso, origem)
      values ('P-1', 'CAPTURADO', 'received', 120.5, now(), now(), 'Posto Central', '{}', 'poll'),
             ('P-2', 'CAPTURADO', 'waiting_payment', 80, null, now(), 'Posto Sul', '{}', 'poll')`);
    const res = await get('/pedidos');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('P-1');
    expect(res.body).toContain('Nenhum evento do webhook foi recebido ainda.');
    expect(res.body).toMatch(/Vigilância do webhook desligada/);
    // health in words and colour; no variable names
    expect(res.body).toContain('<section class="saude saude-atencao"');
    expect(res.body).toContain('Nenhum evento recebido ainda</h2>');
    expect(res.body).not.toMatch(/PARTNER_[A-Z_]+/);
    expect(res.body).not.toContain('a revisar</a>');
    // "a revisar" links to those events
    await db.pool.query(`insert into partner_webhook (corpo, situacao, resultado, detalhe, processado_em)
      values (convert_to('{"quebrado', 'UTF8'), 'REVISAR', 'json_invalido', 'unexpected end of input', now())`);
    expect((await get('/pedidos')).body).toContain('<a href="/pedidos/revisar">1 evento(s) a revisar</a>');
    const rev = await get('/pedidos/revisar');
    expect(rev.statusCode).toBe(200);
    expect(rev.body).toContain('O corpo não é JSON válido');
    expect(rev.body).toContain('unexpected end of input');
    // Enfileirar only where it can work: the unpaid order's button is disabled and says why
    expect(res.body).toContain('aria-label="Enfileirar o pedido P-1"');
    expect(res.body).not.toContain('action="/pedidos/P-2/enfileirar"');
    expect(res.body).toMatch(/<button type="button" disabled aria-describedby="motivo-\d">Enfileirar<\/button>\s*<small class="motivo" id="motivo-\d">Só pedidos pagos: este está aguardando pagamento\.<\/small>/);
    expect((await get('/pedidos?estado=QUALQUER')).statusCode).toBe(400);
    // every POST answers with a redirect; the banner is the server's text
    const naoPago = await post('/pedidos/P-2/enfileirar', {});
    expect(naoPago.statusCode).toBe(303);
    expect(naoPago.headers.location).toBe('/pedidos?estado=CAPTURADO&aviso=nao-pago&pedido=P-2');
    expect((await get(naoPago.headers.location as string)).body).toContain('Pedido P-2 não enfileirado: ainda não está pago na plataforma.');
    const inexistente = await post('/pedidos/NAO-EXISTE/enfileirar', {});
    expect(inexistente.statusCode).toBe(303);
    const pInex = (await get(inexistente.headers.location as string)).body;
    expect(pInex).toContain('Pedido não enfileirado: ele não existe');
    expect(pInex).not.toContain('NAO-EXISTE');
    const ok = await post('/pedidos/P-1/enfileirar', {});
    expect(ok.statusCode).toBe(303);
    expect((await get(ok.headers.location as string)).body).toContain('Pedido P-1 enfileirado.');
    const again = await post('/pedidos/P-1/enfileirar', {});
    expect(again.statusCode).toBe(303);
    expect((await get(again.headers.location as string)).body).toContain('Pedido P-1 não enfileirado: ele já saiu de CAPTURADO');
    const enf = await get('/pedidos?estado=ENFILEIRADO');
    expect(enf.body).toContain('P-1');
    expect(enf.body).toContain(`ana@empresa.com.br`);
  });

  it('a banner carries only text the server chose: free text in the query is never shown', async () => {
    for (const url of ['/pedidos?ok=%3Cb%3EPague+em+golpe.com%3C%2Fb%3E', '/pedidos?aviso=enfileirado&pedido=Pague+em+golpe.com',
      '/pedidos?aviso=Pague+em+golpe.com', '/processamentos?ok=erros&n=Pague+em+golpe.com', '/admin/configuracoes?ok=Pague+em+golpe.com',
      '/destinatarios?ok=Pague+em+golpe.com', '/pedidos/revisar?aviso=Pague+em+golpe.com']) {
      const r = await get(url);
      expect(r.statusCode, url).toBe(200);
      expect(r.body, url).not.toMatch(/golpe/);
    }
    expect((await get('/processamentos?ok=erros&n=Pague+em+golpe.com')).body).toContain('Reprocessamento solicitado: 0 processamento(s)');
  });
});

describe('/processamentos', () => {
  async function processamento(status: string, tipo: string | null = 'COMPRAS', conjunto: string | null = null): Promise<string> {
    const { rows } = await db.pool.query(`insert into xls_processamento (status, tipo, arquivo, checksum, log_arquivo, finalizado_em, erro_mensagem, conjunto_id, linhas_rejeitadas, avisos, arquivo_bytes)
      values ($1, $2, 'compras.xlsx', $3, '2026/11/x.log', case when $1 in ('SUCESSO','ERRO','IGNORADO') then now() end, case when $1 = 'ERRO' then 'falhou' end, $4,
        '[{"aba":"Compras","linha":7,"campo":"Valor Total","valor":"abc","mensagem":"linha 7: Valor Total ''abc'' inválido"}]',
        '[{"categoria":"veiculo","motivo":"placa sem cadastro","quantidade":2,"linhas":[{"aba":"20","linha":3,"valor":"ABC1234"}]}]', decode('504b0304', 'hex'))
      returning id`, [status, tipo, randomBytes(32).toString('hex'), conjunto]);
    return rows[0].id;
  }

  it('list with filters and Page rules; unknown filter 400; detail with rows, warnings, vehicle reasons', async () => {
    const id = await processamento('SUCESSO');
    await processamento('ERRO', 'FLUXO_PAGAR_RECEBER');
    const all = await get('/processamentos?size=0&page=-3');
    expect(all.statusCode).toBe(200);
    expect(all.body).toContain('Página 1 de 1');
    expect((await get('/processamentos?status=ERRO')).body).toContain('<td data-rotulo="Tipo">Contas a pagar e receber</td>');
    expect((await get('/processamentos?status=ERRO&tipo=COMPRAS')).body).toContain('Nenhum processamento com esses filtros.');
    expect((await get('/processamentos?status=QUEBRADO')).statusCode).toBe(400);
    expect((await get('/processamentos?page=abc')).statusCode).toBe(400);
    const d = await get(`/processamentos/${id}`);
    expect(d.statusCode).toBe(200);
    expect(d.body).toContain('<td data-rotulo="Linha" class="num">7</td><td data-rotulo="Coluna">Valor Total</td><td data-rotulo="Valor">abc</td><td data-rotulo="Motivo">Valor Total &#39;abc&#39; inválido</td>');
    expect(d.body).toContain('Placa sem cadastro');
    expect(d.body).not.toContain('Defesa do cadastro de veículos'); // a COMPRAS has none
    expect(d.body).toContain(`href="/processamentos/${id}/arquivo"`);
    expect(d.body).not.toContain('Reprocessar este');
    expect((await get('/processamentos/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await get('/processamentos/nao-uuid')).statusCode).toBe(404);
  });

  it('reprocess: ERRO goes back to the queue; anything else is a 409 message on the page', async () => {
    const { rows: [c] } = await db.pool.query(`insert into xls_conjunto (arquivo, total) values ('lote.zip', 2) returning id`);
    const erro = await processamento('ERRO', 'COMPRAS', c.id);
    const ok = await post(`/processamentos/${erro}/reprocessar`, {});
    expect(ok.statusCode).toBe(303);
    expect((await db.pool.query('select status from xls_processamento where id = $1', [erro])).rows[0].status).toBe('PENDENTE');
    const page = await get(ok.headers.location as string);
    expect(page.body).toContain('Reprocessamento solicitado');
    expect(page.body).toContain('<meta http-equiv="refresh"');
    const again = await post(`/processamentos/${erro}/reprocessar`, {});
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('só um processamento em ERRO pode ser reprocessado');
    expect(again.headers['content-type']).toMatch(/text\/html/);
    const conjunto = await post(`/processamentos/${erro}/reprocessar-conjunto`, { conjuntoId: c.id });
    expect(conjunto.statusCode).toBe(409);
    expect(conjunto.body).toContain('Nenhum processamento do conjunto está em ERRO');
    // the former path of the form still answers the same
    const antigo = await post(`/processamentos/${erro}/reprocessar-lote`, { conjuntoId: c.id });
    expect(antigo.statusCode).toBe(409);
    expect(antigo.body).toContain('Nenhum processamento do conjunto está em ERRO');
    const semConjunto = await post(`/processamentos/${erro}/reprocessar-conjunto`, { conjuntoId: 'x' });
    expect(semConjunto.statusCode).toBe(400);
    expect(semConjunto.body).toContain('conjunto (conjuntoId) ausente ou inválido');
    const e2 = await processamento('ERRO', 'META');
    const todos = await post('/processamentos/reprocessar-erros', { tipo: 'META' });
    expect(todos.statusCode).toBe(303);
    expect(todos.headers.location).toContain('n=1');
    expect((await db.pool.query('select status from xls_processamento where id = $1', [e2])).rows[0].status).toBe('PENDENTE');
  });
});

describe('/xls/importar refusals (nothing stored)', () => {
  const k = `k=${IMPORTAR_TOKEN}`;
  function multipart(fields: Record<string, string>, files: Array<{ name: string; data: Buffer }>) {
    const boundary = `----b${randomBytes(8).toString('hex')}`;
    const parts: Buffer[] = [];
    for (const [n, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`));
    for (const f of files) {
      parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="arquivo"; filename="${f.name}"\r\ncontent-type: application/octet-stream\r\n\r\n`), f.data, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...HTML } };
  }
  const conta = async () => (await db.pool.query('select count(*)::int as n from xls_processamento where uploader_id is not null')).rows[0].n;
  const compras = () => buildWorkbook([{ name: 'Compras', rows: [['Data', 'CNPJ Fornecedor', 'Fornecedor', 'Nota Fiscal', 'Produto', 'Código ONU', 'Quantidade', 'Valor Total']] }]);
  const cota = (ano: string) => buildWorkbook([{ name: ano, rows: [['POLO', 'PRODUTO', 'JAN', 'FEV']] }]);

  it('503 when XLS_IMPORTAR_TOKEN is unset; 401 without or with a wrong k; the alias answers the same', async () => {
    const off = await (await import('../harness/service.js')).testApp(db, oidcEnv());
    try { expect((await off.inject({ url: `/xls/importar?${k}`, headers: HTML })).statusCode).toBe(503); } finally { await off.close(); }
    for (const base of ['/xls/importar', '/compras/importar']) {
      expect((await app.inject({ url: base, headers: HTML })).statusCode).toBe(401);
      expect((await app.inject({ url: `${base}?k=errado`, headers: HTML })).statusCode).toBe(401);
      const res = await app.inject({ url: `${base}?${k}`, headers: HTML });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain(`action="${base}?${k}"`);
      expect(res.body).toMatch(/<label for="i-id">/);
      expect((await app.inject({ method: 'POST', url: `${base}?k=errado`, ...multipart({ uploaderId: 'a', uploaderNome: 'b' }, [{ name: 'c.xlsx', data: await compras() }]) })).statusCode).toBe(401);
    }
  });

  it('identity required, spreadsheets only, accepted types only, at most one quota sheet', async () => {
    const url = `/xls/importar?${k}`;
    const semId = await app.inject({ method: 'POST', url, ...multipart({ uploaderNome: 'Ana' }, [{ name: 'c.xlsx', data: await compras() }]) });
    expect(semId.statusCode).toBe(400);
    expect(semId.body).toContain('Informe sua identificação');
    expect((await app.inject({ method: 'POST', url, ...multipart({ uploaderId: 'ana', uploaderNome: 'Ana' }, []) })).statusCode).toBe(400);
    const pdf = await app.inject({ method: 'POST', url, ...multipart({ uploaderId: 'ana', uploaderNome: 'Ana' }, [{ name: 'nota.pdf', data: Buffer.from('%PDF-1.4') }]) });
    expect(pdf.statusCode).toBe(400);
    const r18 = await app.inject({ method: 'POST', url, ...multipart({ uploaderId: 'ana', uploaderNome: 'Ana' }, [{ name: 'c.xlsx', data: await compras() }, { name: 'r18.xlsx', data: await buildRelatorio18({ rows: 2 }) }]) });
    expect(r18.statusCode).toBe(400);
    expect(r18.body).toContain('r18.xlsx: é uma planilha de Relatório 18 (faturamento e movimento); esta página aceita apenas Compras de combustível, Cotas do fornecedor, Contas a pagar e receber');
    const duas = await app.inject({ method: 'POST', url, ...multipart({ uploaderId: 'ana', uploaderNome: 'Ana' }, [{ name: 'a.xlsx', data: await cota('2025') }, { name: 'b.xlsx', data: await cota('2026') }]) });
    expect(duas.statusCode).toBe(400);
    expect(duas.body).toContain('no máximo uma por importação');
    const quebrado = await app.inject({ method: 'POST', url, ...multipart({ uploaderId: 'ana', uploaderNome: 'Ana' }, [{ name: 'x.xlsx', data: Buffer.from('não é zip') }]) });
    expect(quebrado.statusCode).toBe(400);
    expect(quebrado.body).toContain('x.xlsx: não é uma planilha legível: abra no Excel ou no LibreOffice, salve de novo e envie outra vez');
    expect(quebrado.body).not.toMatch(/zip|central directory|invalid/i);
    // each refusal is recorded with who sent it (never the bytes), and listed for staff
    const { rows: recusas } = await db.pool.query(`select arquivo, uploader_id, uploader_nome, origem, status_http, motivo from xls_upload_recusa where origem = 'importar' order by recusado_em`);
    expect(recusas.map((r) => r.arquivo)).toEqual(['nota.pdf', 'r18.xlsx', null, 'x.xlsx']);
    expect(recusas.every((r) => r.uploader_id === 'ana' && r.uploader_nome === 'Ana' && r.status_http === 400)).toBe(true);
    expect((await get('/processamentos/recusas')).body).toContain('x.xlsx');
    expect(await conta()).toBe(0);
  });

  it('.xls and .ods are accepted like .xlsx (read by content): one batch keeping their names', async () => {
    const url = `/xls/importar?${k}`;
    const files = [
      { name: 'compras.xls', data: sheetjs([{ name: 'Compras', rows: [['Data', 'CNPJ Fornecedor', 'Fornecedor', 'Nota Fiscal', 'Produto', 'Código ONU', 'Quantidade', 'Valor Total']] }], 'biff8') },
      { name: 'cota.ods', data: sheetjs([{ name: '2027', rows: [['POLO', 'PRODUTO', 'JAN', 'FEV']] }], 'ods') },
    ];
    const res = await app.inject({ method: 'POST', url, ...multipart({ uploaderId: 'bia', uploaderNome: 'Bia' }, files) });
    expect(res.statusCode).toBe(303);
    const conjuntoId = /\/conjunto\/([0-9a-f-]{36})/.exec(res.headers.location as string)![1];
    const { rows } = await db.pool.query(`select arquivo, objeto_tamanho_bytes::int n from xls_processamento where conjunto_id = $1 order by arquivo`, [conjuntoId]);
    expect(rows).toEqual([{ arquivo: 'compras.xls', n: files[0]!.data.length }, { arquivo: 'cota.ods', n: files[1]!.data.length }]);
    const txt = await app.inject({ method: 'POST', url, ...multipart({ uploaderId: 'bia', uploaderNome: 'Bia' }, [{ name: 'notas.txt', data: Buffer.from('x') }]) });
    expect(txt.statusCode).toBe(400);
    expect(txt.body).toContain('notas.txt: só planilhas .xlsx, .xls ou .ods são aceitas');
  });

  it('accepted files become one batch with the uploader; the result page waits, then a resend says so', async () => {
    const url = `/xls/importar?${k}`;
    const files = [{ name: 'compras.xlsx', data: await compras() }, { name: 'cota.xlsx', data: await cota('2026') }];
    const res = await app.inject({ method: 'POST', url, ...multipart({ uploaderId: 'ana.souza', uploaderNome: 'Ana Souza' }, files) });
    expect(res.statusCode).toBe(303);
    const loc = res.headers.location as string;
    expect(loc).toMatch(/^\/xls\/importar\/conjunto\/[0-9a-f-]{36}\?k=.*&t=\d+$/);
    const conjuntoId = /\/conjunto\/([0-9a-f-]{36})/.exec(loc)![1];
    // the address of pages sent before the rename answers the same page
    const antigo = await app.inject({ url: loc.replace('/conjunto/', '/lote/').replace(/t=\d+/, 't=0'), headers: HTML });
    expect(antigo.statusCode).toBe(200);
    expect(antigo.body).toContain('Ana Souza');
    const { rows } = await db.pool.query(`select p.uploader_id, p.uploader_nome, p.status, c.uploader_id as conjunto_uploader from xls_processamento p join xls_conjunto c on c.id = p.conjunto_id where c.id = $1 order by p.arquivo`, [conjuntoId]);
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.uploader_id === 'ana.souza' && r.uploader_nome === 'Ana Souza' && r.conjunto_uploader === 'ana.souza')).toBe(true);
    const esperando = await app.inject({ url: loc, headers: HTML });
    expect(esperando.statusCode).toBe(200);
    expect(esperando.body).toContain('<progress');
    expect(esperando.body).toContain('<meta http-equiv="refresh" content="1">');
    const depois = await app.inject({ url: loc.replace(/t=\d+/, `t=${Date.now() - 31_000}`), headers: HTML });
    expect(depois.body).toContain('ainda processando');
    expect(depois.body).toContain('<meta http-equiv="refresh" content="5">');
    expect((await app.inject({ url: loc.replace(/k=[^&]+/, 'k=errado'), headers: HTML })).statusCode).toBe(401);
    const reenvio = await app.inject({ method: 'POST', url, ...multipart({ uploaderId: 'ana.souza', uploaderNome: 'Ana Souza' }, [files[0]!]) });
    expect(reenvio.statusCode).toBe(303);
    const pagina = await app.inject({ url: (reenvio.headers.location as string).replace(/t=\d+/, 't=0'), headers: HTML });
    expect(pagina.body).toContain('Este arquivo já tinha sido enviado antes');
  });
});

describe('slow_query_timeout_ms through the configuration cache', () => {
  it('a report read at or above the threshold is logged as slow', async () => {
    const lines: string[] = [];
    const { config } = loadConfig(testEnv(db, { ...oidcEnv(), LOG_LEVEL: 'warn' }));
    const cache = new ConfiguracaoCache(db.pool);
    const a = await buildApp({ config, pool: db.pool, version: 't', commit: null, objstore: null, configuracao: cache }, { logStream: { write: (m: string) => { lines.push(m); } } });
    try {
      await a.inject({ url: '/processamentos', headers: { ...HTML, cookie: s.cookie } });
      expect(lines.join('')).not.toContain('consulta lenta');
      await db.pool.query(`select configuracao_definir('slow_query_timeout_ms', '0')`);
      const b = new ConfiguracaoCache(db.pool); // a fresh cache: the NOTIFY is not wired in this test
      (a.ctx as { configuracao?: ConfiguracaoCache }).configuracao = b;
      await a.inject({ url: '/processamentos', headers: { ...HTML, cookie: s.cookie } });
      expect(lines.join('')).toContain('consulta lenta: lista de processamentos');
      // the cache keeps serving the cached value: a change is seen after 30 s (or at once by NOTIFY)
      await db.pool.query(`select configuracao_definir('slow_query_timeout_ms', '60000')`);
      lines.length = 0;
      await a.inject({ url: '/processamentos', headers: { ...HTML, cookie: s.cookie } });
      expect(lines.join('')).toContain('consulta lenta');
    } finally {
      await a.close();
    }
  });
});
