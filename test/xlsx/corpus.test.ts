// @lane unit
/**
 * Every file of the shared real-world corpus laid beside the project (CORPUS below:
 * calamine's and Apache POI's regression files, 909 of them, with two readers' cells per file),
 * read through our reader in a worker thread under the parse worker's production limits
 * (config defaults: heap, cell limit, .xls size, archive limits), the way the parse worker
 * opens a file (openWorkbook by path, detectType), every tab read whole:
 *
 * - each file opens, or is refused with a WorkbookError whose reason the corpus' container
 *   check (`reference/container.json`) or both references (each failed) confirm — or is one
 *   of the refusals listed below (KNOWN_REFUSALS), each explained;
 * - nothing crashes the worker, hangs past FILE_TIMEOUT_MS or runs out of its heap, and no raw
 *   (non-WorkbookError) error comes out;
 * - the cells equal the references' where both references agree, at least 99.9 % per format,
 *   and every file with a remaining difference is listed in KNOWN_DIFFERENCES, explained.
 *
 * Without the corpus (a clone outside this workplace) it prints one line and passes. It prints
 * the per-format table and how long it took. Nothing of the corpus is copied here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { parseThreadLimits } from '../../src/planilhas/isolated-parse.js';
import type { CorpusAnswer, CorpusCell } from './corpus-worker.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CORPUS = resolve(ROOT, '../shared/realworld');
/** A file taking longer than this (reading every tab) is a hang. */
const FILE_TIMEOUT_MS = 60_000;

/**
 * Deliberate refusals of files a reference opens (container sound): each a rule of the reader,
 * with the reason it must give and why. Counted as refused for a sound reason.
 */
