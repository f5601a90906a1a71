/**
 * Compound File Binary (MS-CFB, "OLE2"): the container of a legacy `.xls` (its `Workbook` /
 * `Book` stream holds the BIFF records) and of a password-protected `.xlsx`
 * (`EncryptionInfo` + `EncryptedPackage`). Our own reader, over the whole file held as one
 * Buffer (a `.xls` is read whole: its size is limited before, `XLS_BIFF_MAX_BYTES`).
 *
 * Every number the file gives is checked before it is used: sector sizes (512 or 4096),
 * sector numbers inside the file, every chain (FAT, DIFAT, mini FAT, directory, streams)
 * walked with a visited bitmap (a cyclic chain is refused, never followed for ever), a chain
 * shorter than the size its stream declares is refused (a stream past the end of the file).
 * Errors are WorkbookError `formato não suportado: arquivo .xls corrompido (…)`.
 */
import { unsupported, type WorkbookError } from './errors.js';

const SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ENDOFCHAIN = 0xfffffffe;
const FREESECT = 0xffffffff;
const NOSTREAM = 0xffffffff;
const HEADER_DIFAT = 109;

export function isCfbBuffer(buf: Buffer): boolean {
  return buf.length >= 8 && buf.subarray(0, 8).equals(SIGNATURE);
}

export interface CfbEntry {
  name: string;
  /** 1 storage, 2 stream, 5 root. */
  type: number;
  start: number;
  size: number;
}

function corrupt(reason: string): WorkbookError {
  return unsupported(`arquivo .xls corrompido (${reason})`);
}

export class Cfb {
  private readonly sectorSize: number;
  private readonly sectorCount: number;
  private readonly fat: Uint32Array;
  private miniFat: Uint32Array | null = null;
  private miniStream: Buffer | null = null;
  private readonly miniCutoff: number;
  private readonly miniSectorSize: number;
  private readonly firstMiniFat: number;
  private readonly miniFatCount: number;
  readonly entries: CfbEntry[];

  constructor(private readonly buf: Buffer) {
    if (buf.length < 512 || !isCfbBuffer(buf)) throw corrupt('cabeçalho do contêiner OLE ausente');
    const major = buf.readUInt16LE(0x1a);
    const shift = buf.readUInt16LE(0x1e);
    if (buf.readUInt16LE(0x1c) !== 0xfffe) throw corrupt('ordem de bytes inválida');
    if (!((major === 3 && shift === 9) || (major === 4 && shift === 12))) throw corrupt(`versão ${major} com setores de 2^${shift} bytes`);
    this.sectorSize = 1 << shift;
    const miniShift = buf.readUInt16LE(0x20);
    if (miniShift !== 6) throw corrupt(`mini setores de 2^${miniShift} bytes`);
    this.miniSectorSize = 64;
    if (buf.length < this.sectorSize) throw corrupt('arquivo menor que o cabeçalho');
    this.sectorCount = Math.ceil((buf.length - this.sectorSize) / this.sectorSize);
    const fatCount = buf.readUInt32LE(0x2c);
    const firstDir = buf.readUInt32LE(0x30);
    this.miniCutoff = buf.readUInt32LE(0x38);
    this.firstMiniFat = buf.readUInt32LE(0x3c);
    this.miniFatCount = buf.readUInt32LE(0x40);
    const firstDifat = buf.readUInt32LE(0x44);
    const difatCount = buf.readUInt32LE(0x48);
    if (fatCount > this.sectorCount) throw corrupt(`${fatCount} setores de FAT num arquivo de ${this.sectorCount} setores`);
    if (difatCount > this.sectorCount) throw corrupt(`${difatCount} setores de DIFAT num arquivo de ${this.sectorCount} setores`);

    // DIFAT: the FAT's own sectors: 109 in the header, then a chain of DIFAT sectors.
    const fatSectors: number[] = [];
    for (let i = 0; i < HEADER_DIFAT && fatSectors.length < fatCount; i++) fatSectors.push(buf.readUInt32LE(0x4c + 4 * i));
    const perDifat = this.sectorSize / 4 - 1;
    const seenDifat = new Uint8Array(this.sectorCount);
    let d = firstDifat;
    for (let n = 0; fatSectors.length < fatCount; n++) {
      if (d === ENDOFCHAIN || d === FREESECT || n >= difatCount) throw corrupt('a cadeia DIFAT termina antes de listar toda a FAT');
      this.checkSector(d, 'DIFAT');
      if (seenDifat[d]) throw corrupt('cadeia de setores cíclica na DIFAT');
      seenDifat[d] = 1;
      const off = this.offset(d);
      if (off + this.sectorSize > buf.length) throw corrupt(`o setor ${d} da DIFAT passa do fim do arquivo`);
      for (let i = 0; i < perDifat && fatSectors.length < fatCount; i++) fatSectors.push(buf.readUInt32LE(off + 4 * i));
      d = buf.readUInt32LE(off + 4 * perDifat);
    }
    const perSector = this.sectorSize / 4;
    this.fat = new Uint32Array(fatCount * perSector);
    fatSectors.forEach((s, i) => {
      this.checkSector(s, 'FAT');
      const off = this.offset(s);
      // a FAT sector cut short by the end of the file (a 4096-byte-sector file shorter than
      // its sectors): the entries past the end are free (they could only name sectors past it)
      for (let j = 0; j < perSector; j++) this.fat[i * perSector + j] = off + 4 * j + 4 <= buf.length ? buf.readUInt32LE(off + 4 * j) : FREESECT;
    });

    // Directory: 128-byte entries in the directory chain.
    const dir = this.chain(firstDir, null, 'diretório');
    this.entries = [];
    for (let off = 0; off + 128 <= dir.length; off += 128) {
      const type = dir[off + 0x42]!;
      if (type === 0) continue;
      const nameLen = Math.min(64, dir.readUInt16LE(off + 0x40));
      const name = dir.toString('utf16le', off, off + Math.max(0, nameLen - 2));
      const start = dir.readUInt32LE(off + 0x74);
      const high = dir.readUInt32LE(off + 0x7c);
      const low = dir.readUInt32LE(off + 0x78);
      // version 3 files may leave garbage in the high half (MS-CFB 2.6.3)
      const size = major === 3 ? low : high * 2 ** 32 + low;
      this.entries.push({ name, type, start, size });
    }
    if (this.entries[0]?.type !== 5) throw corrupt('entrada raiz ausente no diretório');
  }

