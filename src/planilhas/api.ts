/**
 * POST /api/xls/processar: one .zip (a batch) or one loose file, multipart part `arquivo`.
 * The part is streamed to a temporary file while it is hashed and counted (never held whole
 * in memory); the receipt then works from that file. Malformed multipart (no boundary, cut
 * short, a NUL in the file name) is a 400; a second file part is a 400 naming the rule.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { HttpProblem } from '../errors.js';
import { anyObject, arr, nullable, num, obj, str, uuid, int } from '../schemas.js';
import { receberUpload } from './recebimento.js';
import { simularUpload } from './simular.js';
import { type TempFile, TempFileSourceError, TempFileTooLarge, TempDir, writeTempFile } from './temp-file.js';
import { limparNome } from './nomes.js';
import { formatBytes } from '../xlsx/limits.js';
import { xlsUploadRecusar } from './db.js';

export const reciboSchema = obj({
  conjuntoId: nullable(uuid()),
  total: int(),
  itens: arr(obj({ arquivo: str(), processamentoId: nullable(uuid()), status: str(), motivo: nullable(str()) })),
});

const linhaRejeitadaSchema = obj({ aba: nullable(str()), linha: int(), campo: nullable(str()), valor: nullable(str()), mensagem: str() });
export const simulacaoSchema = obj({
  total: int(),
  arquivos: arr(obj({
    arquivo: str(), status: str({ enum: ['SIMULADO', 'RETIDO', 'ERRO', 'IGNORADO', 'DUPLICADO'] }), tipo: nullable(str()),
    periodoInicio: nullable(str()), periodoFim: nullable(str()), posicao: nullable(str()),
    linhasLidas: int(), linhasRejeitadas: arr(linhaRejeitadaSchema),
    tabelas: { type: 'object', additionalProperties: obj({
      inseridas: int(), alteradas: int(), removidas: int(),
      exemplos: obj({ INSERIDA: arr(anyObject()), ALTERADA: arr(anyObject()), REMOVIDA: arr(anyObject()) }),
    }) },
    retencao: arr(obj({ tabela: str(), aba: nullable(str()), remover: int(), escopo: int(), percentual: num() })),
    motivo: nullable(str()),
  })),
});

const malformado = (motivo: string) =>
  new HttpProblem(400, 'Requisição inválida', `multipart/form-data malformado: ${motivo}`, undefined, { campo: 'arquivo' });

/** An error of the multipart parser (busboy, @fastify/multipart) as a problem: 413 for limits, else 400. */
function parserProblem(err: unknown, maxBytes: number, req?: FastifyRequest): HttpProblem {
  if (err instanceof HttpProblem) return err;
  // the arrival limits cut the body (web/prazo-corpo.ts): the 408 was answered already
  if (req?.corpoExpirado) return new HttpProblem(408, 'Tempo esgotado', req.corpoExpirado);
  const e = err as { statusCode?: number; code?: string; message?: string };
  if (e.code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(maxBytes);
  if (e.statusCode === 413) return new HttpProblem(413, 'Conteúdo grande demais', `o formulário passa dos limites aceitos (${e.message ?? 'limite'})`);
  return malformado(e.message ?? String(err));
}

const tooLarge = (maxBytes: number) =>
  new HttpProblem(413, 'Conteúdo grande demais', `o arquivo passa do limite de envio de ${formatBytes(maxBytes)}`);

/**
 * Writes the one `arquivo` part of the form into `dir`. Reads the whole form: a second file
 * part (a second `arquivo` or any other) is refused, as is a file in another field.
 */
async function arquivoParaTempFile(req: FastifyRequest, dir: TempDir, maxBytes: number, onNome: (nome: string) => void): Promise<{ filename: string; file: TempFile }> {
  let found: { filename: string; file: TempFile } | null = null;
  const parts = req.parts();
  for (;;) {
    let next: IteratorResult<Awaited<ReturnType<typeof parts.next>>['value']>;
    try {
      next = await parts.next();
    } catch (err) {
      throw parserProblem(err, maxBytes, req);
    }
    if (next.done) break;
    const part = next.value;
    if (part.type !== 'file') continue; // other form fields are ignored
    if (part.fieldname !== 'arquivo') {
      part.file.resume();
      throw new HttpProblem(400, 'Requisição inválida', `o arquivo deve vir no campo "arquivo" do formulário (veio em "${limparNome(part.fieldname)}")`, undefined, { campo: 'arquivo' });
    }
    if (found) {
      part.file.resume();
      throw new HttpProblem(400, 'Requisição inválida',
        'envie um único arquivo por requisição no campo "arquivo" (várias planilhas vão juntas num .zip); nada foi gravado',
        undefined, { campo: 'arquivo', regra: 'um_arquivo_por_envio' });
    }
    const raw = part.filename ?? '';
    if (raw.includes('\u0000')) {
      part.file.resume();
      throw malformado('o nome do arquivo contém o caractere nulo');
    }
    onNome(limparNome(raw.split(/[\\/]/).pop() ?? '') || 'arquivo');
    try {
      const file = await writeTempFile(part.file as AsyncIterable<Buffer>, dir.file('.upload'), maxBytes);
      if (part.file.truncated) throw tooLarge(maxBytes);
      found = { filename: limparNome(raw.split(/[\\/]/).pop() ?? '') || 'arquivo', file };
    } catch (err) {
      if (err instanceof TempFileTooLarge) throw tooLarge(maxBytes);
      if (err instanceof TempFileSourceError) throw parserProblem(err.cause, maxBytes, req);
      throw err;
    }
  }
  if (!found) {
    throw new HttpProblem(400, 'Requisição inválida', 'o arquivo deve vir no campo "arquivo" do formulário (.zip, .xlsx, .xls ou .ods)', undefined, { campo: 'arquivo' });
  }
  return found;
}

export default async function planilhasRoutes(app: FastifyInstance) {
  const maxBytes = app.ctx.config.xls.limits.maxUploadBytes;
  // files: 2, so that a second file reaches the route and gets the 400 of its rule
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 2, fields: 5, parts: 7, headerPairs: 20 } });

  /** The one `arquivo` part of the form written to a temporary directory, for `fn`; the directory goes after. */
  async function comUpload<T>(req: FastifyRequest, fn: (filename: string, file: TempFile, dir: TempDir) => Promise<T>,
    visto: (nome: string | null, tamanho: number | null) => void = () => undefined): Promise<T> {
    if (!req.isMultipart()) {
      throw new HttpProblem(415, 'Tipo de conteúdo não suportado', 'envie multipart/form-data com o arquivo no campo "arquivo" (.zip, .xlsx, .xls ou .ods)');
    }
    const dir = await TempDir.create('bi-upload-');
    try {
      const { filename, file } = await arquivoParaTempFile(req, dir, maxBytes, (n) => visto(n, null));
      visto(filename, file.size);
      if (file.size === 0) throw new HttpProblem(400, 'Requisição inválida', 'o arquivo enviado está vazio', undefined, { campo: 'arquivo' });
      return await fn(filename, file, dir);
    } finally {
      await dir.remove();
    }
  }

  app.post('/xls/processar', { schema: { response: { 200: reciboSchema, 202: reciboSchema } } }, async (req, reply) => {
    let nome: string | null = null;
    let tamanho: number | null = null;
    try {
      return await comUpload(req, async (filename, file, dir) => {
        const { recibo, enfileirados } = await receberUpload(app.ctx, filename, file, { limits: app.ctx.config.xls.limits, tmp: dir });
        req.log.info({ conjuntoId: recibo.conjuntoId, total: recibo.total, enfileirados }, 'upload recebido');
        return reply.code(enfileirados > 0 ? 202 : 200).send(recibo);
      }, (n, t) => { nome = n ?? nome; tamanho = t ?? tamanho; });
    } catch (err) {
      // a refusal leaves a trace staff can see (/processamentos/recusas): who, when, name, why; never the bytes
      if (err instanceof HttpProblem && err.status >= 400 && err.status < 500) {
        await xlsUploadRecusar(app.ctx.pool, {
          origem: 'api', arquivo: nome, tamanhoBytes: tamanho, clienteIp: req.ip, statusHttp: err.status, codigo: err.code ?? null, motivo: err.message,
        }).catch((e: unknown) => req.log.warn({ err: e }, 'recusa de envio não registrada'));
      }
      throw err;
    }
  });

  // the preview: same input, limits and refusals; stores nothing, not even a refusal (src/planilhas/simular.ts)
  app.post('/xls/simular', { schema: { response: { 200: simulacaoSchema } } }, async (req) =>
    comUpload(req, (filename, file, dir) => simularUpload(app.ctx, filename, file, { limits: app.ctx.config.xls.limits, tmp: dir })));
}
