/**
 * The per-type reader engine. A type is described declaratively (types below): which tabs,
 * which headers map to which fields with which parser, which cells hold parameters. The
 * engine does the rest, the same for every type: one streaming pass over the needed tabs,
 * header row search, skipping empty and `Total` rows, cell parsing, row errors.
 */
import { INVALID, type CellParser, type ParseContext, displayValue, isEmptyValue, unwrap } from '../cells.js';
import { WorkbookError } from '../errors.js';
import { HEADER_SCAN_ROWS, forEachCell, hasAll, locate, normalizeHeader, rowTexts, snakeCase } from '../headers.js';
import { MAX_ROW_ERRORS, type RowError, type StagingRow, type TipoPlanilha, type TypeReader } from '../types.js';
import type { SheetInfo, SheetPass, SheetRow, Workbook } from '../workbook.js';

export interface ColumnSpec {
  /** Header text as formats.md writes it. */
  header: string;
  /** Field (staging column); default: snakeCase(header). */
  field?: string;
  parse: CellParser;
  /** An empty cell makes the row invalid (natural-key parts, scope dates). */
  required?: boolean;
  /** The header may be absent from the sheet (the field is then null). */
  optional?: boolean;
  /**
   * Most characters the value may have (the width of its column in the database). A longer
   * value is a row error instead of a value the database would cut (a cut key or code
   * names another record). Leave it out for free text (descriptions, names).
   */
  maxLength?: number;
}

export interface TableSpec {
  staging: string;
  columns: ColumnSpec[];
}

export interface ParamSpec {
  /** Tab holding the parameters. */
  sheet: string;
  /** field → cell address (`E1`) and the pt-BR name used in messages. */
  cells: Record<string, { address: string; label: string; parse: CellParser }>;
  /** Extra check over the parsed values; returns a pt-BR reason or null. */
  check?: (values: Record<string, string>) => string | null;
}

export interface TypeSpec {
  tipo: TipoPlanilha;
  params?: ParamSpec;
  /** Named tabs, read in this order … */
  tabs?: Array<TableSpec & { sheet: string }>;
  /** … or every sheet whose first 20 rows hold the table's required headers. */
  anySheet?: TableSpec;
}

interface CompiledColumn { field: string; header: string; parse: CellParser; required: boolean; optional: boolean; norm: string; maxLength: number }

function compile(table: TableSpec): CompiledColumn[] {
  return table.columns.map((c) => ({
    field: c.field ?? snakeCase(c.header),
    header: c.header,
    parse: c.parse,
    required: c.required ?? false,
    optional: c.optional ?? false,
    norm: normalizeHeader(c.header),
    maxLength: c.maxLength ?? Infinity,
  }));
}

function decodeAddress(address: string): { row: number; col: number } {
  const m = /^([A-Z]+)(\d+)$/.exec(address);
  if (!m) throw new Error(`endereço inválido: ${address}`);
  let col = 0;
  for (const ch of m[1]!) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { row: Number(m[2]), col };
}

const TOTAL = /^total/i;

/** Empty row, or a row whose first non-empty cell starts with `Total`. */
export function isSkippedRow(row: SheetRow): boolean {
  let skipped = true;
  forEachCell(row.values, (raw) => {
    if (isEmptyValue(raw)) return false;
    const v = unwrap(raw);
    skipped = typeof v === 'string' && TOTAL.test(v.trim());
    return true;
  });
  return skipped;
}

