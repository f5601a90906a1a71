/**
 * The manual import page: /xls/importar and its legacy alias /compras/importar. Anonymous
 * (no identity-provider login), guarded by the shared secret in `k` (XLS_IMPORTAR_TOKEN,
 * constant time; unset -> 503). The form posts back to the same URL with `k`: the uploader's
 * identity (uploaderId, uploaderNome) and one or more .xlsx, which must all be COMPRAS,
 * COTA_FORNECEDOR or FLUXO_PAGAR_RECEBER (at most one quota sheet) or nothing is stored.
 * Accepted files are packed into one zip and received exactly like a batch sent to
 * POST /api/xls/processar (receberUpload). The browser is then sent to the batch's result
 * page, which refreshes with visible progress for up to XLS_IMPORTAR_ESPERA_SEGUNDOS (30),
 * then shows each file's outcome, or "ainda processando" and keeps refreshing until the end.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import * as db from 'zapatos/db';
import { HttpProblem } from '../../errors.js';
import { safeEqual } from '../../plugins/bearer.js';
import { renderPagina } from './render.js';
import { detectType, openWorkbook, WorkbookError, ArchiveError } from '../../xlsx/index.js';
import { zipArmazenado } from '../../xls/zip-escrever.js';
import { receberUpload } from '../../xls/intake.js';
import { simularUpload } from '../../xls/simular.js';
import { TempDir, spool } from '../../xls/spool.js';
import type { TipoPlanilha } from '../../xlsx/types.js';
import { viewErrorHandler } from './index.js';

export const TIPOS_IMPORTAVEIS: readonly TipoPlanilha[] = ['COMPRAS', 'COTA_FORNECEDOR', 'FLUXO_PAGAR_RECEBER'];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const MAX_ARQUIVOS = 20;

type Req = FastifyRequest<{ Querystring: { k?: string; t?: string } }>;

function base(req: FastifyRequest): '/xls/importar' | '/compras/importar' {
  return req.url.startsWith('/compras/') ? '/compras/importar' : '/xls/importar';
}

/** null when the secret is right; otherwise the refusal already sent. */
function exigirToken(req: Req, reply: FastifyReply): FastifyReply | null {
  const want = req.server.ctx.config.telas.importarToken;
  const titulo = 'Importar planilhas';
  if (!want) {
    return renderPagina(req, reply, 'erro', { titulo, status: 503, semNavegacao: true }, { mensagem: 'A página de importação está desligada: XLS_IMPORTAR_TOKEN não está configurada neste ambiente.', voltar: null });
  }
  const k = req.query.k;
  if (typeof k !== 'string' || k === '' || !safeEqual(k, want)) {
    return renderPagina(req, reply, 'erro', { titulo, status: 401, semNavegacao: true }, { mensagem: 'Link de importação inválido: use o endereço completo que você recebeu (com o parâmetro k).', voltar: null });
  }
  return null;
}

interface Resultado {
  arquivo: string;
  entrada: string;
  motivo: string | null;
  processamentoId: string | null;
  reenvio: boolean;
  p: null | {
    id: string; status: string; tipo: string | null; erro: string | null; avisos: Array<{ categoria: string; motivo: string; quantidade: number }>;
    rejeitadas: Array<{ aba: string | null; linha: number; campo: string | null; valor: string | null; mensagem: string }>;
    efetivas: number | null;
  };
  posicao: string | null;
  atual: boolean | null;
  totais: Array<{ tipo: string; total: string; vencido: string; titulos: number; titulosVencidos: number }>;
}

async function resumoFluxo(app: FastifyInstance, id: string): Promise<{ posicao: string | null; atual: boolean | null; totais: Resultado['totais'] }> {
  const [ok] = await db.sql<db.SQL, Array<{ ok: boolean }>>`select to_regprocedure('public.xls_fluxo_resumo(uuid)') is not null as ok`.run(app.ctx.pool);
  if (!ok?.ok) return { posicao: null, atual: null, totais: [] };
  const rows = await db.sql<db.SQL, Array<{ tipo: string; posicao: string; atual: boolean; total: string; vencido: string; titulos: number; titulos_vencidos: number }>>`
    select tipo, posicao::text as posicao, atual, total::text as total, vencido::text as vencido, titulos, titulos_vencidos from public.xls_fluxo_resumo(${db.param(id)}::uuid)`.run(app.ctx.pool);
  return {
    posicao: rows[0]?.posicao ?? null,
    atual: rows.length ? rows.some((r) => r.atual) : null,
    totais: rows.map((r) => ({ tipo: r.tipo, total: r.total, vencido: r.vencido, titulos: r.titulos, titulosVencidos: r.titulos_vencidos })),
  };
}

