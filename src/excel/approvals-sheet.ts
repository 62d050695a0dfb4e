// The "Approvals" sheet through Office.js: its blocks read in byte-sized chunks (the whole sheet, or one batch's block found by its first column), a block appended and a decision written through the safe writer.
import type { CellValue } from "../trading/cells";
import {
  APPROVALS_SHEET_NAME,
  APPROVAL_WIDTH,
  BATCH_TITLES,
  INSTRUCTION_ID_TITLE,
  INSTRUCTION_TERMS_TITLE,
  ROW_TITLES,
  blockFormats,
  type BlockStatus,
} from "../trading/approvals/block";
import { blockSpan, nonBlankLines } from "../trading/approvals/block-read";
import {
  DECISION_COLUMNS,
  decidedMeanwhile,
  decisionCells,
  noSuchBatch,
  statusAllows,
  type ApprovalDecision,
} from "../trading/approvals/decision";
import type { SheetRow } from "../trading/workbook";
import { ReadSizer, jsonBytes, packByBytes, readSpans, type ChunkLimits } from "./chunks";
import { queueSafeCells } from "./safe-cells";

/** Column widths of a new Approvals sheet (points): ids, hashes and fingerprints are long. */
const WIDTHS = [150, 80, 110, 70, 130, 160, 130, 160, 200];

interface Opened {
  sheet: Excel.Worksheet;
  /** 0-based row after the last used one (0 when the sheet is empty). */
  end: number;
}

async function openSheet(context: Excel.RequestContext, create: boolean): Promise<Opened | null> {
  let sheet = context.workbook.worksheets.getItemOrNullObject(APPROVALS_SHEET_NAME);
  sheet.load("isNullObject");
  await context.sync();
  if (sheet.isNullObject) {
    if (!create) return null;
    sheet = context.workbook.worksheets.add(APPROVALS_SHEET_NAME);
    WIDTHS.forEach((w, c) => (sheet.getRangeByIndexes(0, c, 1, 1).untrack().format.columnWidth = w));
    return { sheet, end: 0 };
  }
  const used = sheet.getUsedRangeOrNullObject(true).load("isNullObject, rowIndex, rowCount");
  await context.sync();
  return { sheet, end: used.isNullObject ? 0 : used.rowIndex + used.rowCount };
}

/** Rows [start, start + count) across the block's columns, in chunks; blank lines left out. */
async function readLines(context: Excel.RequestContext, sheet: Excel.Worksheet, start: number, count: number, limits: ChunkLimits) {
  const lines: SheetRow[] = [];
  if (count <= 0) return lines;
  for await (const chunk of readSpans(context, sheet, [{ start, count }], 0, APPROVAL_WIDTH, new ReadSizer(limits))) {
    for (const { span, values } of chunk) lines.push(...nonBlankLines(values, span.start));
  }
  return lines;
}

/** The sheet's first column, in chunks (to find a block without reading the others). */
async function firstColumn(context: Excel.RequestContext, opened: Opened, limits: ChunkLimits): Promise<CellValue[]> {
  const column: CellValue[] = [];
  if (opened.end === 0) return column;
  for await (const chunk of readSpans(context, opened.sheet, [{ start: 0, count: opened.end }], 0, 1, new ReadSizer(limits))) {
    for (const { values } of chunk) column.push(...values.map((v) => v[0]));
  }
  return column;
}

/** Every block's lines, or one batch's (its first column read first, then only its lines). */
export async function readApprovalLines(context: Excel.RequestContext, limits: ChunkLimits, batchId?: string): Promise<SheetRow[]> {
  const opened = await openSheet(context, false);
  if (!opened) return [];
  if (batchId === undefined) return readLines(context, opened.sheet, 0, opened.end, limits);
  const span = blockSpan(await firstColumn(context, opened, limits), batchId);
  return span ? readLines(context, opened.sheet, span.start, span.end - span.start, limits) : [];
}

/** Appends a block one blank line below the last used line, in byte-sized writes; titles bold. */
export async function appendApprovalLines(context: Excel.RequestContext, limits: ChunkLimits, lines: CellValue[][]): Promise<void> {
  const opened = (await openSheet(context, true))!;
  const top = opened.end === 0 ? 0 : opened.end + 1;
  const formats = blockFormats(lines);
  let at = 0;
  for (const group of packByBytes(lines, (line) => jsonBytes(line) * 2, limits)) {
    queueSafeCells(opened.sheet, top + at, 0, group, formats.slice(at, at + group.length));
    group.forEach((line, i) => {
      const first = String(line[0] ?? "");
      if (first === BATCH_TITLES[0] || first === ROW_TITLES[0] || first === INSTRUCTION_ID_TITLE || first === INSTRUCTION_TERMS_TITLE)
        opened.sheet.getRangeByIndexes(top + at + i, 0, 1, line.length).untrack().format.font.bold = true;
    });
    at += group.length;
    await context.sync();
  }
}

/**
 * Writes a decision into the block's values line when its status is one of `from`; throws otherwise. The status and the
 * id are read in the same sync as the write, just before it (Office.js runs a sync's actions in order, none of a
 * co-author's between): a decision is written only over the status read then. When that read shows another status or
 * another batch, the cells are put back as read (the sync after) and nothing of the decision stays.
 */
export async function writeApprovalDecision(
  context: Excel.RequestContext,
  limits: ChunkLimits,
  batchId: string,
  from: readonly BlockStatus[],
  decision: ApprovalDecision,
): Promise<void> {
  const opened = await openSheet(context, false);
  const span = opened ? blockSpan(await firstColumn(context, opened, limits), batchId) : null;
  if (!opened || !span) throw noSuchBatch(batchId);
  const row = span.start + 1;
  const header = opened.sheet.getRangeByIndexes(row, 0, 1, APPROVAL_WIDTH).load("values");
  queueDecision(opened.sheet, row, decisionCells(decision));
  await context.sync();
  const read = header.values[0] as CellValue[];
  const status = read[DECISION_COLUMNS[0]];
  const ours = String(read[0] ?? "").trim() === batchId.trim();
  if (ours && statusAllows(status, from)) return;
  queueDecision(
    opened.sheet,
    row,
    DECISION_COLUMNS.map((c) => read[c]),
  );
  await context.sync();
  throw ours ? decidedMeanwhile(batchId, status, from) : noSuchBatch(batchId);
}

/** Queues a decision's four cells (Status, then Approved/rejected by, Decided at, Reason) through the safe writer. */
function queueDecision(sheet: Excel.Worksheet, row: number, cells: readonly CellValue[]): void {
  const general = (n: number) => [Array<string>(n).fill("General")];
  queueSafeCells(sheet, row, DECISION_COLUMNS[0], [cells.slice(0, 1)], general(1));
  queueSafeCells(sheet, row, DECISION_COLUMNS[1], [cells.slice(1)], general(3));
}
