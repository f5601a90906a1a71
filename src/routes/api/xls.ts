/** POST /api/xls/processar: one .zip (a batch) or one .xlsx (a loose file), multipart part `arquivo`. */
import type { FastifyInstance } from 'fastify';
import multipart, { type MultipartFile } from '@fastify/multipart';
import { HttpProblem } from '../../errors.js';
import { arr, nullable, obj, str, uuid, int } from '../../schemas.js';
import { receberUpload } from '../../xls/intake.js';

export const reciboSchema = obj({
  conjuntoId: nullable(uuid()),
  total: int(),
  itens: arr(obj({ arquivo: str(), processamentoId: nullable(uuid()), status: str(), motivo: nullable(str()) })),
});

/**
 * The file part in one buffer. With the request's Content-Length as an upper bound, chunks
 * are copied into one allocation as they arrive (a 100 MB file costs 100 MB, not the 200 MB
 * of collecting and concatenating); otherwise multipart's own toBuffer().
 */
async function readPart(part: MultipartFile, contentLength: number, maxBytes: number): Promise<Buffer> {
  if (contentLength <= 0 || contentLength > maxBytes + 1024 * 1024) return part.toBuffer();
  const out = Buffer.allocUnsafe(contentLength);
  let at = 0;
  for await (const chunk of part.file as AsyncIterable<Buffer>) {
    if (at + chunk.length > out.length) throw new HttpProblem(400, 'Requisição inválida', 'o corpo é maior que o Content-Length declarado');
    chunk.copy(out, at);
    at += chunk.length;
  }
  if (part.file.truncated) {
    throw new HttpProblem(413, 'Conteúdo grande demais', `o arquivo passa do limite de ${maxBytes} bytes`);
  }
  return out.subarray(0, at);
}

export default async function xlsRoutes(app: FastifyInstance) {
  const maxBytes = app.ctx.config.xls.limits.maxUploadBytes;
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 5, parts: 6 } });

  app.post('/xls/processar', { schema: { response: { 200: reciboSchema, 202: reciboSchema } } }, async (req, reply) => {
    if (!req.isMultipart()) {
      throw new HttpProblem(415, 'Tipo de conteúdo não suportado', 'envie multipart/form-data com o arquivo no campo "arquivo" (.zip ou .xlsx)');
    }
    const part = await req.file();
    if (!part || part.fieldname !== 'arquivo') {
      throw new HttpProblem(400, 'Requisição inválida', 'o arquivo deve vir no campo "arquivo" do formulário (.zip ou .xlsx)', undefined, { campo: 'arquivo' });
    }
    const bytes = await readPart(part, Number(req.headers['content-length']) || 0, maxBytes);
    if (bytes.length === 0) throw new HttpProblem(400, 'Requisição inválida', 'o arquivo enviado está vazio', undefined, { campo: 'arquivo' });
    const { recibo, enfileirados } = await receberUpload(app.ctx, part.filename || 'arquivo', bytes, { limits: app.ctx.config.xls.limits });
    req.log.info({ conjuntoId: recibo.conjuntoId, total: recibo.total, enfileirados }, 'upload recebido');
    return reply.code(enfileirados > 0 ? 202 : 200).send(recibo);
  });
}
