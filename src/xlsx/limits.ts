/**
 * Limits applied to every uploaded archive (the batch zip and each xlsx, which is a zip
 * too). Defaults from docs/formatos.md ("Receiving files"); each is configurable (src/config.ts, XLS_* variables).
 */
export interface ArchiveLimits {
  /** Largest upload accepted, in bytes (413 above it). */
  maxUploadBytes: number;
  /** Most entries in one zip (the batch, or the parts of one xlsx) (413 above it). */
  maxEntries: number;
  /** Most bytes once uncompressed, summed over the entries of one zip (413 above it). */
  maxTotalUncompressedBytes: number;
  /** Highest compression ratio of an entry, uncompressed:compressed (413 above it). */
  maxRatio: number;
}

export const MiB = 1024 * 1024;

export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxUploadBytes: 256 * MiB,
  maxEntries: 500,
  maxTotalUncompressedBytes: 1024 * MiB,
  maxRatio: 200,
});

/** Limits of reading a workbook (openWorkbook), besides the archive's. */
export interface ReaderLimits {
  /**
   * Most characters one cell or one shared string keeps (Excel's own cell limit by
   * default). A longer value is cut and marked (TruncatedText): as text it keeps its first
   * characters, as a code, number or date it is a row error.
   */
  maxCellChars: number;
}

export const DEFAULT_READER_LIMITS: Readonly<ReaderLimits> = Object.freeze({ maxCellChars: 32_767 });

/**
 * The ratio is only judged for entries that expand beyond this size: tiny parts
 * (an empty sheet, a rels file) reach huge ratios legitimately and cannot hurt.
 */
export const RATIO_MIN_UNCOMPRESSED_BYTES = 1 * MiB;

export function resolveLimits(limits?: Partial<ArchiveLimits>): ArchiveLimits {
  return { ...DEFAULT_ARCHIVE_LIMITS, ...dropUndefined(limits ?? {}) };
}

function dropUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function formatBytes(n: number): string {
  if (n >= MiB) return `${(n / MiB).toFixed(n % MiB === 0 ? 0 : 1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} KiB`;
  return `${n} bytes`;
}
