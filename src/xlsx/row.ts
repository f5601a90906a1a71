/**
 * A row of a sheet: its 1-based row number and the cell values by column (values[0] =
 * column A; sparse, undefined = empty). Values: string, number, boolean, Date,
 * { formula, result }, { error }, TruncatedText (a value over the cell limit).
 */
export interface SheetRow {
  readonly number: number;
  readonly values: readonly unknown[];
}
