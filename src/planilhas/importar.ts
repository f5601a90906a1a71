/**
 * The manual import page: /xls/importar and its legacy alias /compras/importar. Anonymous
 * (no identity-provider login), guarded by the shared secret in `k` (XLS_IMPORTAR_TOKEN,
 * constant time; unset -> 503). The form posts back to the same URL with `k`: the uploader's
 * identity (uploaderId, uploaderNome) and one or more spreadsheets (.xlsx, .xls or .ods, read by
 * content), which must all be COMPRAS,
 * COTA_FORNECEDOR or FLUXO_PAGAR_RECEBER (at most one quota sheet) or nothing is stored.
 * Accepted files are packed into one zip and received exactly like a batch sent to
 * POST /api/xls/processar (receberUpload). The browser is then sent to the batch's result
 * page, which refreshes with visible progress for up to XLS_IMPORTAR_ESPERA_SEGUNDOS (30),
 * then shows each file's outcome, or "ainda processando" and keeps refreshing until the end.
 * While it waits the page names the files still running and their rows read so far; at the
 * end each file says what happened and what to do next (public.xls_falha_explicar), with
 * its refused rows as a table. A refused form (a file that is not a readable .xlsx, a type
 * this page does not take…) is recorded in xls_upload_recusa with who sent it.
 */
import { rm } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import * as db from 'zapatos/db';
import { HttpProblem } from '../errors.js';
import { safeEqual } from '../web/bearer.js';
import { renderPagina } from '../web/render.js';
import { ZIP_MAX_BYTES, tamanhoZipArmazenado, zipArmazenadoArquivo } from './zip-escrever.js';
import { formatBytes } from '../xlsx/limits.js';
import { receberUpload } from './recebimento.js';
import { simularUpload } from './simular.js';
import { abrirLeitura } from './processar.js';
import { type TempFile, TempFileSourceError, TempFileTooLarge, TempDir, writeTempFile } from './temp-file.js';
import { FALHA_DE_P, resumoFluxo, type Falha, type Progresso } from './consulta.js';
import { xlsUploadRecusar } from './db.js';
import { palavras } from './palavras.js';
import type { TipoPlanilha } from '../xlsx/types.js';
import { campoRecusado } from '../web/telas.js';
import { rotasDeTela } from '../web/error-handler.js';

export const TIPOS_IMPORTAVEIS: readonly TipoPlanilha[] = ['COMPRAS', 'COTA_FORNECEDOR', 'FLUXO_PAGAR_RECEBER'];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** the batch id of the result page: the whole segment is a UUID (`x<uuid>x` is a 404, not a SQL error) */
const UUID_EXATO = new RegExp(`^${UUID.source}$`, 'i');
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
    id: string; status: string; tipo: string | null; tipoNome: string | null; erro: string | null; avisos: Array<{ categoria: string; motivo: string; quantidade: number }>;
    rejeitadas: Array<{ aba: string | null; linha: number; campo: string | null; valor: string | null; mensagem: string }>;
    efetivas: number | null; falha: Falha | null; progresso: Progresso | null;
  };
  posicao: string | null;
  atual: boolean | null;
  totais: Array<{ tipo: string; total: string; vencido: string; titulos: number; titulosVencidos: number }>;
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
      const [p] = await db.sql<db.SQL, Array<{ id: string; status: string; tipo: string | null; tipo_nome: string | null; erro_mensagem: string | null;
        avisos: NonNullable<Resultado['p']>['avisos']; linhas_rejeitadas: NonNullable<Resultado['p']>['rejeitadas']; linhas_efetivas: number | null;
        falha: Falha | null; linhas_lidas: number | null; progresso_em: Date | null }>>`
        select p.id, p.status, p.tipo, public.xls_tipo_nome(p.tipo) as tipo_nome, p.erro_mensagem, p.avisos, p.linhas_rejeitadas, p.linhas_efetivas,
               ${FALHA_DE_P} as falha,
               g.linhas_lidas, g.atualizado_em as progresso_em
          from public.xls_processamento p
          left join public.xls_processamento_progresso g on g.processamento_id = p.id and g.execucao = p.execucoes and p.status = 'PROCESSANDO'
         where p.id = ${db.param(id)}::uuid`.run(app.ctx.pool);
      if (p) {
        r.p = {
          id: p.id, status: p.status, tipo: p.tipo, tipoNome: p.tipo_nome, erro: p.erro_mensagem, efetivas: p.linhas_efetivas,
          avisos: p.avisos ?? [], rejeitadas: p.linhas_rejeitadas ?? [], falha: p.falha,
          progresso: p.linhas_lidas === null ? null : { linhasLidas: p.linhas_lidas, atualizadoEm: new Date(p.progresso_em!).toISOString() },
        };
        if (p.tipo === 'FLUXO_PAGAR_RECEBER' && p.status === 'SUCESSO') Object.assign(r, await resumoFluxo(app.ctx.pool, p.id));
      }
    }
    out.push(r);
  }
  return out;
}

