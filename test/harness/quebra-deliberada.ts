/**
 * A deliberately broken code path, preloaded into a service process by the test of the
 * rejection net (`node --import tsx --import ./test/harness/quebra-deliberada.ts src/main.ts`):
 * a read of an upload whose bytes carry QUEBRA_DELIBERADA starts a promise that rejects with
 * nobody to handle it — the class of bug that, in src/xlsx/zip.ts, once took the whole
 * service down — and never answers the read. Test code only: nothing in src/ knows of it.
 */
import { FileSource } from '../../src/xlsx/source.js';

export const QUEBRA_DELIBERADA = 'QUEBRA-DELIBERADA-7f3a';
const marca = Buffer.from(QUEBRA_DELIBERADA);

const read = FileSource.prototype.read;
FileSource.prototype.read = async function (this: FileSource, offset: number, length: number): Promise<Buffer> {
  const b = await read.call(this, offset, length);
  if (b.includes(marca)) {
    void Promise.resolve().then(() => { throw new Error('quebra deliberada: rejeição que ninguém trata'); });
    return new Promise<Buffer>(() => undefined);
  }
  return b;
};