async function resultados(app: FastifyInstance, conjuntoId: string): Promise<Resultado[]> {
  const itens = await db.select('xls_conjunto_item', { conjunto_id: conjuntoId }, {
    columns: ['arquivo', 'processamento_id', 'status', 'motivo'], order: { by: 'ordem', direction: 'ASC' },
  }).run(app.ctx.pool);
  const out: Resultado[] = [];
  for (const i of itens) {
    // a resend of a known file: the entry names the existing processing; show that one
    const reenvio = i.status === 'DUPLICADO' || i.status === 'REPROCESSANDO';
    const id = i.processamento_id ?? (i.status === 'DUPLICADO' ? UUID.exec(i.motivo ?? '')?.[0] ?? null : null);
    const r: Resultado = { arquivo: i.arquivo, entrada: i.status, motivo: i.motivo, processamentoId: id, reenvio, p: null, posicao: null, atual: null, totais: [] };
    if (id) {
      const p = await db.selectOne('xls_processamento', { id }, {
        columns: ['id', 'status', 'tipo', 'erro_mensagem', 'avisos', 'linhas_rejeitadas', 'linhas_efetivas'],
      }).run(app.ctx.pool);
      if (p) {
        r.p = {
          id: p.id, status: p.status, tipo: p.tipo, erro: p.erro_mensagem, efetivas: p.linhas_efetivas,
          avisos: (p.avisos ?? []) as unknown as NonNullable<Resultado['p']>['avisos'],
          rejeitadas: (p.linhas_rejeitadas ?? []) as unknown as NonNullable<Resultado['p']>['rejeitadas'],
        };
        if (p.tipo === 'FLUXO_PAGAR_RECEBER' && p.status === 'SUCESSO') Object.assign(r, await resumoFluxo(app, p.id));
      }
    }
    out.push(r);
  }
  return out;
}