type Partes =
  | { campos: Record<string, string>; arquivos: Array<{ nome: string; file: TempFile }> }
  | { campos: Record<string, string>; erro: string; status: number };

/**
 * Reads the form: text fields, and every `arquivo` part streamed to a file of `dir` as it
 * arrives (size, SHA-256 and CRC-32 computed on the way). The parts together may not pass
 * `maxTotal`: the first byte beyond it stops the reading (413, nothing stored). Files in
 * other fields are drained and dropped.
 */
async function receberPartes(req: FastifyRequest, dir: TempDir, maxTotal: number): Promise<Partes> {
  const campos: Record<string, string> = {};
  const arquivos: Array<{ nome: string; file: TempFile }> = [];
  const grande = { campos, status: 413, erro: `Os arquivos passam do limite de envio de ${formatBytes(maxTotal)} (somados): nada foi gravado.` };
  let total = 0;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'arquivo') { part.file.resume(); continue; }
        let file: TempFile;
        try {
          file = await writeTempFile(part.file as AsyncIterable<Buffer>, dir.file('.xlsx'), maxTotal - total, { crc32: true });
        } catch (err) {
          if (err instanceof TempFileTooLarge) return grande;
          if (err instanceof TempFileSourceError) throw err.cause;
          if (err instanceof HttpProblem) return { campos, status: err.status, erro: `${err.message}.` };
          throw err;
        }
        if (part.file.truncated) return grande;
        total += file.size;
        if (file.size === 0 && !part.filename) { await rm(file.path, { force: true }); continue; } // the empty file input of a form
        arquivos.push({ nome: part.filename || 'arquivo.xlsx', file });
      } else if (typeof part.value === 'string') {
        campos[part.fieldname] = part.value.trim();
      }
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') return grande;
    if (code === 'FST_FILES_LIMIT_REACHED' || code === 'FST_PARTS_LIMIT_REACHED') return { campos, status: 413, erro: `Envie no máximo ${MAX_ARQUIVOS} arquivos por vez.` };
    throw err;
  }
  return { campos, arquivos };
}

/** Staff names of the types (app.xls_tipo.nome). */
async function tiposNomes(app: FastifyInstance): Promise<Map<string, string>> {
  const { rows } = await app.ctx.pool.query<{ tipo: string; nome: string }>('select tipo, public.xls_tipo_nome(tipo) as nome from app.xls_tipo');
  return new Map(rows.map((r) => [r.tipo, r.nome]));
}

