/**
 * The structure of an xlsx package, read by us rather than by exceljs: `_rels/.rels` →
 * the workbook part, `workbook.xml` → sheet names/states/1904 flag, workbook rels → the
 * part of each sheet, of the shared strings and of the styles. Part names are resolved
 * like OPC does (relative to the source part, case-insensitive), so sheet parts may have
 * any name and any folder, and namespace prefixes (`x:sheet`) are understood.
 */
import { SaxesParser } from 'saxes';
import { WorkbookError, unsupported } from './errors.js';
import { xmlMotivo } from './xml-motivo.js';
import type { ByteSource } from './source.js';
import { type ZipEntry, type ZipIndex, readSmallPart } from './zip.js';

export type SheetState = 'visible' | 'hidden' | 'veryHidden';

export interface SheetInfo {
  /** Tab name as the workbook stores it. */
  name: string;
  /** 0-based position in the workbook's tab order. */
  position: number;
  state: SheetState;
  /** worksheet: has cells; chartsheet/other: has no rows. */
  kind: 'worksheet' | 'chartsheet' | 'other';
  /** The sheet's part in the archive, or null when the workbook points nowhere. */
  part: ZipEntry | null;
}

export interface PackageStructure {
  workbookPart: ZipEntry;
  sheets: SheetInfo[];
  date1904: boolean;
  sharedStrings: ZipEntry | null;
  styles: ZipEntry | null;
}

interface Rel { id: string; type: string; target: string; external: boolean }

type Attrs = Record<string, { local: string; uri: string; value: string }>;

function parseXml(xml: Buffer, part: string, onOpen: (local: string, attrs: Attrs, depth: number) => void): void {
  const parser = new SaxesParser({ xmlns: true, position: false });
  let depth = 0;
  parser.on('opentag', (tag) => {
    onOpen(tag.local, tag.attributes as unknown as Attrs, depth);
    if (!tag.isSelfClosing) depth++;
  });
  parser.on('closetag', (tag) => { if (!tag.isSelfClosing) depth--; });
  try {
    parser.write(xml.toString('utf8')).close();
  } catch (err) {
    throw unsupported(`XML inválido em ${part} (${xmlMotivo(err)})`, err);
  }
}

function attr(attrs: Attrs, local: string, uriHint?: string): string | undefined {
  for (const key in attrs) {
    const a = attrs[key]!;
    if (a.local === local && (uriHint === undefined ? a.uri === '' : a.uri.includes(uriHint))) return a.value;
  }
  return undefined;
}

function parseRels(xml: Buffer, part: string): Rel[] {
  const rels: Rel[] = [];
  parseXml(xml, part, (local, attrs) => {
    if (local !== 'Relationship') return;
    const id = attr(attrs, 'Id');
    const type = attr(attrs, 'Type');
    const target = attr(attrs, 'Target');
    if (id && type && target !== undefined) {
      rels.push({ id, type, target, external: (attr(attrs, 'TargetMode') ?? '').toLowerCase() === 'external' });
    }
  });
  return rels;
}

function relsPartOf(partName: string): string {
  const slash = partName.lastIndexOf('/');
  return `${partName.slice(0, slash + 1)}_rels/${partName.slice(slash + 1)}.rels`;
}

/** Resolves a relationship target against its source part, OPC style. */
export function resolveTarget(sourcePart: string, target: string): string {
  let path = target.split('#')[0]!.replace(/\\/g, '/');
  try { path = decodeURIComponent(path); } catch { /* keep as written */ }
  const base = path.startsWith('/') ? [] : sourcePart.split('/').slice(0, -1);
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') base.pop();
    else base.push(seg);
  }
  return base.join('/');
}

function find(index: ZipIndex, name: string): ZipEntry | undefined {
  return index.byName.get(name.toLowerCase());
}

const OFFICE_DOCUMENT = /\/officeDocument$/;

export async function readPackageStructure(buf: Buffer | ByteSource, index: ZipIndex): Promise<PackageStructure> {
  // 1. _rels/.rels → the workbook part (xl/workbook.xml when absent, or when _rels/.rels is
  //    not XML and xl/workbook.xml is there: other readers fall back to it too).
  let workbookName = 'xl/workbook.xml';
  const rootRels = find(index, '_rels/.rels');
  if (rootRels) {
    let rels: Rel[] = [];
    try {
      rels = parseRels(await readSmallPart(buf, rootRels), '_rels/.rels');
    } catch (err) {
      if (!(err instanceof WorkbookError) || !find(index, workbookName)) throw err;
    }
    const doc = rels.find((r) => OFFICE_DOCUMENT.test(r.type) && !r.external);
    if (doc) workbookName = resolveTarget('', doc.target);
  }
  const workbookPart = find(index, workbookName) ?? find(index, 'xl/workbook.xml');
  if (!workbookPart) {
    throw unsupported(`o pacote não contém a pasta de trabalho (${workbookName}); não parece um .xlsx`);
  }

  // 2. workbook.xml → sheets in tab order and the 1904 flag.
  const declared: Array<{ name: string; state: SheetState; rid: string | undefined }> = [];
  let date1904 = false;
  parseXml(await readSmallPart(buf, workbookPart), workbookPart.name, (local, attrs) => {
    if (local === 'workbookPr') {
      const v = (attr(attrs, 'date1904') ?? '').toLowerCase();
      date1904 = v === '1' || v === 'true';
    } else if (local === 'sheet') {
      const name = attr(attrs, 'name');
      if (name === undefined) return;
      const st = attr(attrs, 'state');
      declared.push({
        name,
        state: st === 'hidden' ? 'hidden' : st === 'veryHidden' ? 'veryHidden' : 'visible',
        rid: attr(attrs, 'id', 'relationships'),
      });
    }
  });

  // 3. workbook rels → parts of sheets, shared strings, styles.
  const relsEntry = find(index, relsPartOf(workbookPart.name));
  const rels = relsEntry ? parseRels(await readSmallPart(buf, relsEntry), relsEntry.name) : [];
  const byId = new Map(rels.map((r) => [r.id, r]));
  const partOf = (r: Rel | undefined) => (r && !r.external ? find(index, resolveTarget(workbookPart.name, r.target)) ?? null : null);
  const ofType = (suffix: string) => partOf(rels.find((r) => r.type.endsWith(suffix)));

  const sheets: SheetInfo[] = declared.map((d, position) => {
    const rel = d.rid === undefined ? undefined : byId.get(d.rid);
    const kind = !rel ? 'other' : rel.type.endsWith('/worksheet') ? 'worksheet' : rel.type.endsWith('/chartsheet') ? 'chartsheet' : 'other';
    return { name: d.name, position, state: d.state, kind, part: partOf(rel) };
  });
  if (sheets.length === 0) throw unsupported('a pasta de trabalho não declara nenhuma aba');

  return {
    workbookPart,
    sheets,
    date1904,
    sharedStrings: ofType('/sharedStrings') ?? find(index, 'xl/sharedStrings.xml') ?? null,
    styles: ofType('/styles') ?? find(index, 'xl/styles.xml') ?? null,
  };
}
