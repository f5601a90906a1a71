/**
 * The shared strings table (`xl/sharedStrings.xml`), read once per workbook and kept
 * compact: the strings live outside the JS heap as UTF-8 bytes plus offsets, and get(i)
 * decodes on access. A million distinct strings cost their bytes instead of a million heap
 * strings, which keeps the heap (and its GC limit) small. Each string keeps at most
 * maxChars characters (scanner.ts); a longer one is returned as TruncatedText.
 */
import { TruncatedText } from './cells.js';
import { SharedStringsScanner } from './scanner.js';
import type { ByteSource } from './source.js';
import { type ZipEntry, entryChunks } from './zip.js';


export class CompactSharedStrings {
  private bytes = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  private starts = new Uint32Array(1 << 14);
  private count = 0;
  /** Real lengths of the strings that were cut (rare). */
  private cut: Map<number, number> | null = null;

  push(text: string, chars = text.length): void {
    if (this.count + 2 > this.starts.length) {
      const next = new Uint32Array(this.starts.length * 2);
      next.set(this.starts);
      this.starts = next;
    }
    this.starts[this.count] = this.used;
    if (text.length > 0) {
      const need = this.used + text.length * 3;
      if (need > this.bytes.length) {
        const next = Buffer.allocUnsafe(Math.max(need, this.bytes.length * 2));
        this.bytes.copy(next, 0, 0, this.used);
        this.bytes = next;
      }
      this.used += this.bytes.write(text, this.used, 'utf8');
    }
    if (chars > text.length) (this.cut ??= new Map()).set(this.count, chars);
    this.count += 1;
    this.starts[this.count] = this.used;
  }

  /** The string at `index`: text, null when empty, undefined when there is no such index. */
  get(index: number): string | TruncatedText | null | undefined {
    if (!(index >= 0 && index < this.count)) return undefined;
    const start = this.starts[index]!;
    const end = this.starts[index + 1]!;
    const text = end > start ? this.bytes.toString('utf8', start, end) : null;
    if (this.cut !== null) {
      const chars = this.cut.get(index);
      if (chars !== undefined) return new TruncatedText(text ?? '', chars);
    }
    return text;
  }

  get length(): number { return this.count; }

  /** Bytes held (for measurements). */
  get byteLength(): number { return this.bytes.length + this.starts.byteLength; }
}

/** Reads the shared strings part of `source` (streamed: never held whole). */
export async function readSharedStrings(source: ByteSource, entry: ZipEntry, maxChars: number): Promise<CompactSharedStrings> {
  const table = new CompactSharedStrings();
  const scanner = new SharedStringsScanner((text, chars) => table.push(text, chars), maxChars);
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of entryChunks(source, entry, null)) scanner.write(decoder.decode(chunk, { stream: true }));
  scanner.write(decoder.decode());
  scanner.end();
  return table;
}