export default async function importarRoutes(app: FastifyInstance) {
  const limits = app.ctx.config.xls.limits;
  await app.register(multipart, { limits: { fileSize: limits.maxUploadBytes, files: MAX_ARQUIVOS, fields: 10, parts: MAX_ARQUIVOS + 10 } });
  app.setErrorHandler(viewErrorHandler);

  const formulario = (req: Req, reply: FastifyReply, v: Record<string, string>, erro: string | null, status = 200) =>
    renderPagina(req, reply, 'importar/formulario', {
      titulo: 'Importar planilhas', status, semNavegacao: true, aviso: erro ? { tipo: 'erro', texto: erro } : null,
    }, { acao: `${base(req)}?k=${encodeURIComponent(req.query.k ?? '')}`, v, tipos: TIPOS_IMPORTAVEIS });

  /** "Pré-visualizar": what the send would change (src/xls/simular.ts), nothing stored; the form again below. */
  async function previa(req: Req, reply: FastifyReply, v: Record<string, string>, zip: Buffer) {
    const dir = await TempDir.create('bi-previa-');
    try {
      const upload = await spool((async function* () { yield zip; })(), dir.file('.upload'));
      const sim = await simularUpload(app.ctx, 'previa.zip', upload, { limits, tmp: dir });
      return renderPagina(req, reply, 'importar/previa', { titulo: 'Pré-visualização da importação', semNavegacao: true }, {
        sim, acao: `${base(req)}?k=${encodeURIComponent(req.query.k ?? '')}`, v, tipos: TIPOS_IMPORTAVEIS,
      });
    } catch (err) {
      if (err instanceof HttpProblem && err.status < 500) return formulario(req, reply, v, `Nada foi gravado: ${err.message}`, err.status);
      throw err;
    } finally {
      await dir.remove();
    }
  }

  for (const path of ['/xls/importar', '/compras/importar'] as const) {
    app.get<{ Querystring: { k?: string } }>(path, async (req, reply) => exigirToken(req, reply) ?? formulario(req, reply, {}, null));

    app.post<{ Querystring: { k?: string } }>(path, async (req, reply) => {
      const recusa = exigirToken(req, reply);
      if (recusa) return recusa;
      if (!req.isMultipart()) return formulario(req, reply, {}, 'Envie o formulário com os arquivos (multipart/form-data).', 415);
      const campos: Record<string, string> = {};
      const arquivos: Array<{ nome: string; bytes: Buffer }> = [];
      try {
        for await (const part of req.parts()) {
          if (part.type === 'file') {
            const bytes = await part.toBuffer();
            if (part.fieldname !== 'arquivo') continue;
            if (bytes.length === 0 && !part.filename) continue; // the empty file input of a form
            arquivos.push({ nome: part.filename || 'arquivo.xlsx', bytes });
          } else if (typeof part.value === 'string') {
            campos[part.fieldname] = part.value.trim();
          }
        }
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'FST_REQ_FILE_TOO_LARGE') return formulario(req, reply, campos, `Arquivo maior que o limite de ${limits.maxUploadBytes} bytes: nada foi gravado.`, 413);
        if (code === 'FST_FILES_LIMIT_REACHED' || code === 'FST_PARTS_LIMIT_REACHED') return formulario(req, reply, campos, `Envie no máximo ${MAX_ARQUIVOS} arquivos por vez.`, 413);
        throw err;
      }
      const uploaderId = (campos.uploaderId ?? '').slice(0, 200);
      const uploaderNome = (campos.uploaderNome ?? '').slice(0, 200);
      const v = { uploaderId, uploaderNome };
      if (!uploaderId || !uploaderNome) return formulario(req, reply, v, 'Informe sua identificação (matrícula ou e-mail) e seu nome: toda importação registra quem enviou.', 400);
      if (arquivos.length === 0) return formulario(req, reply, v, 'Escolha ao menos um arquivo .xlsx.', 400);
      const problemas: string[] = [];
      let cotas = 0;
      for (const a of arquivos) {
        if (!/\.xlsx$/i.test(a.nome)) { problemas.push(`${a.nome}: só arquivos .xlsx são aceitos`); continue; }
        if (a.bytes.length === 0) { problemas.push(`${a.nome}: arquivo vazio`); continue; }
        let tipo: TipoPlanilha | null;
        try {
          tipo = await detectType(await openWorkbook(a.bytes, limits));
        } catch (err) {
          if (err instanceof WorkbookError || err instanceof ArchiveError) { problemas.push(`${a.nome}: não é uma planilha .xlsx legível (${err.message})`); continue; }
          throw err;
        }
        if (tipo === null || !TIPOS_IMPORTAVEIS.includes(tipo)) {
          problemas.push(`${a.nome}: ${tipo ? `planilha do tipo ${tipo}` : 'tipo de planilha não reconhecido'}; esta página aceita apenas ${TIPOS_IMPORTAVEIS.join(', ')}`);
        }
        if (tipo === 'COTA_FORNECEDOR') cotas += 1;
      }
      if (cotas > 1) problemas.push(`${cotas} planilhas de cota de fornecedor: envie no máximo uma por importação`);
      if (problemas.length > 0) {
        return formulario(req, reply, v, `Nada foi gravado. ${problemas.join('; ')}.`, 400);
      }
      // one batch, like a .zip sent to the API (names made unique inside the zip)
      const vistos = new Map<string, number>();
      const entradas = arquivos.map((a) => {
        const n = (vistos.get(a.nome.toLowerCase()) ?? 0) + 1;
        vistos.set(a.nome.toLowerCase(), n);
        return { nome: n === 1 ? a.nome.replace(/[\\/]/g, '_') : a.nome.replace(/[\\/]/g, '_').replace(/\.xlsx$/i, ` (${n}).xlsx`), bytes: a.bytes };
      });
      const zip = zipArmazenado(entradas);
      if (campos.acao === 'previa') return previa(req, reply, v, zip);
      let recibo;
      try {
        ({ recibo } = await receberUpload(app.ctx, `importacao-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.zip`, zip,
          { uploader: { id: uploaderId, nome: uploaderNome }, limits }));
      } catch (err) {
        if (err instanceof HttpProblem && err.status < 500 && err.status !== 503) return formulario(req, reply, v, `Nada foi gravado: ${err.message}`, err.status);
        if (err instanceof HttpProblem && err.status === 503) return formulario(req, reply, v, `${err.message}.`, 503);
        throw err;
      }
      req.log.info({ conjuntoId: recibo.conjuntoId, uploaderId, arquivos: entradas.length }, 'importação manual recebida');
      return reply.redirect(`${base(req)}/lote/${recibo.conjuntoId}?k=${encodeURIComponent(req.query.k ?? '')}&t=${Date.now()}`, 303);
    });

    app.get<{ Params: { id: string }; Querystring: { k?: string; t?: string } }>(`${path}/lote/:id`, async (req, reply) => {
      const recusa = exigirToken(req, reply);
      if (recusa) return recusa;
      if (!UUID.test(req.params.id)) throw new HttpProblem(404, 'Não encontrado', 'importação não encontrada');
      const lote = await db.selectOne('xls_conjunto', { id: req.params.id }, { columns: ['id', 'uploader_id', 'uploader_nome', 'recebido_em'] }).run(app.ctx.pool);
      if (!lote) throw new HttpProblem(404, 'Não encontrado', 'importação não encontrada');
      const res = await resultados(app, lote.id);
      const pendentes = res.filter((r) => r.p && (r.p.status === 'PENDENTE' || r.p.status === 'PROCESSANDO')).length;
      const inicio = Number(req.query.t);
      const decorrido = Number.isFinite(inicio) ? (Date.now() - inicio) / 1000 : Number.POSITIVE_INFINITY;
      const esperando = pendentes > 0 && decorrido < app.ctx.config.telas.importarEsperaSegundos;
      return renderPagina(req, reply, 'importar/resultado', {
        titulo: esperando ? 'Importando…' : pendentes > 0 ? 'Importação: ainda processando' : 'Resultado da importação',
        semNavegacao: true, refresh: esperando ? 1 : pendentes > 0 ? 5 : undefined,
      }, {
        lote, res, pendentes, esperando, total: res.length, concluidos: res.length - pendentes,
        novo: `${base(req)}?k=${encodeURIComponent(req.query.k ?? '')}`,
      });
    });
  }
}