const KNOWN_REFUSALS: Record<string, { motivo: RegExp; porque: string }> = {
  ...Object.fromEntries(['poi/54764.xlsx', 'poi/54764-2.xlsx', 'poi/poc-xmlbomb.xlsx', 'poi/poc-xmlbomb-empty.xlsx'].map((f) => [f, {
    motivo: /\(XML: DOCTYPE não é aceito numa planilha\)$/,
    porque: 'entity bombs (a DOCTYPE declaring entities that expand exponentially): no spreadsheet needs a DOCTYPE; openpyxl (defusedxml) refuses them too, SheetJS ignores the declarations',
  }])),
  ...Object.fromEntries(['poi/duplicate-filename.xlsx', 'poi/duplicate-filename-case-insensitive.xlsx'].map((f) => [f, {
    motivo: /^formato não suportado: entrada duplicada: /,
    porque: 'two zip entries with the same name (one differing in case): which one is the sheet is ambiguous; a zip like that is refused (docs/xlsx.md, "Decisions")',
  }])),
  'poi/poc-shared-strings.xlsx': {
    motivo: /\(linha '0' fora dos limites da planilha/,
    porque: 'a proof-of-concept of huge shared strings, its row numbered 0 (rows start at 1): openpyxl puts it at row -1, SheetJS at row 1 — outside the sheet, refused',
  },
};

/**
 * Files whose cells still differ from what both references agree on, each with why. The test
 * fails on a difference in a file not listed here, and on a listed file that no longer differs.
 */
const KNOWN_DIFFERENCES: Record<string, string> = {
  'poi/52575_main.xlsx': 'A2 is a formula (an external link) whose cached text LibreOffice wrote as <v> of a t="inlineStr" cell; both references drop it, we keep "POI rocks!", the value the cell shows',
};


/** A reference's cell: our kinds, or 'S' for a long text given by its summary. */
type RefCell = [number, number, CorpusCell[2] | 'S', unknown];
interface Reference { reader: string; ok: boolean; error?: string; sheets?: Array<{ name: string; cells: RefCell[] }> }
type Outcome = 'aberto' | 'recusado-ok' | 'recusado-nao' | 'quebrou';
interface Row { files: number; aberto: number; 'recusado-ok': number; 'recusado-nao': number; quebrou: number; equal: number; compared: number }

function reference(kind: 'py' | 'sheetjs', name: string): Reference | null {
  const p = join(CORPUS, 'reference', kind, `${name}.json.gz`);
  return existsSync(p) ? (JSON.parse(gunzipSync(readFileSync(p)).toString('utf8')) as Reference) : null;
}

/** The references' long-text summary: first and last characters and the length. */
interface Summary { h: string; t: string; n: number }

function same(a: RefCell, b: RefCell): boolean {
  if (a[2] !== b[2]) return false;
  const x = a[3], y = b[3];
  // a NaN in a NUMBER record: the references write it as the text 'NaN'
  if (typeof x === 'number' && Number.isNaN(x)) return y === 'NaN' || (typeof y === 'number' && Number.isNaN(y));
  if (typeof x === 'number' && typeof y === 'number') {
    return a[2] === 'd' ? Math.abs(x - y) < 1e-7 : x === y || Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
  }
  if (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null) return JSON.stringify(x) === JSON.stringify(y);
  return x === y;
}

/**
 * Our cell against a reference cell (a long text is compared with its summary, 'S'). A text
 * we cut at the cell limit (TruncatedText: `chars` its real length) is equal when it is the
 * reference's beginning and the real lengths agree: the reader keeps Excel's cell limit.
 */
function ours(o: CorpusCell | undefined, chars: number | undefined, r: RefCell): boolean {
  if (!o) return false;
  if (r[2] === 'S' || (chars !== undefined && r[2] === 's')) {
    const s = r[2] === 'S' ? (r[3] as Summary) : { h: r[3] as string, t: '', n: (r[3] as string).length };
    const text = o[3] as string;
    return o[2] === 's' && (chars !== undefined ? s.h.startsWith(text) || text.startsWith(s.h) : text.startsWith(s.h))
      && (chars ?? text.length) === s.n && (chars !== undefined || text.endsWith(s.t));
  }
  return same(o, r);
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 100 ? `${s.slice(0, 100)}…` : s;
}

function byCell<T extends RefCell>(cells: T[]): Map<string, T> {
  return new Map(cells.map((c) => [`${c[0]},${c[1]}`, c]));
}

/** How many of the cells both references agree on we read alike, and where not (a few). */
function compare(answer: Extract<CorpusAnswer, { ok: true }>, py: Reference | null, sj: Reference | null): { equal: number; compared: number; examples: string[] } {
  let equal = 0, compared = 0;
  const examples: string[] = [];
  if (!py?.ok || !sj?.ok) return { equal, compared, examples };
  for (const ps of py.sheets ?? []) {
    const ss = sj.sheets?.find((s) => s.name === ps.name);
    if (!ss) continue;
    const mine = answer.sheets.find((s) => s.name === ps.name) ?? answer.sheets.find((s) => s.name.trim() === ps.name.trim());
    const o = byCell(mine?.cells ?? []);
    const chars = new Map((mine?.truncated ?? []).map(([r, c, n]) => [`${r},${c}`, n]));
    const p = byCell(ps.cells), s = byCell(ss.cells);
    for (const [k, pc] of p) {
      const sc = s.get(k);
      if (!sc || !same(pc, sc)) continue; // the references disagree: either may be right
      compared++;
      if (ours(o.get(k), chars.get(k), pc)) equal++;
      else if (examples.length < 3) examples.push(`${ps.name}!${k}: ${short(o.get(k)?.slice(2) ?? null)} ≠ ${short(pc.slice(2))}`);
    }
    // a cell we give where neither reference has one
    for (const [k, oc] of o) {
      if (p.has(k) || s.has(k)) continue;
      compared++;
      if (examples.length < 3) examples.push(`${ps.name}!${k}: ${short(oc.slice(2))} a mais`);
    }
  }
  return { equal, compared, examples };
}

/** A worker under the parse worker's production resourceLimits, restarted when it dies. */
class CorpusReader {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private pending: { resolve: (a: CorpusAnswer | { crashed: string }) => void } | null = null;

  constructor(private readonly limits: object, private readonly heapMb: number) {}

  private start(): Promise<void> {
    const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
    const tsx = pathToFileURL(join(dirname(pkg), 'dist', 'esm', 'api', 'index.mjs')).href;
    const entry = pathToFileURL(join(import.meta.dirname, 'corpus-worker.ts')).href;
    const w = new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`, {
      eval: true, workerData: this.limits, resourceLimits: parseThreadLimits(this.heapMb), stdout: true, stderr: true,
    });
    this.worker = w;
    const died = (why: string) => {
      if (this.worker === w) { this.worker = null; this.ready = null; }
      const p = this.pending;
      this.pending = null;
      p?.resolve({ crashed: why });
    };
    return new Promise<void>((resolveReady, reject) => {
      w.on('message', (m: CorpusAnswer | { ready: true }) => {
        if ('ready' in m) { resolveReady(); return; }
        const p = this.pending;
        this.pending = null;
        p?.resolve(m);
      });
      w.on('error', (err) => { reject(err); died(`${(err as NodeJS.ErrnoException).code ?? err.name}: ${err.message.split('\n')[0]}`); });
      w.on('exit', (code) => { reject(new Error(`worker exit ${code}`)); died(`a linha de execução terminou (código ${code})`); });
    });
  }

  async read(file: string): Promise<CorpusAnswer | { crashed: string }> {
    this.ready ??= this.start();
    await this.ready;
    const w = this.worker!;
    let timer: NodeJS.Timeout | undefined;
    const answer = await new Promise<CorpusAnswer | { crashed: string }>((res) => {
      this.pending = { resolve: res };
      timer = setTimeout(() => {
        this.pending = null;
        res({ crashed: `mais de ${FILE_TIMEOUT_MS} ms` });
        void w.terminate();
      }, FILE_TIMEOUT_MS);
      w.postMessage({ file });
    });
    clearTimeout(timer);
    return answer;
  }

  async close(): Promise<void> { await this.worker?.terminate(); }
}

function formatOf(name: string): string {
  return extname(name).slice(1).toLowerCase();
}

it('every file of the shared corpus opens or is refused soundly; cells equal the references', async () => {
  if (!existsSync(join(CORPUS, 'reference', 'container.json'))) {
    console.log(`corpus: ${CORPUS} ausente; nada a verificar (o corpus fica fora do repositório)`);
    return;
  }
  const t0 = performance.now();
  const cpu0 = process.cpuUsage(); // the process's CPU: this thread and the reader's
  const { config } = loadConfig({ DATABASE_URL: 'postgres://corpus@localhost/corpus', BI_COMERCIAL_XLS_API_TOKEN: 'corpus', S3_FILE_STORAGE: 'PSQL' });
  const limits = { ...config.xls.limits, maxCellChars: config.xls.maxCellChars, maxBiffBytes: config.xls.maxBiffBytes };
  const reader = new CorpusReader(limits, config.xls.leituraHeapMb);
  const container = JSON.parse(readFileSync(join(CORPUS, 'reference', 'container.json'), 'utf8')) as Record<string, string>;
  const names = Object.keys(container).sort();
  const table = new Map<string, Row>();
  const problems: string[] = [];
  const differing = new Set<string>();
  const lines: string[] = [];
  try {
    for (const name of names) {
      const fmt = formatOf(name);
      const row = table.get(fmt) ?? { files: 0, aberto: 0, 'recusado-ok': 0, 'recusado-nao': 0, quebrou: 0, equal: 0, compared: 0 };
      table.set(fmt, row);
      row.files++;
      const answer = await reader.read(join(CORPUS, 'files', name));
      const py = reference('py', name), sj = reference('sheetjs', name);
      let outcome: Outcome;
      if ('crashed' in answer) {
        outcome = 'quebrou';
        problems.push(`${name}: quebrou (${answer.crashed})`);
        lines.push(`${name}: QUEBROU ${answer.crashed}`);
      } else if (!answer.ok) {
        const known = KNOWN_REFUSALS[name];
        // sound: the container is broken, both references fail, an .xlsb (not read: refused
        // with its reason), or a deliberate refusal listed above with its reason
        const confirmed = container[name] !== 'ok' || (!py?.ok && !sj?.ok) || (fmt === 'xlsb' && /\.xlsb|protegido por senha/.test(answer.motivo))
          || (known !== undefined && known.motivo.test(answer.motivo));
        if (!answer.workbook) {
          outcome = 'quebrou';
          problems.push(`${name}: erro bruto, não um motivo para a equipe: ${answer.motivo}`);
        } else if (confirmed) {
          outcome = 'recusado-ok';
        } else {
          outcome = 'recusado-nao';
          problems.push(known
            ? `${name}: recusado por outro motivo que o conhecido: ${answer.motivo}`
            : `${name}: recusado (${answer.motivo}), mas ${[py?.ok && 'a referência Python', sj?.ok && 'o SheetJS'].filter(Boolean).join(' e ')} o abre(m)`);
        }
        lines.push(`${name}: ${outcome} ${answer.motivo}`);
      } else {
        outcome = 'aberto';
        if (KNOWN_REFUSALS[name]) problems.push(`${name}: abre; tire-o de KNOWN_REFUSALS`);
        const c = compare(answer, py, sj);
        row.equal += c.equal;
        row.compared += c.compared;
        if (c.equal < c.compared) {
          differing.add(name);
          lines.push(`${name}: ${c.compared - c.equal} de ${c.compared} células diferem: ${c.examples.join('; ')}`);
          if (!KNOWN_DIFFERENCES[name]) problems.push(`${name}: ${c.compared - c.equal} de ${c.compared} células diferem das referências (${c.examples.join('; ')})`);
        }
      }
      row[outcome]++;
    }
  } finally {
    await reader.close();
  }
  for (const name of Object.keys(KNOWN_DIFFERENCES)) {
    if (!differing.has(name)) problems.push(`${name}: já não difere; tire-o de KNOWN_DIFFERENCES`);
  }
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  const cpu = process.cpuUsage(cpu0);
  const cpuSecs = ((cpu.user + cpu.system) / 1e6).toFixed(1);
  const pct = (r: Row) => (r.compared === 0 ? '—' : `${((100 * r.equal) / r.compared).toFixed(3)} % (${r.equal}/${r.compared})`);
  const out = [
    `corpus ${basename(CORPUS)}: ${names.length} arquivos em ${secs} s (CPU ${cpuSecs} s)`,
    '| | files | opened | refused (sound) | refused (others open it) | crashed | cells equal |',
    '|---|---|---|---|---|---|---|',
    ...[...table].sort().map(([f, r]) => `| .${f} | ${r.files} | ${r.aberto} | ${r['recusado-ok']} | ${r['recusado-nao']} | ${r.quebrou} | ${pct(r)} |`),
  ];
  if (process.env.CORPUS_DETALHES) out.push(...lines);
  console.log(out.join('\n'));
  for (const [f, r] of table) {
    if (r.compared > 0) expect(r.equal / r.compared, `células iguais em .${f}`).toBeGreaterThanOrEqual(0.999);
  }
  expect(problems).toEqual([]);
}, 1_800_000);
