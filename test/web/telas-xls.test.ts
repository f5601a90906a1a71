/**
 * The processing screens explain themselves (HTTP + HTML content, on the data of
 * popularTelas): staff words (type names, statuses with colour, pt-BR dates), the reason on
 * every list row, search by file name and dates, resent errors kept in the ERRO list, the
 * failure with its next step and the refused rows as a table, progress while it runs,
 * sections only where they make sense, the batch with each entry's outcome, the log retold,
 * the refused uploads, and the phone-layout convention (class="cartoes", data-rotulo).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { appHabilitado, navegador, sessao, type SessaoTeste } from './helpers.js';
import { popularTelas, type DadosTelas } from './dados-telas.js';

let db: TestDatabase;
let app: FastifyInstance;
let s: SessaoTeste;
let d: DadosTelas;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await appHabilitado(db);
  s = await sessao(db);
  d = await popularTelas(db);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const { get, post } = navegador(() => app, () => s);

/** The <tr> of the list whose link names `id`. */
function linha(html: string, id: string): string {
  const rows = html.split('<tr>');
  const r = rows.find((x) => x.includes(`href="/processamentos/${id}"`));
  expect(r, `row of ${id}`).toBeDefined();
  return r!.split('</tr>')[0]!;
}
const texto = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('/processamentos list', () => {
  it('staff words: type names, statuses in Portuguese with colour, dd/mm/aaaa hh:mm; the reason on each row', async () => {
    const res = await get('/processamentos?size=100');
    expect(res.statusCode).toBe(200);
    const h = res.body;
    expect(h).not.toContain('FLUXO_PAGAR_RECEBER<');
    expect(texto(linha(h, d.erroLinhas))).toContain('Contas a pagar e receber');
    expect(linha(h, d.erroLinhas)).toContain('<span class="status status-ERRO">Erro</span>');
    expect(texto(linha(h, d.erroLinhas))).toContain('2 linhas inválidas: nada foi gravado.');
    expect(texto(linha(h, d.erroCadastro))).toContain('Falta cadastro: vendedor 999 (linhas 6, 10) não está cadastrado.');
    expect(texto(linha(h, d.erroIlegivel))).toContain('O arquivo não é uma planilha .xlsx legível.');
    expect(h).not.toContain('invalid code lengths set');
    expect(linha(h, d.comAvisos)).toContain('<span class="status status-AVISO">Sucesso com avisos</span>');
    expect(texto(linha(h, d.comAvisos))).toContain('2 avisos: Total a receber difere da aba Grupo');
    expect(linha(h, d.sucesso)).toContain('<span class="status status-SUCESSO">Sucesso</span>');
    expect(texto(linha(h, d.sucesso))).toContain('Sem avisos');
    expect(texto(linha(h, d.sucesso))).toContain('1.280');
    expect(texto(linha(h, d.processando))).toContain('Processando');
    expect(texto(linha(h, d.processando))).toContain('12.000 linhas lidas até agora');
    expect(texto(linha(h, d.reenviado))).toContain('Reenviado — aguardando');
    expect(texto(linha(h, d.ignorado))).toContain('Tipo de planilha não reconhecido');
    expect(linha(h, d.sucesso)).toMatch(/data-rotulo="Recebido em">\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}</);
    // phone convention: a card table, status first, every cell labelled
    expect(h).toContain('<table class="cartoes');
    expect(linha(h, d.sucesso)).toMatch(/^\s*<td data-rotulo="Situação">/);
    expect(linha(h, d.sucesso).match(/<td(?! data-rotulo)/g)).toBeNull();
    expect(h).toContain('<option value="FLUXO_PAGAR_RECEBER">Contas a pagar e receber</option>');
  });

  it('search by file name and by a date range (America/Sao_Paulo days); bad dates are a 400 page', async () => {
    const r = await get('/processamentos?arquivo=FLUXO-posicao-1');
    const ids = [...r.body.matchAll(/href="\/processamentos\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
    expect(new Set(ids)).toEqual(new Set([d.comAvisos, d.erroLinhas]));
    expect((await get('/processamentos?arquivo=100%25')).body).toContain('Nenhum processamento com esses filtros.');
    await db.pool.query(`update xls_processamento set recebido_em = '2026-10-01 02:30:00+00' where id = $1`, [d.sucesso]); // 30/09 23:30 in São Paulo
    const set = await get('/processamentos?de=2026-09-30&ate=2026-09-30');
    expect([...set.body.matchAll(/href="\/processamentos\/([0-9a-f-]{36})"/g)].map((m) => m[1])).toEqual([d.sucesso]);
    expect(set.body).toContain('30/09/2026 23:30');
    expect((await get('/processamentos?de=2026-10-01&ate=2026-10-01')).body).toContain('Nenhum processamento com esses filtros.');
    for (const q of ['de=31/12/2026', 'ate=2026-02-30', 'de=2026-11-02&ate=2026-11-01', 'de=0000-01-01', 'ate=0000-12-31', 'de=0000-02-29&ate=2026-01-01']) {
      const bad = await get(`/processamentos?${q}`);
      expect(bad.statusCode, q).toBe(400);
      expect(bad.headers['content-type']).toMatch(/text\/html/);
      expect(bad.body, q).toMatch(/inválida|fora do intervalo aceito|período está invertido/);
    }
  });

  it('the ERRO filter keeps resent errors until they end ("Reenviado — aguardando")', async () => {
    const h = (await get('/processamentos?status=ERRO&size=100')).body;
    expect(linha(h, d.reenviado)).toContain('Reenviado — aguardando');
    expect(texto(linha(h, d.reenviado))).toContain('Erro anterior: Falta cadastro: cliente 40917 (linha 4)');
    expect(h).not.toContain(`href="/processamentos/${d.sucesso}"`);
    expect(h).toContain(`href="/processamentos/${d.erroTecnico}"`);
    // a reprocess-all keeps them listed
    const todos = await post('/processamentos/reprocessar-erros', { tipo: 'POSTOS' });
    expect(todos.statusCode).toBe(303);
    const depois = (await get(todos.headers.location as string)).body;
    expect(linha(depois, d.erroTecnico)).toContain('Reenviado — aguardando');
    expect(texto(linha(depois, d.erroTecnico))).toContain('Erro anterior: Falha técnica');
  });
});

describe('/processamentos/{id} detail', () => {
  it('a missing seller: what happened, the next step, the refused rows as a table; no vehicle section', async () => {
    const h = (await get(`/processamentos/${d.erroCadastro}`)).body;
    expect(h).toContain('<h1>metas-vendedores-novembro.xlsx</h1>');
    expect(texto(h)).toContain('O que aconteceu Falta cadastro: vendedor 999 (linhas 6, 10) não está cadastrado.');
    expect(texto(h)).toContain('O que fazer agora: Envie primeiro o Relatório 18 (faturamento e movimento) que cadastra o vendedor 999');
    expect(texto(h)).toMatch(/Linhas recusadas 2 linhas recusadas \(por causa delas nada foi gravado\)/);
    expect(h).toMatch(/<td data-rotulo="Linha" class="num">6<\/td><td data-rotulo="Coluna">vendedor<\/td><td data-rotulo="Valor">999<\/td>/);
    expect(h).not.toContain('Defesa do cadastro de veículos');
    expect(h).not.toContain('bi_vendedor</p>');
    // technical details folded
    expect(h).toMatch(/<details class="detalhes-tecnicos">\s*<summary>Detalhes técnicos<\/summary>[\s\S]*XL424[\s\S]*<\/details>/);
    expect(h.indexOf(d.erroCadastro, h.indexOf('<details class="detalhes-tecnicos">'))).toBeGreaterThan(0);
    expect(h.slice(0, h.indexOf('<details class="detalhes-tecnicos">'))).not.toMatch(/XL424|[0-9a-f]{64}/);
  });

  it('a FLUXO refusal: rows 6 and 10 with tab, column, value; counts say nothing was written; no vehicle section', async () => {
    const h = (await get(`/processamentos/${d.erroLinhas}`)).body;
    expect(texto(h)).toContain('Corrija as linhas 6 e 10 na planilha e envie o arquivo de novo.');
    expect(h).toContain('<td data-rotulo="Aba">Fluxo Pagar-Receber</td><td data-rotulo="Linha" class="num">10</td><td data-rotulo="Coluna">Saldo</td><td data-rotulo="Valor">mil</td><td data-rotulo="Motivo">Saldo &#39;mil&#39; inválido</td>');
    expect(h).not.toContain('Nenhuma linha recusada');
    expect(texto(h)).toContain('Nada foi gravado: o arquivo foi recusado por inteiro.');
    expect(h).not.toContain('Defesa do cadastro de veículos');
    expect(texto(h)).toContain('Contas a pagar e receber');
  });

  it('an unreadable file: the next step without zip internals (they stay in the technical details)', async () => {
    const h = (await get(`/processamentos/${d.erroIlegivel}`)).body;
    const antes = h.slice(0, h.indexOf('<details class="detalhes-tecnicos">'));
    expect(texto(antes)).toContain('salve de novo como .xlsx');
    expect(antes).not.toContain('invalid code lengths');
    expect(h.slice(h.indexOf('<details class="detalhes-tecnicos">'))).toContain('invalid code lengths set');
  });

  it('while PROCESSANDO: rows read and elapsed time; the end-only sections are absent', async () => {
    const h = (await get(`/processamentos/${d.processando}`)).body;
    expect(texto(h)).toMatch(/12\.000 linhas lidas até agora · processando há 2 min \d+ s/);
    expect(h).toContain('<meta http-equiv="refresh" content="3">');
    for (const x of ['Nenhum aviso', 'Nenhuma linha recusada', '<h2>Avisos</h2>', '<h2>Linhas recusadas</h2>', 'Defesa do cadastro de veículos']) expect(h, x).not.toContain(x);
    expect(h).not.toContain('Reprocessar este');
  });

  it('a clean SUCESSO shows the counts and "Nenhum aviso"; with warnings the warnings; a resent one its previous error', async () => {
    const ok = texto((await get(`/processamentos/${d.sucesso}`)).body);
    expect(ok).toContain('Lidas do arquivo 1.284 Gravadas (novas ou alteradas) 1.280');
    expect(ok).toContain('Nenhum aviso.');
    expect(ok).toContain('Nenhuma linha recusada.');
    const av = (await get(`/processamentos/${d.comAvisos}`)).body;
    expect(av).toContain('Sucesso com avisos');
    expect(texto(av)).toContain('Chave repetida no arquivo: vale a última linha com a mesma chave (2 linhas)');
    expect(texto(av)).toContain('aba Fluxo Pagar-Receber, linha 12');
    const re = texto((await get(`/processamentos/${d.reenviado}`)).body);
    expect(re).toContain('Reenviado depois de um erro Da última vez: Falta cadastro: cliente 40917 (linha 4) não está cadastrado.');
  });

  it('the batch section lists outcomes, not ENFILEIRADO, with a summary line', async () => {
    const h = (await get(`/processamentos/${d.conjuntoRetidoMeta}`)).body;
    expect(h).not.toContain('ENFILEIRADO');
    expect(texto(h)).toContain('Conjunto: 1 concluído, 1 com erro, 1 ignorado, 1 em andamento');
    expect(texto(h)).toContain('Nada a fazer agora: o arquivo é refeito sozinho');
  });
});

describe('/processamentos/conjuntos/{id}', () => {
  it('each entry with its final outcome and a summary line; the held batch says what it waits for', async () => {
    const imp = await get(`/processamentos/conjuntos/${d.conjuntoImportacao}`);
    expect(imp.statusCode).toBe(200);
    expect(texto(imp.body)).toContain('2 concluídos, 1 com erro, 1 ignorado (4 arquivos).');
    expect(imp.body).not.toContain('ENFILEIRADO');
    expect(imp.body).toContain('Ana Souza');
    expect(texto(imp.body)).toContain('Corrija a linha 7 na planilha e envie o arquivo de novo.');
    const retido = await get(`/processamentos/conjuntos/${d.conjuntoRetido}`);
    expect(texto(retido.body)).toContain('Erro — aguarda o Relatório 18');
    expect(texto(retido.body)).toContain('há arquivo aguardando o Relatório 18 deste conjunto terminar');
    expect(retido.body).toContain('<meta http-equiv="refresh" content="5">');
    expect((await get('/processamentos/conjuntos/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await get('/processamentos/conjuntos/xyz')).statusCode).toBe(404);
  });
});

describe('/xls/importar result page', () => {
  const k = 'k=importar-segredo-0123456789';
  it('a data refusal is "Arquivo recusado" with its next step and refused rows, never "Falha técnica"; a summary line', async () => {
    const res = await app.inject({ url: `/xls/importar/conjunto/${d.conjuntoImportacao}?${k}&t=0`, headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(200);
    const h = texto(res.body);
    expect(h).toContain('2 concluídos, 1 com erro, 1 ignorado.');
    expect(h).toContain('Arquivo recusado: Uma linha inválida: nada foi gravado.');
    expect(h).toContain('O que fazer agora: Corrija a linha 7 na planilha e envie o arquivo de novo.');
    expect(res.body).toContain('<td data-rotulo="Linha" class="num">7</td><td data-rotulo="Coluna">Valor</td><td data-rotulo="Valor">R$ --</td>');
    expect(h).not.toContain('Falha técnica');
    expect(h).toContain('Contas a pagar e receber');
    expect(h).not.toContain('FLUXO_PAGAR_RECEBER');
  });
  it('while waiting it names the file still running and its rows read; results wait for the end', async () => {
    const res = await app.inject({ url: `/xls/importar/conjunto/${d.conjuntoRetido}?${k}&t=${Date.now()}`, headers: { accept: 'text/html' } });
    const h = texto(res.body);
    expect(h).toContain('Processando: 3 de 4 arquivo(s) concluído(s)');
    expect(h).toContain('Ainda processando: relatorio18-novembro-2026.xlsx — 12.000 linhas lidas até agora');
    expect(res.body).not.toContain('class="cartao resultado"');
  });
});

describe('/processamentos/recusas', () => {
  it('lists refused uploads: when, file name, reason, who, where from', async () => {
    const h = (await get('/processamentos/recusas')).body;
    expect(texto(h)).toContain('3 envios recusados.');
    expect(texto(h)).toContain('fechamento-outubro.zip (9,4 MB)');
    expect(texto(h)).toContain('Arquivo .zip danificado: o diretório central não foi encontrado');
    expect(texto(h)).toContain('Ana Souza');
    expect(texto(h)).toContain('Página de importação');
    expect(h).toMatch(/data-rotulo="Quando">\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}</);
  });
});
