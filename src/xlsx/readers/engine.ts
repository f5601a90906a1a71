/**
 * The per-type reader engine. A type is described declaratively (types below): which tabs,
 * which headers map to which fields with which parser, which cells hold parameters. The
 * engine does the rest, the same for every type: one streaming pass over the needed tabs,
 * header row search, skipping empty and `Total` rows, cell parsing, row errors.
 */
import { INVALID, type CellParser, type ParseContext, displayValue, isEmptyValue, unwrap } from '../cells.js';
import { WorkbookError } from '../errors.js';
import { HEADER_SCAN_ROWS, hasAll, locate, normalizeHeader, rowTexts, snakeCase } from '../headers.js';
import { MAX_ROW_ERRORS, type RowError, type StagingRow, type TipoPlanilha, type TypeReader } from '../types.js';
import type { SheetInfo, SheetRow, Workbook } from '../workbook.js';

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

interface CompiledColumn { field: string; header: string; parse: CellParser; required: boolean; optional: boolean; norm: string }

function compile(table: TableSpec): CompiledColumn[] {
  return table.columns.map((c) => ({
    field: c.field ?? snakeCase(c.header),
    header: c.header,
    parse: c.parse,
    required: c.required ?? false,
    optional: c.optional ?? false,
    norm: normalizeHeader(c.header),
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
  const values = row.values;
  for (let c = 0; c < values.length; c++) {
    const raw = values[c];
    if (isEmptyValue(raw)) continue;
    const v = unwrap(raw);
    return typeof v === 'string' && TOTAL.test(v.trim());
  }
  return true;
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
  private pass: AsyncGenerator<{ sheet: SheetInfo; rows: AsyncGenerator<SheetRow> }> | null = null;
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
      for await (const row of first.value.rows) {
        for (const w of wanted) if (w.row === row.number) raw.set(w.field, row.values[w.col - 1]);
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

  rows(): AsyncIterable<StagingRow> {
    if (this.consumed) throw new Error('TypeReader.rows() can be iterated once');
    this.consumed = true;
    return this.iterate();
  }

  private async *iterate(): AsyncGenerator<StagingRow> {
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
        yield* this.readTable(next.value.sheet, next.value.rows, table);
        await this.close();
      }
    } finally {
      await this.close();
    }
  }

  private fail(linha: number, campo: string, valor: string): void {
    if (this.errs.length < MAX_ROW_ERRORS) {
      this.errs.push({ linha, campo, valor, mensagem: `linha ${linha}: ${campo} '${quote(valor)}' inválido` });
    }
  }

  private async *readTable(sheet: SheetInfo, rows: AsyncGenerator<SheetRow>, table: TableSpec): AsyncGenerator<StagingRow> {
    const columns = compile(table);
    const n = columns.length;
    const requiredNorms = columns.filter((c) => !c.optional).map((c) => c.norm);
    let cols: Array<number | undefined> | null = null;
    let best: { number: number; found: number; texts: string[] } | null = null;
    const staging = table.staging;
    const ctx = this.ctx;

    for await (const row of rows) {
      if (cols === null) {
        if (row.number > HEADER_SCAN_ROWS) break;
        const texts = rowTexts(row);
        if (hasAll(texts, requiredNorms)) {
          cols = locate(texts, columns.map((c) => c.norm));
        } else {
          const found = requiredNorms.filter((h) => texts.includes(h)).length;
          if (found > 0 && (!best || found > best.found)) best = { number: row.number, found, texts };
        }
        continue;
      }
      if (isSkippedRow(row)) continue;

      const cells = row.values;
      const values: Record<string, string | null> = {};
      let bad = false;
      for (let i = 0; i < n; i++) {
        const col = columns[i]!;
        const at = cols[i];
        const raw = at === undefined ? undefined : cells[at - 1];
        const p = col.parse(raw, ctx);
        if (p === INVALID || (p === null && col.required)) {
          if (!bad) this.rejected++;
          bad = true;
          this.fail(row.number, col.field, displayValue(raw));
          continue;
        }
        values[col.field] = p;
      }
      if (!bad) yield { staging, linha: row.number, values };
    }

    if (cols === null) {
      let detail = `faltam: ${columns.filter((c) => !c.optional).map((c) => c.header).join(', ')}`;
      if (best) {
        const texts = best.texts;
        const missing = columns.filter((c) => !c.optional && !texts.includes(c.norm)).map((c) => c.header);
        detail = `a linha ${best.number} parece o cabeçalho, mas faltam: ${missing.join(', ')}`;
      }
      throw new WorkbookError(`${this.spec.tipo}: aba '${sheet.name}': cabeçalho não encontrado nas ${HEADER_SCAN_ROWS} primeiras linhas (${detail})`);
    }
  }
}

export function createReader(wb: Workbook, spec: TypeSpec): TypeReader {
  return new SpecReader(wb, spec);
}
