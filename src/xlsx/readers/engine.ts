/**
 * The per-type reader engine. A type is described declaratively (types below): which tabs,
 * which headers map to which fields with which parser, which cells hold parameters. The
 * engine does the rest, the same for every type: one streaming pass over the needed tabs,
 * header row search, skipping empty and `Total` rows, cell parsing, row errors.
 */
import { INVALID, type CellParser, type ParseContext, type TipoSql, displayValue, isEmptyValue, unwrap } from '../cells.js';
import { WorkbookError } from '../errors.js';
import { HEADER_SCAN_ROWS, forEachCell, normalizeHeader, rowTexts, snakeCase } from '../headers.js';
import { MAX_ROW_ERRORS, type RowError, type StagingRow, type TipoPlanilha, type TypeReader } from '../types.js';
import type { SheetInfo, SheetPass, SheetRow, Workbook } from '../workbook.js';

export interface ColumnSpec {
  /** Header text as docs/formatos.md writes it. */
  header: string;
  /** Other accepted header texts (`01` for `JAN`); matched like the header. */
  aliases?: string[];
  /** Field (staging column); default: snakeCase(header). */
  field?: string;
  parse: CellParser;
  /** An empty cell makes the row invalid (natural-key parts, scope dates). */
  required?: boolean;
  /** The header may be absent from the sheet (the field is then null). */
  optional?: boolean;
}

export interface TableSpec {
  staging: string;
  columns: ColumnSpec[];
  /** Groups of optional headers of which at least one per group must be present (TRR). */
  requireOneOf?: string[][];
  /** Field that receives the tab's name (trimmed), e.g. the year of a quota tab. */
  sheetField?: string;
  /**
   * One staging row per non-empty cell of these columns (a matrix stored unpivoted): the
   * row carries `key` = the column's key and `value` = the cell; the `fields` themselves are
   * not staged. A row whose cells of `fields` are all empty yields nothing. `keySql`: the key's
   * staging type (the value's is the parser's of `fields`).
   */
  unpivot?: { fields: Array<{ field: string; key: string }>; key: string; keySql: TipoSql; value: string };
}

export interface ParamSpec {
  /** Tab holding the parameters (matched like a header: case, accents, inner spaces). */
  sheet: string;
  /** field → cell address (`E1`) and the pt-BR name used in messages. */
  cells?: Record<string, { address: string; label: string; parse: CellParser }>;
  /**
   * Parameters found by looking at the tab's rows (up to `rows` of them, default all): the
   * values found (null when absent) and the pt-BR problems that refuse the file.
   */
  scan?: {
    rows?: number;
    read: (rows: readonly SheetRow[], ctx: ParseContext) => { values: Record<string, string | null>; problems: string[] };
  };
  /** The tab may be missing: its fields are then absent from meta() (the SQL side decides). */
  optional?: boolean;
  /** Extra check over the parsed values; returns a pt-BR reason or null. */
  check?: (values: Record<string, string>) => string | null;
}

export interface TypeSpec {
  tipo: TipoPlanilha;
  params?: ParamSpec | ParamSpec[];
  /** Named tabs, read in this order … */
  tabs?: Array<TableSpec & { sheet: string }>;
  /** … or every sheet whose first 20 rows hold the table's required headers … */
  anySheet?: TableSpec;
  /** … among the sheets whose (trimmed) name passes this test. */
  sheetFilter?: (name: string) => boolean;
}

interface CompiledColumn { field: string; header: string; parse: CellParser; required: boolean; optional: boolean; norms: string[] }

function compile(table: TableSpec): CompiledColumn[] {
  return table.columns.map((c) => ({
    field: c.field ?? snakeCase(c.header),
    header: c.header,
    parse: c.parse,
    required: c.required ?? false,
    optional: c.optional ?? false,
    norms: [c.header, ...(c.aliases ?? [])].map(normalizeHeader),
  }));
}