function quote(s: string): string {
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

class SpecReader implements TypeReader {
  private readonly ctx: ParseContext;
  private readonly errs: RowError[] = [];
  private rejected = 0;
  private started: Promise<void> | null = null;
  private metaValues: Record<string, string | null> = {};
  private pass: AsyncGenerator<SheetPass> | null = null;
  private consumed = false;

  constructor(private readonly wb: Workbook, private readonly spec: TypeSpec) {
    this.ctx = { date1904: wb.date1904 };
  }

  meta(): Promise<Record<string, string | null>> {
    this.started ??= this.start();
    return this.started.then(() => ({ ...this.metaValues }));
  }

  errors(): RowError[] { return this.errs; }
  rejectedRows(): number { return this.rejected; }

  async close(): Promise<void> {
    const p = this.pass;
    this.pass = null;
    await p?.return(undefined);
  }

  private sheetNamed(name: string): SheetInfo {
    const s = this.wb.sheet(name);
    if (!s) throw new WorkbookError(`${this.spec.tipo}: aba '${name}' ausente`);
    if (s.kind !== 'worksheet') throw new WorkbookError(`${this.spec.tipo}: a aba '${name}' não é uma planilha de dados`);
    return s;
  }

  private async dataSheets(): Promise<Array<{ sheet: SheetInfo; table: TableSpec }>> {
    if (this.spec.tabs) return this.spec.tabs.map((t) => ({ sheet: this.sheetNamed(t.sheet), table: t }));
    const table = this.spec.anySheet!;
    const required = compile(table).filter((c) => !c.optional).map((c) => c.norm);
    const out: Array<{ sheet: SheetInfo; table: TableSpec }> = [];
    for (const sheet of this.wb.sheets) {
      if (sheet.kind !== 'worksheet') continue;
      const head = await this.wb.headerRows(sheet);
      if (head.some((r) => hasAll(r.texts, required))) out.push({ sheet, table });
    }
    if (out.length === 0) {
      throw new WorkbookError(`${this.spec.tipo}: nenhuma aba tem o cabeçalho esperado (${table.columns.filter((c) => !c.optional).map((c) => c.header).join(', ')})`);
    }
    return out;
  }

  private plan: Array<{ sheet: SheetInfo; table: TableSpec }> = [];

  private async start(): Promise<void> {
    const params = this.spec.params;
    const paramSheet = params ? this.sheetNamed(params.sheet) : null;
    this.plan = await this.dataSheets();
    if (!params) return;
    // The parameters get a pass of their own, finished before meta() resolves: a pass left
    // waiting at a sheet boundary while the caller does other work (opening a transaction,
    // creating the staging tables) would lose the next sheet's entry in the zip stream.
    const pass = this.wb.pass([paramSheet!]);
    try {
      const first = await pass.next();
      if (first.done) throw new WorkbookError(`${this.spec.tipo}: aba '${params.sheet}' ilegível`);
      const wanted = Object.entries(params.cells).map(([field, c]) => ({ field, ...c, ...decodeAddress(c.address) }));
      const raw = new Map<string, unknown>();
      for await (const batch of first.value.batches) {
        for (const row of batch) {
          for (const w of wanted) if (w.row === row.number) raw.set(w.field, row.values[w.col - 1]);
        }
      }
      const problems: string[] = [];
      const values: Record<string, string> = {};
      for (const w of wanted) {
        const v = raw.get(w.field);
        const p = w.parse(v, this.ctx);
        if (p === null) problems.push(`${w.label} ausente (célula ${w.address})`);
        else if (p === INVALID) problems.push(`${w.label} inválido na célula ${w.address}: '${quote(displayValue(v))}'`);
        else values[w.field] = p;
      }
      const extra = problems.length === 0 ? params.check?.(values) ?? null : null;
      if (extra) problems.push(extra);
      if (problems.length > 0) throw new WorkbookError(`${this.spec.tipo}: aba '${params.sheet}': ${problems.join('; ')}`);
      this.metaValues = values;
    } finally {
      await pass.return(undefined);
    }
  }

  /**
   * The rows, as a hand-written async iterator over per-chunk batches: one promise per row
   * instead of an async generator's chain (the contract's shape, without its cost).
   */
  rows(): AsyncIterable<StagingRow> {
    if (this.consumed) throw new Error('TypeReader.rows() can be iterated once');
    this.consumed = true;
    const batches = this.stagingBatches();
    let buf: StagingRow[] = [];
    let i = 0;
    const iterator: AsyncIterator<StagingRow> = {
      next(): Promise<IteratorResult<StagingRow>> {
        if (i < buf.length) return Promise.resolve({ value: buf[i++]!, done: false });
        return batches.next().then((r): IteratorResult<StagingRow> => {
          if (r.done) return { value: undefined, done: true };
          buf = r.value;
          i = 1;
          return { value: buf[0]!, done: false };
        });
      },
      async return(): Promise<IteratorResult<StagingRow>> {
        buf = [];
        await batches.return(undefined);
        return { value: undefined, done: true };
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  /** Non-empty batches of staging rows, tab after tab, in one pass. */
  private async *stagingBatches(): AsyncGenerator<StagingRow[]> {
    await this.meta();
    // One pass per data sheet, opened when the caller pulls its first row. exceljs' reader
    // loses the next sheet's zip entry when the consumer pauses (a COPY applying backpressure,
    // a transaction being opened) while the pass sits between sheets; a pass holding a
    // single sheet has no "between". The canonical repack copies raw entries, so the only
    // repeated cost is the shared-strings table.
    try {
      for (const { sheet, table } of this.plan) {
        const pass = this.wb.pass([sheet]);
        this.pass = pass;
        const next = await pass.next();
        if (next.done) throw new WorkbookError(`${this.spec.tipo}: aba '${sheet.name}' ilegível`);
        const reader = new TableReader(this.spec.tipo, next.value.sheet, table, this.ctx, this);
        for await (const batch of next.value.batches) {
          const out = reader.process(batch);
          if (out.length > 0) yield out;
        }
        reader.finish();
        await this.close();
      }
    } finally {
      await this.close();
    }
  }

  /** Records an invalid field (the row is skipped by the caller). */
  fail(linha: number, campo: string, valor: string, firstOfRow: boolean, aba: string, staging: string): RowError | null {
    if (firstOfRow) this.rejected++;
    if (this.errs.length >= MAX_ROW_ERRORS) return null;
    const e: RowError = { linha, campo, valor, mensagem: `linha ${linha}: ${campo} '${quote(valor)}' inválido`, aba, staging };
    this.errs.push(e);
    return e;
  }
}

interface FailSink { fail(linha: number, campo: string, valor: string, firstOfRow: boolean, aba: string, staging: string): RowError | null }

/** One tab of a type: finds the header, then turns rows into staging rows. */
class TableReader {
  private readonly columns: CompiledColumn[];
  private readonly requiredNorms: string[];
  private cols: Array<number | undefined> | null = null;
  private best: { number: number; found: number; texts: string[] } | null = null;

  constructor(
    private readonly tipo: string,
    private readonly sheet: SheetInfo,
    private readonly table: TableSpec,
    private readonly ctx: ParseContext,
    private readonly sink: FailSink,
  ) {
    this.columns = compile(table);
    this.requiredNorms = this.columns.filter((c) => !c.optional).map((c) => c.norm);
  }

  process(batch: readonly SheetRow[]): StagingRow[] {
    const out: StagingRow[] = [];
    const columns = this.columns;
    const n = columns.length;
    const staging = this.table.staging;
    const ctx = this.ctx;
    for (let r = 0; r < batch.length; r++) {
      const row = batch[r]!;
      const cols = this.cols;
      if (cols === null) {
        this.scanHeader(row);
        continue;
      }
      if (isSkippedRow(row)) continue;
      const cells = row.values;
      const values: Record<string, string | null> = {};
      let bad = false;
      let first: RowError | null = null;
      for (let i = 0; i < n; i++) {
        const col = columns[i]!;
        const at = cols[i];
        const raw = at === undefined ? undefined : cells[at - 1];
        const p = col.parse(raw, ctx);
        if (p === INVALID || (p === null && col.required) || (p !== null && p.length > col.maxLength)) {
          const e = this.sink.fail(row.number, col.field, displayValue(raw), !bad, this.sheet.name, staging);
          if (!bad) first = e;
          bad = true;
          continue;
        }
        values[col.field] = p;
      }
      if (!bad) out.push({ staging, linha: row.number, values });
      else if (first) first.valores = values; // the readable fields: the merge may still protect the row's key
    }
    return out;
  }

  private scanHeader(row: SheetRow): void {
    if (row.number > HEADER_SCAN_ROWS) this.notFound();
    const texts = rowTexts(row);
    if (hasAll(texts, this.requiredNorms)) {
      this.cols = locate(texts, this.columns.map((c) => c.norm));
      return;
    }
    const found = this.requiredNorms.filter((h) => texts.includes(h)).length;
    if (found > 0 && (!this.best || found > this.best.found)) this.best = { number: row.number, found, texts };
  }

  /** At the end of the tab: the header must have been found. */
  finish(): void {
    if (this.cols === null) this.notFound();
  }

  private notFound(): never {
    const required = this.columns.filter((c) => !c.optional);
    let detail = `faltam: ${required.map((c) => c.header).join(', ')}`;
    if (this.best) {
      const texts = this.best.texts;
      detail = `a linha ${this.best.number} parece o cabeçalho, mas faltam: ${required.filter((c) => !texts.includes(c.norm)).map((c) => c.header).join(', ')}`;
    }
    throw new WorkbookError(`${this.tipo}: aba '${this.sheet.name}': cabeçalho não encontrado nas ${HEADER_SCAN_ROWS} primeiras linhas (${detail})`);
  }
}

export function createReader(wb: Workbook, spec: TypeSpec): TypeReader {
  return new SpecReader(wb, spec);
}
