// A batch's block read back from the Approvals sheet's cells (pure): the blocks of the sheet's lines, one block's span in the first column, the lines that are not blank; tolerant of edits, each problem named.
import {
  APPROVALS_SHEET_NAME,
  APPROVAL_STATUSES,
  BATCH_TITLES,
  COL,
  ROW_COL,
  ROW_TITLES,
  isBlockStart,
  isTitles,
  orNull,
  text,
} from "./block";
import type { ApprovalBatch, ApprovalStatus } from "./block";
import type { CellValue } from "../cells";
import { readTradeRows } from "../rows";
import type { RowProblem } from "../types";
import type { SheetRow } from "../workbook";

/** One row line of a block as read: where it is, and its key and digest cells. */
export interface RowLine {
  rowNumber: number;
  values: CellValue[];
  key: string;
  digest: string;
}

/** A block as read from the sheet: the batch, its lines, and what could not be read. */
export interface ApprovalBlock {
  batch: ApprovalBatch;
  /** Sheet row of the block's titles line (its values are on the next line). */
  titlesRow: number;
  /** Rows prepared (the Rows cell), null when it does not read as a count. */
  preparedRows: number | null;
  lines: RowLine[];
  /** Row lines that do not read as a trade row (an edited cell), with the field and the fix. */
  rowProblems: RowProblem[];
  /** Header cells that do not read as the add-in wrote them (an unknown status, an empty hash). */
  problems: string[];
}

/**
 * The blocks of the sheet's lines (blank lines left out), in sheet order. A block starts at a "Batch id" titles line;
 * its values are the next line; its rows run from its "Action" titles line to the next block. A line added inside a
 * block is one of its rows (and, without the batch's key, an added row); a line removed is a row missing.
 */
export function parseApprovals(lines: readonly SheetRow[]): ApprovalBlock[] {
  const blocks: ApprovalBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!isTitles(lines[i].values, BATCH_TITLES[0])) continue;
    let end = i + 1;
    // A batch's block runs to the next block of either kind (a roll instruction's is read by roll-instruction.ts).
    while (end < lines.length && !isBlockStart(lines[end].values)) end++;
    blocks.push(parseBlock(lines[i].rowNumber, lines.slice(i + 1, end)));
    i = end - 1;
  }
  return blocks;
}

function parseBlock(titlesRow: number, body: readonly SheetRow[]): ApprovalBlock {
  const header = body[0]?.rowNumber === titlesRow + 1 ? body[0].values : [];
  const problems: string[] = [];
  const statusText = text(header[COL.status]).toLowerCase();
  const status = (APPROVAL_STATUSES as readonly string[]).includes(statusText) ? (statusText as ApprovalStatus) : null;
  if (status === null)
    problems.push(`its Status cell reads "${text(header[COL.status])}", not one the add-in writes (${APPROVAL_STATUSES.join(", ")})`);
  const hash = text(header[COL.hash]);
  if (!/^[0-9a-f]{64}$/.test(hash)) problems.push("its Batch hash cell is not the hash written at preparation");
  const environmentText = text(header[COL.environment]).toLowerCase();
  const environment = environmentText === "production" || environmentText === "sandbox" ? environmentText : null;
  if (environment === null && environmentText !== "")
    problems.push(`its Environment cell reads "${text(header[COL.environment])}", not one the add-in writes (production, sandbox)`);
  const count = Number(header[COL.rows]);
  const afterHeader = header.length > 0 ? body.slice(1) : body;
  const rowsStart = afterHeader.findIndex((l) => isTitles(l.values, ROW_TITLES[0]));
  const lines: RowLine[] = afterHeader.slice(rowsStart + 1).map(({ rowNumber, values }) => ({
    rowNumber,
    values,
    key: text(values[ROW_COL.key]).toLowerCase(),
    digest: text(values[ROW_COL.digest]).toLowerCase(),
  }));
  const read = readTradeRows("open", {
    sheetName: APPROVALS_SHEET_NAME,
    address: "",
    tableName: null,
    headers: [...ROW_TITLES],
    headerRowNumber: afterHeader[rowsStart]?.rowNumber ?? titlesRow + 2,
    rows: lines.map((l) => ({ rowNumber: l.rowNumber, values: l.values.slice(0, ROW_COL.key) })),
    hiddenRowsSkipped: 0,
  });
  const rowProblems = [...read.problems];
  for (const blank of read.blankRows) {
    rowProblems.push({ rowNumber: blank, field: "action", value: "", message: `Row ${blank}: its trade cells are empty.` });
  }
  const batch: ApprovalBatch = {
    id: text(header[COL.id]),
    // An unreadable status is never taken for a decision: the batch shows as pending and its problem refuses approval.
    status: status ?? "pending",
    hash,
    preparedBy: text(header[COL.preparedBy]),
    preparedAt: text(header[COL.preparedAt]),
    rows: read.rows,
    notionalsBefore: read.rows.map((r) => {
      const cell = lines.find((l) => l.rowNumber === r.rowNumber)?.values[ROW_COL.before];
      return typeof cell === "number" && Number.isFinite(cell) ? cell : null;
    }),
    approvedBy: orNull(header[COL.decidedBy]),
    decidedAt: orNull(header[COL.decidedAt]),
    reason: orNull(header[COL.reason]),
    environment,
    account: orNull(header[COL.account]),
  };
  return { batch, titlesRow, preparedRows: Number.isInteger(count) && count > 0 ? count : null, lines, rowProblems, problems };
}

/**
 * Where a batch's block is, from the sheet's first column (0-based rows, blank cells included): [start, end), start its
 * titles line (the next line holds the id), end the next block's titles line or the column's end. null: no block has the id.
 * A block of either kind (a batch's, a roll instruction's) is found by its id.
 */
export function blockSpan(firstColumn: readonly CellValue[], batchId: string): { start: number; end: number } | null {
  const id = batchId.trim();
  for (let r = 0; r + 1 < firstColumn.length; r++) {
    if (!isBlockStart([firstColumn[r]]) || text(firstColumn[r + 1]) !== id) continue;
    let end = r + 2;
    while (end < firstColumn.length && !isBlockStart([firstColumn[end]])) end++;
    return { start: r, end };
  }
  return null;
}

/** The sheet's lines that are not blank, as SheetRows (1-based row numbers), from 0-based rows starting at `top`. */
export function nonBlankLines(values: readonly (readonly CellValue[])[], top: number): SheetRow[] {
  const lines: SheetRow[] = [];
  values.forEach((row, i) => {
    if (row.some((v) => text(v) !== "")) lines.push({ rowNumber: top + i + 1, values: [...row] });
  });
  return lines;
}