/** True when a row's texts hold every required header of the table (any alias) and one of each requireOneOf group. */
function isHeaderRow(texts: readonly string[], columns: readonly CompiledColumn[], oneOf: readonly string[][]): boolean {
  for (const c of columns) if (!c.optional && !c.norms.some((n) => texts.includes(n))) return false;
  return oneOf.every((g) => g.some((h) => texts.includes(h)));
}

/** 1-based column of each column (first alias found), or undefined. */
function locateColumns(texts: readonly string[], columns: readonly CompiledColumn[]): Array<number | undefined> {
  return columns.map((c) => {
    for (const n of c.norms) {
      const i = texts.indexOf(n);
      if (i >= 0) return i + 1;
    }
    return undefined;
  });
}

/** The required headers as docs/formatos.md writes them, for messages. */
function requiredLabels(table: TableSpec, texts?: readonly string[]): string[] {
  const cols = compile(table);
  const out = cols.filter((c) => !c.optional && !(texts && c.norms.some((n) => texts.includes(n)))).map((c) => c.header);
  for (const g of table.requireOneOf ?? []) {
    if (!(texts && g.some((h) => texts.includes(normalizeHeader(h))))) out.push(g.join(' ou '));
  }
  return out;
}

/** The sheet named `name`, compared like headers (trimmed, inner spaces collapsed, case and accents ignored). */
export function findSheet(wb: Workbook, name: string): SheetInfo | undefined {
  const exact = wb.sheet(name);
  if (exact) return exact;
  const want = normalizeHeader(name);
  return wb.sheets.find((s) => normalizeHeader(s.name) === want);
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
    const s = findSheet(this.wb, name);
    if (!s) throw new WorkbookError(`${this.spec.tipo}: aba '${name}' ausente`);
    if (s.kind !== 'worksheet') throw new WorkbookError(`${this.spec.tipo}: a aba '${name}' não é uma planilha de dados`);
    return s;
  }

  private async dataSheets(): Promise<Array<{ sheet: SheetInfo; table: TableSpec }>> {
    if (this.spec.tabs) return this.spec.tabs.map((t) => ({ sheet: this.sheetNamed(t.sheet), table: t }));
    const table = this.spec.anySheet!;
    const columns = compile(table);
    const oneOf = (table.requireOneOf ?? []).map((g) => g.map(normalizeHeader));
    const filter = this.spec.sheetFilter;
    const out: Array<{ sheet: SheetInfo; table: TableSpec }> = [];
    for (const sheet of this.wb.sheets) {
      if (sheet.kind !== 'worksheet' || (filter && !filter(sheet.name.trim()))) continue;
      const head = await this.wb.headerRows(sheet);
      if (head.some((r) => isHeaderRow(r.texts, columns, oneOf))) out.push({ sheet, table });
    }
    if (out.length === 0) {
      throw new WorkbookError(`${this.spec.tipo}: nenhuma aba tem o cabeçalho esperado (${requiredLabels(table).join(', ')})`);
    }
    return out;
  }

  private plan: Array<{ sheet: SheetInfo; table: TableSpec }> = [];

  private async start(): Promise<void> {
    const params = this.spec.params === undefined ? [] : Array.isArray(this.spec.params) ? this.spec.params : [this.spec.params];
    // the tabs first: a missing tab is the clearer reason
    const paramSheets = params.map((p) => (p.optional ? findSheet(this.wb, p.sheet) ?? null : this.sheetNamed(p.sheet)));
    this.plan = await this.dataSheets();
    const values: Record<string, string | null> = {};
    for (let i = 0; i < params.length; i++) {
      const sheet = paramSheets[i];
      if (sheet && sheet.kind === 'worksheet') Object.assign(values, await this.readParams(params[i]!, sheet));
    }
    this.metaValues = values;
  }

  /**
   * The parameters of one tab. Each gets a pass of its own, finished before meta() resolves:
   * a pass left waiting at a sheet boundary while the caller does other work (opening a
   * transaction, creating the staging tables) would lose the next sheet's entry in the zip stream.
   */
  private async readParams(params: ParamSpec, sheet: SheetInfo): Promise<Record<string, string | null>> {
    const pass = this.wb.pass([sheet]);
    try {
      const first = await pass.next();
      if (first.done) throw new WorkbookError(`${this.spec.tipo}: aba '${sheet.name}' ilegível`);
      const wanted = Object.entries(params.cells ?? {}).map(([field, c]) => ({ field, ...c, ...decodeAddress(c.address) }));
      const lastWanted = Math.max(0, ...wanted.map((w) => w.row));
      const scanRows = params.scan ? params.scan.rows ?? Number.POSITIVE_INFINITY : 0;
      const raw = new Map<string, unknown>();
      const scanned: SheetRow[] = [];
      read: for await (const batch of first.value.batches) {
        for (const row of batch) {
          if (row.number > lastWanted && row.number > scanRows) break read;
          for (const w of wanted) if (w.row === row.number) raw.set(w.field, row.values[w.col - 1]);
          if (row.number <= scanRows) scanned.push(row);
        }
      }
      const problems: string[] = [];
      const values: Record<string, string> = {};
      const out: Record<string, string | null> = {};
      for (const w of wanted) {
        const v = raw.get(w.field);
        const p = w.parse(v, this.ctx);
        if (p === null) problems.push(`${w.label} ausente (célula ${w.address})`);
        else if (p === INVALID) problems.push(`${w.label} inválido na célula ${w.address}: '${quote(displayValue(v))}'`);
        else values[w.field] = p;
      }
      if (params.scan) {
        const r = params.scan.read(scanned, this.ctx);
        problems.push(...r.problems);
        for (const [k, v] of Object.entries(r.values)) {
          if (v === null) out[k] = null;
          else values[k] = v;
        }
      }
      const extra = problems.length === 0 ? params.check?.(values) ?? null : null;
      if (extra) problems.push(extra);
      if (problems.length > 0) throw new WorkbookError(`${this.spec.tipo}: aba '${sheet.name}': ${problems.join('; ')}`);
      return { ...out, ...values };
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
  private readonly oneOf: string[][];
  private cols: Array<number | undefined> | null = null;
  private best: { number: number; found: number; texts: string[] } | null = null;
  /** The tab's name, trimmed (null when nothing is left: staging text is never ''). */
  private readonly sheetValue: string | null;
  private readonly unpivot: { idx: number[]; keys: string[]; key: string; value: string } | null;

  constructor(
    private readonly tipo: string,
    private readonly sheet: SheetInfo,
    private readonly table: TableSpec,
    private readonly ctx: ParseContext,
    private readonly sink: FailSink,
  ) {
    this.columns = compile(table);
    this.oneOf = (table.requireOneOf ?? []).map((g) => g.map(normalizeHeader));
    this.sheetValue = sheet.name.trim() || null;
    const u = table.unpivot;
    this.unpivot = u ? {
      idx: u.fields.map((f) => this.columns.findIndex((c) => c.field === f.field)),
      keys: u.fields.map((f) => f.key),
      key: u.key,
      value: u.value,
    } : null;
    if (this.unpivot?.idx.some((i) => i < 0)) throw new Error(`${tipo}: unpivot names a field that is not a column`);
  }

  process(batch: readonly SheetRow[]): StagingRow[] {
    const out: StagingRow[] = [];
    const columns = this.columns;
    const n = columns.length;
    const staging = this.table.staging;
    const ctx = this.ctx;
    const sheetField = this.table.sheetField;
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
        if (p === INVALID || (p === null && col.required)) {
          const e = this.sink.fail(row.number, col.field, displayValue(raw), !bad, this.sheet.name, staging);
          if (!bad) first = e;
          bad = true;
          continue;
        }
        values[col.field] = p;
      }
      if (sheetField) values[sheetField] = this.sheetValue;
      if (bad) {
        if (first) first.valores = values; // the readable fields: the merge may still protect the row's key
        continue;
      }
      const u = this.unpivot;
      if (!u) {
        out.push({ staging, linha: row.number, values });
        continue;
      }
      for (let k = 0; k < u.idx.length; k++) {
        const v = values[columns[u.idx[k]!]!.field];
        if (v === null || v === undefined) continue;
        out.push({ staging, linha: row.number, values: { ...values, [u.key]: u.keys[k]!, [u.value]: v } });
      }
    }
    return out;
  }

  private scanHeader(row: SheetRow): void {
    if (row.number > HEADER_SCAN_ROWS) this.notFound();
    const texts = rowTexts(row);
    if (isHeaderRow(texts, this.columns, this.oneOf)) {
      this.cols = locateColumns(texts, this.columns);
      return;
    }
    const found = this.columns.filter((c) => !c.optional && c.norms.some((h) => texts.includes(h))).length;
    if (found > 0 && (!this.best || found > this.best.found)) this.best = { number: row.number, found, texts };
  }

  /** At the end of the tab: the header must have been found. */
  finish(): void {
    if (this.cols === null) this.notFound();
  }

  private notFound(): never {
    let detail = `faltam: ${requiredLabels(this.table).join(', ')}`;
    if (this.best) detail = `a linha ${this.best.number} parece o cabeçalho, mas faltam: ${requiredLabels(this.table, this.best.texts).join(', ')}`;
    throw new WorkbookError(`${this.tipo}: aba '${this.sheet.name}': cabeçalho não encontrado nas ${HEADER_SCAN_ROWS} primeiras linhas (${detail})`);
  }
}

