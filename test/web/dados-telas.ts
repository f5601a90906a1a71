/**
 * Realistic data for the processing screens, shared by the HTTP content tests and the
 * browser walk (390 px and 1366 px, axe-core): every kind of failure, warnings, a run in
 * progress, a resent error, a batch still held by its master report, a finished batch sent
 * from the import page, and refused uploads. Built through the real SQL transitions
 * (xls_receber, xls_iniciar, xls_falhar, xls_concluir…), so the rows are what the service
 * writes. Their jobs are marked done: a job runner started by a test leaves them as they are.
 */
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import {
  xlsConcluir, xlsConjuntoAbrir, xlsConjuntoRecebido, xlsDefinirTipo, xlsFalhar, xlsIgnorar, xlsIniciar, xlsReceber,
  xlsReceberIgnorado, xlsReprocessar,
} from '../../src/planilhas/db.js';
import type { TipoPlanilha } from '../../src/xlsx/types.js';

export const WORKER_TELAS = 'vm:4242:fixture-telas';

export interface DadosTelas {
  /** SUCESSO without warnings (COMPRAS) */
  sucesso: string;
  /** SUCESSO with warnings (FLUXO_PAGAR_RECEBER, total differs from tab Grupo) */
  comAvisos: string;
  /** ERRO: seller 999 not registered (META, loose file) */
  erroCadastro: string;
  /** ERRO: FLUXO_PAGAR_RECEBER refused, rows 6 and 10 invalid */
  erroLinhas: string;
  /** ERRO: not a readable spreadsheet */
  erroIlegivel: string;
  /** ERRO: technical failure (database connection lost) */
  erroTecnico: string;
  /** IGNORADO: type not recognised */
  ignorado: string;
  /** PROCESSANDO mid-run: RELATORIO18 with 12.000 rows read, in the held batch */
  processando: string;
  /** PENDENTE again after "Reprocessar" of an ERRO */
  reenviado: string;
  /** batch held open by its RELATORIO18 still running (one META waits for it) */
  conjuntoRetido: string;
  /** the META of the held batch, failed by a transient missing seller */
  conjuntoRetidoMeta: string;
  /** batch sent from the import page, ended: 2 concluded, 1 with error, 1 ignored */
  conjuntoImportacao: string;
  /** refused uploads (API and import page) */
  recusas: string[];
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function receber(pool: pg.Pool, arquivo: string, conjuntoId: string | null = null, uploader: { id: string; nome: string } | null = null): Promise<string> {
  const conteudo = `${arquivo}-${randomBytes(8).toString('hex')}`;
  const r = await xlsReceber(pool, {
    arquivo, checksum: sha(conteudo), tamanhoBytes: 48_213, arquivoBytes: Buffer.from(conteudo), conjuntoId,
    uploaderId: uploader?.id ?? null, uploaderNome: uploader?.nome ?? null,
  });
  return r.processamentoId!;
}

async function iniciar(pool: pg.Pool, id: string, tipo: TipoPlanilha): Promise<void> {
  await xlsIniciar(pool, id, WORKER_TELAS);
  await xlsDefinirTipo(pool, id, WORKER_TELAS, tipo);
}

async function concluir(pool: pg.Pool, id: string, tipo: TipoPlanilha, linhas: { enviadas: number; efetivas: number; removidas: number },
  avisos: Array<{ categoria: string; motivo: string; quantidade?: number; linhas?: Array<{ aba: string; linha: number; valor: string | null }> }> = []): Promise<void> {
  await iniciar(pool, id, tipo);
  await pool.query(`update xls_processamento set linhas_enviadas = $2, linhas_efetivas = $3, linhas_removidas = $4 where id = $1`,
    [id, linhas.enviadas, linhas.efetivas, linhas.removidas]);
  await xlsConcluir(pool, id, WORKER_TELAS, { avisos });
}

/** Fills the database with the screens' data; returns the ids. Call once per database. */
export async function popularTelas(db: { pool: pg.Pool }): Promise<DadosTelas> {
  const pool = db.pool;
  await pool.query(`insert into app.worker (id, hostname, pid, heartbeat_at) values ($1, 'fixture', 4242, now() + interval '1 day')
                    on conflict (id) do update set heartbeat_at = excluded.heartbeat_at`, [WORKER_TELAS]);

  const sucesso = await receber(pool, 'compras-outubro-2026.xlsx');
  await concluir(pool, sucesso, 'COMPRAS', { enviadas: 1_284, efetivas: 1_280, removidas: 3 });

  const comAvisos = await receber(pool, 'fluxo-posicao-14-11-2026.xlsx');
  await concluir(pool, comAvisos, 'FLUXO_PAGAR_RECEBER', { enviadas: 18, efetivas: 18, removidas: 0 }, [
    { categoria: 'total', motivo: 'total a receber difere da aba Grupo: soma do Saldo R$ 500,00, Total da aba Grupo R$ 650,00' },
    { categoria: 'duplicada', motivo: 'chave repetida no arquivo: vale a última linha com a mesma chave', quantidade: 2,
      linhas: [{ aba: 'Fluxo Pagar-Receber', linha: 9, valor: null }, { aba: 'Fluxo Pagar-Receber', linha: 12, valor: null }] },
  ]);

  const erroCadastro = await receber(pool, 'metas-vendedores-novembro.xlsx');
  await iniciar(pool, erroCadastro, 'META');
  await xlsFalhar(pool, erroCadastro, WORKER_TELAS, { motivo: 'vendedor não cadastrado em bi_vendedor: 999 (linhas 6, 10)', sqlstate: 'XL424' });

  const erroLinhas = await receber(pool, 'fluxo-posicao-15-11-2026.xlsx');
  await iniciar(pool, erroLinhas, 'FLUXO_PAGAR_RECEBER');
  await xlsFalhar(pool, erroLinhas, WORKER_TELAS, {
    motivo: "FLUXO_PAGAR_RECEBER recusado, nada gravado: 2 linha(s) inválida(s): linha 6: Vencimento '31/02/2026' inválido; linha 10: Saldo 'mil' inválido",
    sqlstate: 'XL422',
    linhasRejeitadas: [
      { aba: 'Fluxo Pagar-Receber', linha: 6, campo: 'Vencimento', valor: '31/02/2026', mensagem: "linha 6: Vencimento '31/02/2026' inválido" },
      { aba: 'Fluxo Pagar-Receber', linha: 10, campo: 'Saldo', valor: 'mil', mensagem: "linha 10: Saldo 'mil' inválido" },
    ],
  });

  const erroIlegivel = await receber(pool, 'cotas-2026-corrompido.xlsx');
  await xlsIniciar(pool, erroIlegivel, WORKER_TELAS);
  await xlsFalhar(pool, erroIlegivel, WORKER_TELAS, { motivo: 'arquivo .xlsx danificado: xl/worksheets/sheet1.xml não pôde ser descompactado (invalid code lengths set)', sqlstate: 'XL415' });

  const erroTecnico = await receber(pool, 'postos-cadastro.xlsx');
  await iniciar(pool, erroTecnico, 'POSTOS');
  await xlsFalhar(pool, erroTecnico, WORKER_TELAS, { motivo: 'terminating connection due to administrator command', sqlstate: '57P01' });

  const ignorado = await receber(pool, 'foto-do-caminhao.xlsx');
  await xlsIniciar(pool, ignorado, WORKER_TELAS);
  await xlsIgnorar(pool, ignorado, WORKER_TELAS, 'tipo não reconhecido');

  const reenviado = await receber(pool, 'metas-carteira-outubro.xlsx');
  await iniciar(pool, reenviado, 'META_CARTEIRA');
  await xlsFalhar(pool, reenviado, WORKER_TELAS, { motivo: 'cliente não cadastrado em bi_cliente: 40917 (linha 4)', sqlstate: 'XL424' });
  await xlsReprocessar(pool, reenviado);

  // the held batch: its RELATORIO18 is still running; its META waits for it
  const conjuntoRetido = await xlsConjuntoAbrir(pool, { arquivo: 'fechamento-novembro-2026.zip' });
  const processando = await receber(pool, 'relatorio18-novembro-2026.xlsx', conjuntoRetido);
  const conjuntoRetidoMeta = await receber(pool, 'metas-novembro-2026.xlsx', conjuntoRetido);
  const conjuntoRetidoCompras = await receber(pool, 'compras-novembro-2026.xlsx', conjuntoRetido);
  await xlsReceberIgnorado(pool, conjuntoRetido, 'leia-me.txt', 'não é .xlsx');
  await xlsConjuntoRecebido(pool, conjuntoRetido);
  await concluir(pool, conjuntoRetidoCompras, 'COMPRAS', { enviadas: 312, efetivas: 312, removidas: 0 });
  await iniciar(pool, conjuntoRetidoMeta, 'META');
  await xlsFalhar(pool, conjuntoRetidoMeta, WORKER_TELAS, { motivo: 'vendedor não cadastrado em bi_vendedor: 999 (linha 5)', sqlstate: 'XL424' });
  await iniciar(pool, processando, 'RELATORIO18');
  await pool.query(`update xls_processamento set iniciado_em = now() - interval '2 minutes 5 seconds' where id = $1`, [processando]);
  await pool.query(`select public.xls_progresso($1, $2, 12000)`, [processando, WORKER_TELAS]);

  // a batch from the import page, ended
  const ana = { id: 'ana.souza@empresa.com.br', nome: 'Ana Souza' };
  const conjuntoImportacao = await xlsConjuntoAbrir(pool, { arquivo: 'importacao-2026-11-20-14-02-11.zip', uploaderId: ana.id, uploaderNome: ana.nome });
  const impCompras = await receber(pool, 'compras-semana-46.xlsx', conjuntoImportacao, ana);
  const impCota = await receber(pool, 'cota-fornecedor-2026.xlsx', conjuntoImportacao, ana);
  const impFluxo = await receber(pool, 'fluxo-posicao-20-11-2026.xlsx', conjuntoImportacao, ana);
  await xlsReceberIgnorado(pool, conjuntoImportacao, 'notas.pdf', 'não é .xlsx');
  await xlsConjuntoRecebido(pool, conjuntoImportacao);
  await concluir(pool, impCompras, 'COMPRAS', { enviadas: 87, efetivas: 85, removidas: 0 });
  await concluir(pool, impCota, 'COTA_FORNECEDOR', { enviadas: 48, efetivas: 12, removidas: 0 });
  await iniciar(pool, impFluxo, 'FLUXO_PAGAR_RECEBER');
  await xlsFalhar(pool, impFluxo, WORKER_TELAS, {
    motivo: "FLUXO_PAGAR_RECEBER recusado, nada gravado: 1 linha(s) inválida(s): linha 7: Valor 'R$ --' inválido", sqlstate: 'XL422',
    linhasRejeitadas: [{ aba: 'Fluxo Pagar-Receber', linha: 7, campo: 'Valor', valor: 'R$ --', mensagem: "linha 7: Valor 'R$ --' inválido" }],
  });

  const recusas: string[] = [];
  for (const r of [
    ['api', 'fechamento-outubro.zip', 9_812_331, null, null, '10.0.4.21', 400, 'XL400', 'arquivo .zip danificado: o diretório central não foi encontrado; nada foi gravado'],
    ['api', 'backup-completo.zip', 812_000_000, null, null, '10.0.4.21', 413, 'XL413', 'o arquivo passa do limite de envio de 200 MB'],
    ['importar', 'relatorio18-outubro.xlsx', 5_120_774, ana.id, ana.nome, '10.0.9.7', 400, null, 'planilha do tipo RELATORIO18; esta página aceita apenas COMPRAS, COTA_FORNECEDOR, FLUXO_PAGAR_RECEBER'],
  ] as const) {
    const { rows: [x] } = await pool.query(`select public.xls_upload_recusar($1, $2, $3, $4, $5, $6, $7, $8, $9) as id`, r as unknown as unknown[]);
    recusas.push(x.id);
  }

  // the runner must not take these (their bytes are not spreadsheets)
  await pool.query(`update app.job set status = 'done', locked_by = null where kind = 'xls_processar'
                      and payload ->> 'id' = any($1::text[])`,
  [[sucesso, comAvisos, erroCadastro, erroLinhas, erroIlegivel, erroTecnico, ignorado, reenviado, processando, conjuntoRetidoMeta,
    conjuntoRetidoCompras, impCompras, impCota, impFluxo]]);

  return {
    sucesso, comAvisos, erroCadastro, erroLinhas, erroIlegivel, erroTecnico, ignorado, processando, reenviado,
    conjuntoRetido, conjuntoRetidoMeta, conjuntoImportacao, recusas,
  };
}