  private offset(sector: number): number {
    return (sector + 1) * this.sectorSize;
  }

  private checkSector(s: number, what: string): void {
    if (s >= this.sectorCount) throw corrupt(`setor ${s} de ${what} além do fim do arquivo (${this.sectorCount} setores)`);
  }

  /** The bytes of a chain of regular sectors from `start` (size: the stream's declared size, or null = the whole chain). */
  private chain(start: number, size: number | null, what: string): Buffer {
    if (size !== null && size > this.buf.length) throw corrupt(`o fluxo ${what} declara ${size} bytes num arquivo de ${this.buf.length}`);
    const want = size === null ? Infinity : Math.ceil(size / this.sectorSize);
    const parts: Buffer[] = [];
    const seen = new Uint8Array(this.sectorCount);
    let s = start;
    while (parts.length < want) {
      if (s === ENDOFCHAIN || (size === null && s === FREESECT)) {
        if (size === null) break;
        throw corrupt(`a cadeia de setores do fluxo ${what} termina antes dos ${size} bytes declarados`);
      }
      this.checkSector(s, what);
      if (seen[s]) throw corrupt(`cadeia de setores cíclica no fluxo ${what}`);
      seen[s] = 1;
      const off = this.offset(s);
      if (off + this.sectorSize > this.buf.length) {
        // the last sector may be cut short by the writer; only what the stream needs must be there
        parts.push(this.buf.subarray(off));
      } else {
        parts.push(this.buf.subarray(off, off + this.sectorSize));
      }
      if (s >= this.fat.length) throw corrupt(`setor ${s} fora da FAT`);
      s = this.fat[s]!;
    }
    const out = Buffer.concat(parts);
    if (size !== null && out.length < size) throw corrupt(`o fluxo ${what} passa do fim do arquivo`);
    return size === null ? out : out.subarray(0, size);
  }

  private miniChain(start: number, size: number, what: string): Buffer {
    if (!this.miniStream) {
      const root = this.entries[0]!;
      this.miniStream = this.chain(root.start, root.size, 'mini stream');
      const mf = this.miniFatCount === 0 ? Buffer.alloc(0) : this.chain(this.firstMiniFat, null, 'mini FAT');
      this.miniFat = new Uint32Array(Math.floor(mf.length / 4));
      for (let i = 0; i < this.miniFat.length; i++) this.miniFat[i] = mf.readUInt32LE(4 * i);
    }
    const count = Math.floor(this.miniStream.length / this.miniSectorSize);
    const out = Buffer.alloc(size);
    const seen = new Uint8Array(count);
    let s = start;
    for (let at = 0; at < size; at += this.miniSectorSize) {
      if (s >= count) throw corrupt(`mini setor ${s} do fluxo ${what} além do fim do mini stream`);
      if (seen[s]) throw corrupt(`cadeia de mini setores cíclica no fluxo ${what}`);
      seen[s] = 1;
      const n = Math.min(this.miniSectorSize, size - at);
      if (s * this.miniSectorSize + n > this.miniStream.length) throw corrupt(`o fluxo ${what} passa do fim do mini stream`);
      this.miniStream.copy(out, at, s * this.miniSectorSize, s * this.miniSectorSize + n);
      s = s < this.miniFat!.length ? this.miniFat![s]! : ENDOFCHAIN;
    }
    return out;
  }

  /** The stream entry with this name (case-insensitive), or undefined. */
  find(name: string): CfbEntry | undefined {
    const want = name.toLowerCase();
    return this.entries.find((e) => e.type === 2 && e.name.toLowerCase() === want);
  }

  /** The bytes of a stream entry. */
  read(entry: CfbEntry): Buffer {
    if (entry.start === NOSTREAM || entry.size === 0) return Buffer.alloc(0);
    return entry.size < this.miniCutoff ? this.miniChain(entry.start, entry.size, entry.name) : this.chain(entry.start, entry.size, entry.name);
  }
}
