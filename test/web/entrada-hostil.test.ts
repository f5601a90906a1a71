/**
 * Hostile input on the screens: every malformed form field or address is a 4xx with a
 * readable pt-BR page (never a 500, so never an ERROR line for the error tracker), nothing
 * stored; configuration values bounded by what Postgres and a JavaScript client hold exactly;
 * the login's `from` with any Unicode; CSRF on /test/errtracker for sessions; the security
 * headers of the pages; the HTML 404 for browsers (problem+json for the API and scripts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testEnv } from '../harness/service.js';
import { logCapture } from '../harness/partner.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { HTML, IMPORTAR_TOKEN, SMOKE_TOKEN, navegador, oidcEnv, sessao, type SessaoTeste } from './helpers.js';
import { SEGREDO } from '../replicacao/helpers.js';
import { buildWorkbook } from '../fixtures/builder.js';

let db: TestDatabase;
let app: FastifyInstance;
let s: SessaoTeste;
const logs = logCapture();

async function montar(extra: Record<string, string> = {}): Promise<FastifyInstance> {
  const { config } = loadConfig(testEnv(db, {
    ...oidcEnv(), XLS_IMPORTAR_TOKEN: IMPORTAR_TOKEN, SMOKE_SESSION_TOKEN: SMOKE_TOKEN, REPLICATOR_CONFIRM_SECRET: SEGREDO, LOG_LEVEL: 'info', ...extra,
  }));
  const a = await buildApp({ config, pool: db.pool, version: 't', commit: null, objstore: null }, { logStream: logs.stream });
  await a.ready();
  return a;
}

beforeAll(async () => {
  db = await createTestDatabase();
  app = await montar();
  s = await sessao(db);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});
beforeEach(() => { logs.lines.length = 0; });

const { get, post } = navegador(() => app, () => s);
/** A form body as a browser (or a forger) sends it, fields possibly repeated. */
const postBruto = (url: string, corpo: string) => app.inject({
  method: 'POST', url, payload: `_csrf=${encodeURIComponent(s.csrf)}&${corpo}`,
  headers: { ...HTML, cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
});
const semErro = () => expect(logs.lines.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);

function paginaLegivel(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, texto: string | RegExp) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  if (typeof texto === 'string') expect(res.body).toContain(texto);
  else expect(res.body).toMatch(texto);
}