/** A staging table a reader fills: its typed columns in COPY order, `linha` (the sheet's row) first. */
export interface StagingDefinicao { staging: string; colunas: Array<{ coluna: string; tipoSql: TipoSql }> }

/**
 * The staging tables of a type, derived from its TypeSpec: `linha`, the tab's name
 * (`sheetField`), the fields in column order typed by their parsers, and for an unpivoted
 * matrix its key and value instead of its columns. The one list of staging columns: the SQL
 * view app.xls_staging_coluna is generated from it (scripts/staging-view.ts).
 */
export function stagingDefinicao(spec: TypeSpec): StagingDefinicao[] {
  const out: StagingDefinicao[] = [];
  for (const t of [...(spec.tabs ?? []), ...(spec.anySheet ? [spec.anySheet] : [])]) {
    const unpivoted = new Set(t.unpivot?.fields.map((f) => f.field) ?? []);
    const colunas: StagingDefinicao['colunas'] = [{ coluna: 'linha', tipoSql: 'integer' }];
    if (t.sheetField) colunas.push({ coluna: t.sheetField, tipoSql: 'text' });
    for (const c of compile(t)) if (!unpivoted.has(c.field)) colunas.push({ coluna: c.field, tipoSql: c.parse.sql });
    if (t.unpivot) {
      const tipos = new Set(compile(t).filter((c) => unpivoted.has(c.field)).map((c) => c.parse.sql));
      if (tipos.size !== 1) throw new Error(`${spec.tipo}/${t.staging}: the unpivoted fields need one parser type`);
      colunas.push({ coluna: t.unpivot.key, tipoSql: t.unpivot.keySql }, { coluna: t.unpivot.value, tipoSql: [...tipos][0]! });
    }
    const antes = out.find((d) => d.staging === t.staging);
    if (antes && JSON.stringify(antes.colunas) !== JSON.stringify(colunas)) {
      throw new Error(`${spec.tipo}: tabs of staging ${t.staging} read different fields`);
    }
    if (!antes) out.push({ staging: t.staging, colunas });
  }
  return out;
}

export function createReader(wb: Workbook, spec: TypeSpec): TypeReader {
  return new SpecReader(wb, spec);
}