export default async function importarRoutes(app: FastifyInstance) {
  const limits = app.ctx.config.xls.limits;
  await app.register(multipart, { limits: { fileSize: limits.maxUploadBytes, files: MAX_ARQUIVOS, fields: 10, parts: MAX_ARQUIVOS + 10 } });
  rotasDeTela(app);

  const formulario = (req: Req, reply: FastifyReply, v: Record<string, string>, erro: string | null, status = 200) =>
    renderPagina(req, reply, 'importar/formulario', {
      titulo: 'Importar planilhas', status, semNavegacao: true, banner: erro ? { tipo: 'erro', texto: erro } : null,
    }, { acao: `${base(req)}?k=${encodeURIComponent(req.query.k ?? '')}`, v, tipos: TIPOS_IMPORTAVEIS });

  /** "Pré-visualizar": what the send would change (src/planilhas/simular.ts), nothing stored; the form again below. */
  async function previa(req: Req, reply: FastifyReply, v: Record<string, string>, zip: TempFile) {
    const dir = await TempDir.create('bi-previa-');
    try {
      const sim = await simularUpload(app.ctx, 'previa.zip', zip, { limits, tmp: dir });
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
      // every part is streamed to a temporary file as it arrives (never held whole); the
      // parts together may not pass the upload limit, since they are packed into one batch
      let dir: TempDir;
      try {
        dir = await TempDir.create('bi-importar-');
      } catch (err) {
        if (err instanceof HttpProblem) return formulario(req, reply, {}, `${err.message}.`, err.status);
        throw err;
      }
      try {
        const recebido = await receberPartes(req, dir, limits.maxUploadBytes);
        const campos = recebido.campos;
        const nul = campoRecusado(campos);
        if (nul) return formulario(req, reply, {}, `Nada foi gravado. ${nul}`, 400);
        if ('erro' in recebido) return formulario(req, reply, campos, recebido.erro, recebido.status);
        const arquivos = recebido.arquivos;
        const uploaderId = (campos.uploaderId ?? '').slice(0, 200);
        const uploaderNome = (campos.uploaderNome ?? '').slice(0, 200);
        const v = { uploaderId, uploaderNome };
        if (!uploaderId || !uploaderNome) return formulario(req, reply, v, 'Informe sua identificação (matrícula ou e-mail) e seu nome: toda importação registra quem enviou.', 400);
        if (arquivos.length === 0) return formulario(req, reply, v, 'Escolha ao menos uma planilha (.xlsx, .xls ou .ods).', 400);
        const nomesTipo = await tiposNomes(app);
        const aceitos = TIPOS_IMPORTAVEIS.map((t) => nomesTipo.get(t) ?? t).join(', ');
        const problemas: Array<{ arquivo: string | null; bytes: number | null; motivo: string }> = [];
        let cotas = 0;
        for (const a of arquivos) {
          if (!/\.(xlsx|xls|ods)$/i.test(a.nome)) { problemas.push({ arquivo: a.nome, bytes: a.file.size, motivo: 'só planilhas .xlsx, .xls ou .ods são aceitas' }); continue; }
          if (a.file.size === 0) { problemas.push({ arquivo: a.nome, bytes: 0, motivo: 'arquivo vazio' }); continue; }
          let tipo: TipoPlanilha | null;
          // detected in the parse thread, as a processing is (its heap limit, its own thread):
          // whatever the file holds, it cannot take this process's memory or time
          const leitura = abrirLeitura(app.ctx, a.file.path, null);
          try {
            tipo = await leitura.tipo();
          } catch (err) {
            // the reader's reason (zip internals) goes to the log, not to the page
            req.log.info({ arquivo: a.nome, motivo: err instanceof Error ? err.message : String(err) }, 'importação: arquivo ilegível');
            problemas.push({ arquivo: a.nome, bytes: a.file.size, motivo: 'não é uma planilha legível: abra no Excel ou no LibreOffice, salve de novo e envie outra vez' });
            continue;
          } finally {
            await leitura.close();
          }
          if (tipo === null || !TIPOS_IMPORTAVEIS.includes(tipo)) {
            problemas.push({ arquivo: a.nome, bytes: a.file.size, motivo: `${tipo ? `é uma planilha de ${nomesTipo.get(tipo) ?? tipo}` : 'tipo de planilha não reconhecido'}; esta página aceita apenas ${aceitos}` });
          }
          if (tipo === 'COTA_FORNECEDOR') cotas += 1;
        }
        if (cotas > 1) problemas.push({ arquivo: null, bytes: null, motivo: `${cotas} planilhas de ${nomesTipo.get('COTA_FORNECEDOR') ?? 'cota de fornecedor'}: envie no máximo uma por importação` });
        if (problemas.length > 0) {
          for (const x of problemas) {
            await xlsUploadRecusar(app.ctx.pool, {
              origem: 'importar', arquivo: x.arquivo, tamanhoBytes: x.bytes, uploaderId, uploaderNome, clienteIp: req.ip, statusHttp: 400, motivo: x.motivo,
            }).catch((e: unknown) => req.log.warn({ err: e }, 'recusa de importação não registrada'));
          }
          return formulario(req, reply, v, `Nada foi gravado. ${problemas.map((x) => (x.arquivo ? `${x.arquivo}: ${x.motivo}` : x.motivo)).join('; ')}.`, 400);
        }
        // one batch, like a .zip sent to the API (names made unique inside the zip)
        const vistos = new Map<string, number>();
        const entradas = arquivos.map((a) => {
          const n = (vistos.get(a.nome.toLowerCase()) ?? 0) + 1;
          vistos.set(a.nome.toLowerCase(), n);
          const nome = n === 1 ? a.nome.replace(/[\\/]/g, '_') : a.nome.replace(/[\\/]/g, '_').replace(/\.(xlsx|xls|ods)$/i, ` (${n}).$1`);
          return { nome, path: a.file.path, size: a.file.size, crc32: a.file.crc32! };
        });
        // checked before packing: the packed batch must fit the upload limit
        const tamanho = tamanhoZipArmazenado(entradas);
        if (tamanho > Math.min(limits.maxUploadBytes, ZIP_MAX_BYTES)) {
          return formulario(req, reply, v, `Nada foi gravado: os arquivos juntos passam do limite de envio de ${formatBytes(limits.maxUploadBytes)}; envie-os em partes.`, 413);
        }
        const zip = await zipArmazenadoArquivo(entradas, dir.file('.zip'));
        for (const a of arquivos) await rm(a.file.path, { force: true });
        if (campos.acao === 'previa') return previa(req, reply, v, zip);
        let recibo;
        try {
          ({ recibo } = await receberUpload(app.ctx, `importacao-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.zip`, zip,
            { uploader: { id: uploaderId, nome: uploaderNome }, limits, tmp: dir }));
        } catch (err) {
          if (err instanceof HttpProblem && err.status < 500 && err.status !== 503) return formulario(req, reply, v, `Nada foi gravado: ${err.message}`, err.status);
          if (err instanceof HttpProblem && err.status >= 500) return formulario(req, reply, v, `${err.message}.`, err.status);
          throw err;
        }
        req.log.info({ conjuntoId: recibo.conjuntoId, uploaderId, arquivos: entradas.length }, 'importação manual recebida');
        return reply.redirect(`${base(req)}/conjunto/${recibo.conjuntoId}?k=${encodeURIComponent(req.query.k ?? '')}&t=${Date.now()}`, 303);
      } finally {
        await dir.remove();
      }
    });

    // the result of one import (a conjunto); /lote/ is the address of pages sent before the rename
    const resultado = async (req: FastifyRequest<{ Params: { id: string }; Querystring: { k?: string; t?: string } }>, reply: FastifyReply) => {
      const recusa = exigirToken(req, reply);
      if (recusa) return recusa;
      if (!UUID_EXATO.test(req.params.id)) throw new HttpProblem(404, 'Não encontrado', 'importação não encontrada');
      const conjunto = await db.selectOne('xls_conjunto', { id: req.params.id }, { columns: ['id', 'uploader_id', 'uploader_nome', 'recebido_em'] }).run(app.ctx.pool);
      if (!conjunto) throw new HttpProblem(404, 'Não encontrado', 'importação não encontrada');
      const res = await resultados(app, conjunto.id);
      const pendentes = res.filter((r) => r.p && (r.p.status === 'PENDENTE' || r.p.status === 'PROCESSANDO')).length;
      const inicio = Number(req.query.t);
      const decorrido = Number.isFinite(inicio) ? (Date.now() - inicio) / 1000 : Number.POSITIVE_INFINITY;
      const esperando = pendentes > 0 && decorrido < app.ctx.config.telas.importarEsperaSegundos;
      return renderPagina(req, reply, 'importar/resultado', {
        titulo: esperando ? 'Importando…' : pendentes > 0 ? 'Importação: ainda processando' : 'Resultado da importação',
        semNavegacao: true, refresh: esperando ? 1 : pendentes > 0 ? 5 : undefined,
      }, {
        conjunto, res, pendentes, esperando, total: res.length, concluidos: res.length - pendentes, w: palavras,
        rodando: res.filter((r) => r.p && (r.p.status === 'PENDENTE' || r.p.status === 'PROCESSANDO')),
        resumo: palavras.resumoConjunto(res.map((r) => ({ entrada: r.entrada, status: r.p?.status ?? null }))),
        novo: `${base(req)}?k=${encodeURIComponent(req.query.k ?? '')}`,
      });
    };
    app.get(`${path}/conjunto/:id`, resultado);
    app.get(`${path}/lote/:id`, resultado);
  }
}
