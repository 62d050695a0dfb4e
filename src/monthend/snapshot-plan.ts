// What "Snapshot to values" replaces, as plain logic: which formulas call HEDGE.*, what each becomes (its value, or its whole spill), and the note saying when.
import { utcMinute } from "../api/time";
import type { CellValue } from "../trading/cells";

export type SnapshotScope = "selection" | "sheet";

export interface SnapshotResult {
  sheetName: string;
  /** What was looked at, e.g. "Sheet1!A1:F40"; "" when the sheet is empty. */
  address: string;
  replaced: Array<{ address: string; formula: string; rows: number; columns: number }>;
  skipped: Array<{ address: string; formula: string; reason: string }>;
  /** Cells that now hold a value instead of a formula or a spill. */
  cells: number;
  /** How the time was recorded: a note (ExcelApi 1.18), a comment (ExcelApi 1.10), or nothing on older Excel. */
  marker: "note" | "comment" | "none";
}

export interface Snapshotter {
  snapshot(scope: SnapshotScope, at?: Date): Promise<SnapshotResult>;
}

/** A formula cell, by 0-based sheet row and column. */
export interface FormulaCell {
  row: number;
  column: number;
  /** The formula as Excel gives it in English ("=HEDGE.PRICE(\"USDTNGN\")"). */
  formula: string;
}

/** What a formula shows now: its own cell, or when it spills, the whole spill with the formula's cell at its top left. */
export interface ShownBlock {
  row: number;
  column: number;
  values: CellValue[][];
  /** Excel's valueTypes, same shape ("Error" marks #N/A, #BUSY!, #VALUE!…). */
  valueTypes: string[][];
}

export interface PlannedWrite {
  row: number;
  column: number;
  values: CellValue[][];
  /** The formula replaced, for the note and the report. */
  formula: string;
  note: string;
}

export interface SkippedFormula {
  row: number;
  column: number;
  formula: string;
  reason: string;
}

export interface SnapshotPlan {
  writes: PlannedWrite[];
  skipped: SkippedFormula[];
  /** Cells that get a value (the spills' cells included). */
  cellCount: number;
}

/**
 * Strips what a formula quotes: "text" literals (with "" inside) and 'sheet names' (with '' inside), so that
 * ="HEDGE.PRICE(" or ='HEDGE.X'!A1 do not count as calls.
 */
function unquoted(formula: string): string {
  return formula.replace(/"(?:[^"]|"")*"/g, '""').replace(/'(?:[^']|'')*'/g, "''");
}

const HEDGE_CALL = /(^|[^A-Za-z0-9_.])HEDGE\.[A-Za-z_][A-Za-z0-9_.]*\s*\(/i;

/** True for a formula that calls any HEDGE.* function, anywhere in it (=HEDGE.PRICE(…), =SUM(HEDGE.POSITIONS()), …). */
export function isHedgeFormula(formula: unknown): formula is string {
  return typeof formula === "string" && formula.startsWith("=") && HEDGE_CALL.test(unquoted(formula));
}

/** The HEDGE.* formula cells of a block of formulas whose top-left cell is at (`top`, `left`) of the sheet, row by row. */
export function findHedgeFormulas(formulas: readonly (readonly unknown[])[], top: number, left: number): FormulaCell[] {
  const out: FormulaCell[] = [];
  formulas.forEach((row, r) =>
    row.forEach((f, c) => {
      if (isHedgeFormula(f)) out.push({ row: top + r, column: left + c, formula: f });
    }),
  );
  return out;
}

const NOTE_FORMULA_MAX = 900;

/** The cell note: `HEDGE.PRICE("USDTNGN") snapshot at 2026-11-30 17:00 UTC` (the formula kept so it can be typed back in). */
export function snapshotNote(formula: string, at: Date): string {
  let f = formula.startsWith("=") ? formula.slice(1) : formula;
  if (f.length > NOTE_FORMULA_MAX) f = `${f.slice(0, NOTE_FORMULA_MAX)}…`;
  return `${f} snapshot at ${utcMinute(at)}`;
}

/** A note added under what the cell's note already says (never losing the user's text). */
export function appendNote(existing: string | null | undefined, text: string): string {
  return existing && existing.trim() !== "" ? `${existing}\n${text}` : text;
}

/**
 * Decides each replacement. A formula whose value (or any cell of its spill) is an error — still #BUSY!, #N/A, #SPILL! —
 * is left as it is and reported, since freezing an error would lose the formula for nothing.
 */
export function planSnapshot(cells: ReadonlyArray<FormulaCell & { shown: ShownBlock }>, at: Date): SnapshotPlan {
  const writes: PlannedWrite[] = [];
  const skipped: SkippedFormula[] = [];
  let cellCount = 0;
  for (const cell of cells) {
    const { shown } = cell;
    if (shown.row !== cell.row || shown.column !== cell.column) {
      skipped.push({
        row: cell.row,
        column: cell.column,
        formula: cell.formula,
        reason: "Excel reported a spill that does not start at the formula's cell",
      });
      continue;
    }
    const errorAt = findError(shown);
    if (errorAt) {
      skipped.push({
        row: cell.row,
        column: cell.column,
        formula: cell.formula,
        reason: `it shows ${errorAt} (still calculating or an error): wait for a value, then snapshot again`,
      });
      continue;
    }
    writes.push({
      row: cell.row,
      column: cell.column,
      values: shown.values.map((r) => r.map((v) => (v === null ? "" : v))),
      formula: cell.formula,
      note: snapshotNote(cell.formula, at),
    });
    cellCount += shown.values.reduce((n, r) => n + r.length, 0);
  }
  return { writes, skipped, cellCount };
}

function findError(block: ShownBlock): string | null {
  for (let r = 0; r < block.values.length; r++) {
    for (let c = 0; c < block.values[r].length; c++) {
      if (block.valueTypes[r]?.[c] === "Error") return String(block.values[r][c]);
    }
  }
  return null;
}