describe('malformed form fields: 400 (404 for a bad id), a readable page, no ERROR', () => {
  it('a NUL byte in a configuration value, a recipient name or the reset motivo', async () => {
    const antes = (await db.pool.query(`select valor from bi_configuracao where chave = 'slow_query_timeout_ms'`)).rows[0].valor;
    paginaLegivel(await post('/admin/configuracoes/slow_query_timeout_ms', { valor: '5\u00000' }), 400, 'O campo “valor” contém um caractere não aceito (NUL).');
    paginaLegivel(await post('/admin/configuracoes', { chave: 'k_nul', tipo: 'string', valor: 'a\u0000b' }), 400, 'caractere não aceito');
    paginaLegivel(await post('/destinatarios', { email: 'nul@empresa.com.br', nome: 'Ana\u0000' }), 400, 'O campo “nome” contém um caractere não aceito (NUL).');
    paginaLegivel(await post('/admin/replicacao', { motivo: 'x\u0000', confirmo: 'sim', segredo: SEGREDO }), 400, 'O campo “motivo”');
    expect((await db.pool.query(`select valor from bi_configuracao where chave = 'slow_query_timeout_ms'`)).rows[0].valor).toBe(antes);
    expect((await db.pool.query(`select count(*)::int n from destinatario`)).rows[0].n).toBe(0);
    expect((await db.pool.query(`select count(*)::int n from bi_configuracao where chave = 'k_nul'`)).rows[0].n).toBe(0);
    expect((await db.pool.query(`select count(*)::int n from xls_resetar_replicator`)).rows[0].n).toBe(0);
    semErro();
  });

  it('versao=garbage on edit and delete keeps 404 > 403 > 400 (ultimo_nuke is 403)', async () => {
    await db.pool.query(`select configuracao_criar('k_versao', '1', 'integer')`);
    for (const versao of ['garbage', '2026-02-30T10:00:00Z', '99999-01-01T00:00:00Z', '2026-11-24T10:00:00']) {
      paginaLegivel(await post('/admin/configuracoes/nao_existe', { valor: '1', versao }), 404, 'não existe');
      paginaLegivel(await post('/admin/configuracoes/ultimo_nuke', { valor: '1', versao }), 403, 'é do sistema');
      paginaLegivel(await post('/admin/configuracoes/nao_existe/remover', { versao }), 404, 'não existe');
      paginaLegivel(await post('/admin/configuracoes/ultimo_nuke/remover', { versao }), 403, 'é do sistema');
      const r = await post('/admin/configuracoes/k_versao/remover', { versao });
      // 2026-02-30 is read by JavaScript as 02/03: a version that does not match (409), never a 500
      expect([400, 409], versao).toContain(r.statusCode);
      expect([400, 409], versao).toContain((await post('/admin/configuracoes/k_versao', { valor: '2', versao })).statusCode);
    }
    paginaLegivel(await post('/admin/configuracoes/k_versao', { valor: '2', versao: 'garbage' }), 400, 'A versão do formulário é inválida');
    expect((await db.pool.query(`select valor from bi_configuracao where chave = 'k_versao'`)).rows[0].valor).toBe('1');
    // the recipient's form too
    const { rows: [d] } = await db.pool.query(`insert into destinatario (email) values ('v@empresa.com.br') returning id`);
    paginaLegivel(await post(`/destinatarios/${d.id}`, { email: 'w@empresa.com.br', versao: 'garbage' }), 400, 'A versão do formulário é inválida');
    paginaLegivel(await post('/destinatarios/00000000-0000-4000-8000-000000000000', { email: 'w@empresa.com.br', versao: 'garbage' }), 404, 'não existe');
    await db.pool.query(`delete from destinatario`);
    semErro();
  });

  it('a repeated chave, motivo or segredo field', async () => {
    paginaLegivel(await postBruto('/admin/configuracoes', 'chave=a&chave=b&tipo=string&valor=x'), 400, 'O campo “chave” veio repetido');
    paginaLegivel(await postBruto('/admin/replicacao', `motivo=a&motivo=b&confirmo=sim&segredo=${SEGREDO}`), 400, 'O campo “motivo” veio repetido');
    paginaLegivel(await postBruto('/admin/replicacao', `confirmo=sim&segredo=x&segredo=${SEGREDO}`), 400, 'O campo “segredo” veio repetido');
    paginaLegivel(await postBruto('/destinatarios', 'email=a@empresa.com.br&email=b@empresa.com.br'), 400, 'O campo “email” veio repetido');
    paginaLegivel(await postBruto('/admin/configuracoes/slow_query_timeout_ms', 'valor=1&valor=2'), 400, 'veio repetido');
    expect((await db.pool.query(`select count(*)::int n from bi_configuracao where chave in ('a', 'b')`)).rows[0].n).toBe(0);
    expect((await db.pool.query(`select count(*)::int n from xls_resetar_replicator`)).rows[0].n).toBe(0);
    semErro();
  });

  it('the import page: a NUL byte in the uploader\'s name is a 400 page, nothing stored', async () => {
    const boundary = '----hostil0123456789';
    const campo = (n: string, v: string) => `--${boundary}\r\ncontent-disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`;
    const xlsx = await buildWorkbook([{ name: 'Compras', rows: [['Data', 'CNPJ Fornecedor', 'Fornecedor', 'Nota Fiscal', 'Produto', 'Código ONU', 'Quantidade', 'Valor Total']] }]);
    const payload = Buffer.concat([Buffer.from(campo('uploaderId', 'ana') + campo('uploaderNome', 'Ana\u0000Souza')),
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="arquivo"; filename="compras.xlsx"\r\ncontent-type: application/octet-stream\r\n\r\n`), xlsx,
      Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const res = await app.inject({ method: 'POST', url: `/xls/importar?k=${IMPORTAR_TOKEN}`, payload, headers: { ...HTML, 'content-type': `multipart/form-data; boundary=${boundary}` } });
    paginaLegivel(res, 400, 'O campo “uploaderNome” contém um caractere não aceito (NUL).');
    expect((await db.pool.query('select count(*)::int n from xls_conjunto_lote')).rows[0].n).toBe(0);
    semErro();
  });

  it('the import result page: the whole segment must be a UUID', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    for (const id of [`x${uuid}x`, `${uuid}x`, `x${uuid}`, `${uuid}%00`]) {
      paginaLegivel(await app.inject({ url: `/xls/importar/lote/${id}?k=${IMPORTAR_TOKEN}`, headers: HTML }), 404, 'importação não encontrada');
    }
    semErro();
  });
});

describe('configuration values bounded by Postgres and a JavaScript client', () => {
  it('durations in Portuguese are accepted and stored as ISO-8601; the stored forms stay', async () => {
    const casos: Array<[string, string]> = [
      ['5 minutos', 'PT5M'], ['30 s', '30 s'], ['2 horas', 'PT2H'], ['1 dia', 'P1D'], ['1 minuto', 'PT1M'], ['3 Dias', 'P3D'],
      ['2 semanas', 'P2W'], ['250 milissegundos', 'PT0.25S'], ['45 segundos', 'PT45S'], ['PT30S', 'PT30S'], ['30 seconds', '30 seconds'], ['5 min', '5 min'],
    ];
    for (const [i, [entrada, guardado]] of casos.entries()) {
      const res = await post('/admin/configuracoes', { chave: `dur_${i}`, tipo: 'duration', valor: entrada });
      expect(res.statusCode, entrada).toBe(303);
      expect((await db.pool.query(`select valor from bi_configuracao where chave = $1`, [`dur_${i}`])).rows[0].valor, entrada).toBe(guardado);
    }
    expect((await post('/admin/configuracoes/dur_0', { valor: '2 horas' })).statusCode).toBe(303);
    expect((await db.pool.query(`select valor from bi_configuracao where chave = 'dur_0'`)).rows[0].valor).toBe('PT2H');
    // shown in words on the list
    const lista = (await get('/admin/configuracoes')).body;
    expect(lista).toMatch(/<code>dur_0<\/code><\/td>\s*<td data-rotulo="Valor">2 horas<\/td>\s*<td data-rotulo="Tipo">Duração<\/td>/);
    expect(lista).toMatch(/<code>dur_7<\/code><\/td>\s*<td data-rotulo="Valor">0,25 segundos<\/td>/);
    // psql writing a Portuguese duration directly is refused by the table (only the stored form)
    await expect(db.pool.query(`insert into bi_configuracao (chave, valor, tipo) values ('dur_psql', '5 minutos', 'duration')`)).rejects.toMatchObject({ code: '23514' });
  });

  it('a 99999999999d duration and an integer beyond 2^53 are refused (400 beside the field)', async () => {
    for (const valor of ['99999999999d', '99999999999 d', '99999999999 dias', 'P99999999999D', 'PT99999999999999999999S', '300000 anos', '-5 minutos']) {
      const res = await post('/admin/configuracoes', { chave: 'dur_grande', tipo: 'duration', valor });
      expect(res.statusCode, valor).toBe(400);
      expect(res.body).toContain('<p class="erro-campo" id="c-valor-erro">Valor');
      expect(res.body).toContain('aria-invalid="true" aria-describedby="c-valor-erro"');
    }
    for (const valor of ['999999999999999999', '9007199254740992', '-9007199254740992', '1e3', '1.5']) {
      const res = await post('/admin/configuracoes/slow_query_timeout_ms', { valor });
      expect(res.statusCode, valor).toBe(400);
      expect(res.body, valor).toContain('Número inteiro');
    }
    expect((await post('/admin/configuracoes/slow_query_timeout_ms', { valor: '9007199254740991' })).statusCode).toBe(303);
    expect((await post('/admin/configuracoes/slow_query_timeout_ms', { valor: ' 007000 ' })).statusCode).toBe(303);
    expect((await db.pool.query(`select valor from bi_configuracao where chave = 'slow_query_timeout_ms'`)).rows[0].valor).toBe('7000');
    // the API is bound by the same SQL
    const api = await app.inject({ method: 'PUT', url: '/api/comercial/configuracoes/slow_query_timeout_ms', headers: bearer(), payload: { valor: '999999999999999999' } });
    expect(api.statusCode).toBe(400);
    expect(api.json().code).toBe('CF400');
    expect((await db.pool.query(`select count(*)::int n from bi_configuracao where chave = 'dur_grande'`)).rows[0].n).toBe(0);
    semErro();
  });

  it('SQL: configuracao_valor_normalizar says the stored form, or null', async () => {
    const q = async (t: string, v: string) => (await db.pool.query('select configuracao_valor_normalizar($1, $2) n', [t, v])).rows[0].n;
    expect(await q('duration', '5 minutos')).toBe('PT5M');
    expect(await q('duration', '99999999999d')).toBeNull();
    expect(await q('integer', '+12')).toBe('12');
    expect(await q('integer', '999999999999999999')).toBeNull();
    expect(await q('boolean', 'sim')).toBe('true');
    expect(await q('boolean', 'talvez')).toBeNull();
    expect(await q('string', ' livre ')).toBe(' livre ');
  });
});

describe('the login page, the error tracker, the headers, the 404', () => {
  it('/login?from= with any Unicode is encoded, never a 500', async () => {
    const bypass = await montar({ OIDC_ISSUER_URL: '', OIDC_CLIENT_ID: '', OIDC_CLIENT_SECRET: '', OIDC_DOMINIO: '', PUBLIC_BASE_URL: '' });
    try {
      for (const [from, destino] of [['/%E3%80%82x', '/%E3%80%82x'], ['/pedidos?q=%F0%9F%9A%9A', '/pedidos?q=%F0%9F%9A%9A'], ['/a%C3%A7%C3%A3o', '/a%C3%A7%C3%A3o'],
        ['/..//evil.com', '/processamentos'], ['/%2F%2Fevil.com', '/processamentos'], ['/%252F%252Fevil.com', '/%2F%2Fevil.com']] as const) {
        const r = await bypass.inject({ url: `/login?from=${from}`, headers: HTML });
        expect(r.statusCode, from).toBe(302);
        expect(r.headers.location, from).toBe(destino);
      }
    } finally { await bypass.close(); }
    // with a session the same redirect; without one the page keeps the encoded path in its form
    const comSessao = await app.inject({ url: '/login?from=/%E3%80%82x', headers: { ...HTML, cookie: s.cookie } });
    expect(comSessao.statusCode).toBe(302);
    expect(comSessao.headers.location).toBe('/%E3%80%82x');
    const anonimo = await app.inject({ url: '/login?from=/%E3%80%82x', headers: HTML });
    expect(anonimo.statusCode).toBe(200);
    expect(anonimo.body).toContain('name="from" value="/%E3%80%82x"');
    semErro();
  });

  it('POST /test/errtracker with a session needs its CSRF token (X-CSRF-Token); the Bearer does not', async () => {
    const semToken = await app.inject({ method: 'POST', url: '/test/errtracker', headers: { cookie: s.cookie } });
    expect(semToken.statusCode).toBe(400);
    expect(semToken.json().detail).toContain('X-CSRF-Token');
    expect((await app.inject({ method: 'POST', url: '/test/errtracker', headers: { cookie: s.cookie, 'x-csrf-token': 'outro-token-outro-token-outro-token-0' } })).statusCode).toBe(400);
    semErro();
    expect((await app.inject({ method: 'POST', url: '/test/errtracker', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } })).statusCode).toBe(500);
    expect((await app.inject({ method: 'POST', url: '/test/errtracker', headers: bearer() })).statusCode).toBe(500);
  });

  it('pages send nosniff and a CSP whose form-action is the service itself (the login page adds the identity provider)', async () => {
    for (const url of ['/processamentos', '/pedidos', '/admin/configuracoes', '/destinatarios', '/admin/replicacao', '/nao-existe']) {
      const r = await get(url);
      expect(r.headers['x-content-type-options'], url).toBe('nosniff');
      expect(String(r.headers['content-security-policy']), url).toMatch(/form-action 'self';/);
    }
    const login = await app.inject({ url: '/login', headers: HTML });
    expect(login.headers['content-security-policy']).toContain("form-action 'self' http://127.0.0.1:9;");
    expect(login.headers['x-content-type-options']).toBe('nosniff');
    expect((await app.inject({ url: '/api/partner/status', headers: bearer() })).headers['x-content-type-options']).toBe('nosniff');
  });

  it('an unknown address: an HTML page for a browser, problem+json for /api, /sync, /webhook and scripts', async () => {
    const pagina = await get('/nao-existe/mesmo');
    paginaLegivel(pagina, 404, 'Não existe página neste endereço');
    expect(pagina.body).toContain('<h1>Página não encontrada</h1>');
    expect(pagina.body).toContain('href="/processamentos"');
    const anonimo = await app.inject({ url: '/qualquer', headers: HTML });
    paginaLegivel(anonimo, 404, 'Não existe página');
    for (const url of ['/api/comercial/nao-existe', '/sync/nao-existe', '/webhook/nao-existe']) {
      const r = await app.inject({ url, headers: { ...HTML, ...bearer() } });
      expect([401, 404], url).toContain(r.statusCode);
      expect(r.headers['content-type'], url).toMatch(/^application\/problem\+json/);
    }
    const script = await app.inject({ url: '/nao-existe' });
    expect(script.statusCode).toBe(404);
    expect(script.headers['content-type']).toMatch(/^application\/problem\+json/);
    // an error outside the screens (the download of an unknown original) is a page for a browser too
    const arquivo = await get('/processamentos/00000000-0000-4000-8000-000000000000/arquivo');
    expect(arquivo.statusCode).toBe(404);
    expect(arquivo.headers['content-type']).toMatch(/^text\/html/);
    semErro();
  });
});
