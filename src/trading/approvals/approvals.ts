// The Approvals sheet's model (pure): one block per batch (its header line and rows), the block read back from cells, and the judgment of whether a key may approve it.
import { BATCH_FIELDS, batchChanges, batchHash, canonicalRow, type BatchChange, type BatchField } from "./batch-hash";
import type { CellValue } from "../cells";
import { hashOf } from "../log/digest";
import { FIELD_LABELS, normaliseHeader, readTradeRows } from "../rows";
import type { RowProblem, TradeRequest, TradeRow } from "../types";
import type { SheetRow } from "../workbook";

/** The Approvals sheet's name. */
export const APPROVALS_SHEET_NAME = "Approvals";

export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "executed"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** A batch as its block on the Approvals sheet says now. */
export interface ApprovalBatch {
  id: string;
  status: ApprovalStatus;
  /** The batch hash written at preparation. */
  hash: string;
  /** Public key fingerprint of the preparer (publicKeyFingerprint), never the key. */
  preparedBy: string;
  preparedAt: string;
  /** As read from the sheet now (rowNumber: the line's sheet row on the Approvals sheet). */
  rows: TradeRow[];
  /** Per row: the notional its side's hedge held before it, as previewed at preparation (Add / Reduce / Close; null: not known). Not in the hash. */
  notionalsBefore?: Array<number | null>;
  approvedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
}

export interface ApprovalCheck {
  batch: ApprovalBatch;
  changes: BatchChange[];
  recomputedHash: string;
  /** null: may be approved by this key; else why not (edited since preparation, same key as the preparer, not pending…). */
  refusal: string | null;
}

/** What a decision writes into a block's header line. */
export interface ApprovalDecision {
  status: ApprovalStatus;
  approvedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
}

/** The block's header titles and, on the line below, their values (one line each; "Rows" is how many rows were prepared). */
export const BATCH_TITLES = [
  "Batch id",
  "Status",
  "Batch hash",
  "Rows",
  "Prepared by",
  "Prepared at (UTC)",
  "Approved/rejected by",
  "Decided at (UTC)",
  "Reason",
] as const;
/** The titles of the block's rows, then one line per row. */
export const ROW_TITLES = [
  "Action",
  "Market",
  "Side",
  "Notional (USD)",
  "Tenor",
  "Client reference",
  "Idempotency key",
  "Row digest",
  "Notional before (USD)",
] as const;
/** Columns a block uses, from column A. */
export const APPROVAL_WIDTH = BATCH_TITLES.length;

const COL = { id: 0, status: 1, hash: 2, rows: 3, preparedBy: 4, preparedAt: 5, decidedBy: 6, decidedAt: 7, reason: 8 } as const;
const ROW_COL = { key: 6, digest: 7, notional: 3, tenor: 4, before: 8 } as const;
/** The four cells a decision writes: Status, then (after hash, rows, preparer and time) Approved/rejected by, Decided at, Reason. */
export const DECISION_COLUMNS = [COL.status, COL.decidedBy, COL.decidedAt, COL.reason] as const;

/** What the text of a cell says, trimmed ("" when empty). */
const text = (v: CellValue | undefined): string => (v === null || v === undefined ? "" : String(v).trim());
const orNull = (v: CellValue | undefined): string | null => text(v) || null;
const isTitles = (values: readonly CellValue[], first: string) => normaliseHeader(text(values[0])) === normaliseHeader(first);

/** A new batch id: the UTC day and 12 random hex digits ("AB-20261125-1a2b3c4d5e6f"); its rows' idempotency keys derive from it. */
export function newBatchId(now: Date, random: () => string): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, "");
  return `AB-${day}-${random()
    .replace(/[^0-9a-f]/gi, "")
    .slice(0, 12)
    .toLowerCase()}`;
}

/**
 * The idempotency key of a batch's row (1-based position as prepared): UUID-shaped, derived from the batch id and the
 * position, so an approval finished after a crash sends each row with the key it was first sent with.
 */
export function approvalKey(batchId: string, position: number): string {
  const h = hashOf("hedge-approval-key-v1", batchId, String(position));
  // RFC 9562 layout: version 8 (custom), variant 10xx.
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A row's digest: one group of 4 hex per field (SHA-256 of its canonical value), so a changed row names the field that changed. */
export function rowDigest(row: TradeRequest): string {
  const values = canonicalRow(row);
  return BATCH_FIELDS.map((f, i) => hashOf("hedge-row-field-v1", f, JSON.stringify(values[i])).slice(0, 4)).join("-");
}

/** The fields whose digest groups differ (all of them when the stored digest is not one the add-in writes). */
function fieldsChanged(stored: string, now: string): BatchField[] {
  const a = stored.split("-");
  const b = now.split("-");
  if (a.length !== b.length) return [...BATCH_FIELDS];
  return BATCH_FIELDS.filter((_, i) => a[i] !== b[i]);
}

/** The lines of a batch's block, as plain values (titles, header values, row titles, one line per row). */
export function blockLines(batch: Omit<ApprovalBatch, "rows"> & { rows: readonly TradeRequest[] }): CellValue[][] {
  const pad = (line: CellValue[]) => [...line, ...Array<CellValue>(APPROVAL_WIDTH - line.length).fill("")];
  const header: CellValue[] = [
    batch.id,
    batch.status,
    batch.hash,
    batch.rows.length,
    batch.preparedBy,
    batch.preparedAt,
    batch.approvedBy ?? "",
    batch.decidedAt ?? "",
    batch.reason ?? "",
  ];
  const rows = batch.rows.map((r, i) =>
    pad([
      ...[r.action, r.market, r.side, r.notional ?? "", r.tenor ?? "", r.clientReference ?? ""],
      ...[approvalKey(batch.id, i + 1), rowDigest(r), batch.notionalsBefore?.[i] ?? ""],
    ]),
  );
  return [[...BATCH_TITLES], header, pad([...ROW_TITLES]), ...rows];
}

/** Number formats of a block's cells (strings become text through the safe writer): amounts to the cent, counts and tenors whole. */
export function blockFormats(lines: readonly (readonly CellValue[])[]): string[][] {
  let inRows = false;
  return lines.map((line) => {
    const formats = line.map(() => "General");
    if (isTitles(line, BATCH_TITLES[0])) inRows = false;
    else if (isTitles(line, ROW_TITLES[0])) inRows = true;
    else if (inRows) {
      formats[ROW_COL.notional] = "#,##0.00";
      formats[ROW_COL.tenor] = "0";
      formats[ROW_COL.before] = "#,##0.00";
    } else formats[COL.rows] = "0";
    return formats;
  });
}

/** The header cells a decision writes, by column (see DECISION_COLUMNS). */
export function decisionCells(decision: ApprovalDecision): CellValue[] {
  return [decision.status, decision.approvedBy ?? "", decision.decidedAt ?? "", decision.reason ?? ""];
}

/** One row line of a block as read: where it is, and its key and digest cells. */
interface RowLine {
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
    while (end < lines.length && !isTitles(lines[end].values, BATCH_TITLES[0])) end++;
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
  };
  return { batch, titlesRow, preparedRows: Number.isInteger(count) && count > 0 ? count : null, lines, rowProblems, problems };
}

/**
 * What differs between the batch as prepared and its block now, by 1-based position: a line without one of the batch's
 * keys (or a second line with the same key) is added; a key no line carries is a row removed; a row whose digest no longer
 * matches its cells changed (the fields named), or took another row's content (moved); rows out of their prepared order moved.
 */
export function blockChanges(block: ApprovalBlock): BatchChange[] {
  const { batch, lines } = block;
  const prepared = Math.max(block.preparedRows ?? 0, 0);
  const positionOf = new Map<string, number>();
  for (let p = 1; p <= Math.max(prepared, lines.length); p++) positionOf.set(approvalKey(batch.id, p), p);
  const rowAt = new Map(batch.rows.map((r) => [r.rowNumber, r]));
  const changes: BatchChange[] = [];
  const kept: Array<{ position: number; from: number; line: RowLine; now: string | null }> = [];
  const seen = new Set<number>();
  lines.forEach((line, i) => {
    const from = positionOf.get(line.key);
    if (from === undefined || seen.has(from) || (block.preparedRows !== null && from > prepared)) {
      changes.push({ kind: "added", position: i + 1 });
      return;
    }
    seen.add(from);
    const row = rowAt.get(line.rowNumber);
    kept.push({ position: i + 1, from, line, now: row ? rowDigest(row) : null });
  });
  const total = block.preparedRows ?? Math.max(0, ...seen);
  for (let p = 1; p <= total; p++) if (!seen.has(p)) changes.push({ kind: "removed", position: p });
  const order = kept.map((k) => k.from).sort((a, b) => a - b);
  kept.forEach((k, j) => {
    if (k.now === k.line.digest) {
      if (order[j] !== k.from) changes.push({ kind: "moved", position: k.position, from: k.from });
      return;
    }
    const other = kept.find((o) => o !== k && o.line.digest === k.now);
    if (other) changes.push({ kind: "moved", position: k.position, from: other.from });
    else changes.push({ kind: "changed", position: k.position, fields: k.now === null ? [] : fieldsChanged(k.line.digest, k.now) });
  });
  return changes.sort((a, b) => a.position - b.position);
}

/** A change in a sentence: "row 2 (sheet row 14): Notional changed". */
export function describeChange(change: BatchChange, block: ApprovalBlock): string {
  const sheetRow = (position: number) => block.lines[position - 1]?.rowNumber;
  const at = (position: number) => {
    const row = sheetRow(position);
    return row === undefined ? `row ${position}` : `row ${position} (sheet row ${row})`;
  };
  switch (change.kind) {
    case "changed": {
      const problem = block.rowProblems.find((p) => p.rowNumber === sheetRow(change.position));
      if (problem) return `${at(change.position)}: ${problem.message.replace(/^Row \d+: /, "")}`;
      const fields = change.fields.map((f) => FIELD_LABELS[f]);
      return `${at(change.position)}: ${fields.length > 0 ? `${fields.join(", ")} changed` : "changed"}`;
    }
    case "added":
      return `${at(change.position)}: added (not one of the prepared rows)`;
    case "removed":
      return `row ${change.position} as prepared: removed`;
    case "moved":
      return `${at(change.position)}: moved (prepared as row ${change.from})`;
  }
}

/** Why a key may not approve this block now, in sentences; null when it may. Approve again is allowed to the approver of an approved batch (finishing it). */
export function judgeBlock(block: ApprovalBlock, approver: string): ApprovalCheck {
  const { batch } = block;
  const changes = blockChanges(block);
  const recomputedHash = batchHash(batch.rows);
  const reasons: string[] = [];
  if (block.problems.length > 0) {
    reasons.push(`Batch ${batch.id} cannot be approved: ${block.problems.join("; ")}. Ask the preparer to submit the batch again.`);
  }
  const finishing = batch.status === "approved" && batch.approvedBy === approver;
  if (batch.status !== "pending" && !finishing) reasons.push(notPending(batch));
  if (changes.length > 0 || recomputedHash !== batch.hash) {
    const which = changes.map((c) => describeChange(c, block));
    const what = which.length > 0 ? which.join("; ") : "its rows no longer match the batch hash written at preparation";
    reasons.push(
      `Batch ${batch.id} was edited since preparation: ${what}. Approval needs the rows exactly as prepared: undo the edit, or ask the preparer to submit the batch again.`,
    );
  }
  if (batch.preparedBy === approver) {
    reasons.push(
      `The key that prepared a batch cannot approve it: approval needs a second person's trading key (batch ${batch.id} was prepared by ${approver}, the key in use).`,
    );
  }
  return { batch, changes, recomputedHash, refusal: reasons.length > 0 ? reasons.join(" ") : null };
}

function notPending(batch: ApprovalBatch): string {
  const by = batch.approvedBy ? ` by ${batch.approvedBy}` : "";
  const at = batch.decidedAt ? ` at ${batch.decidedAt}` : "";
  switch (batch.status) {
    case "executed":
      return `Batch ${batch.id} was already approved${by} and executed${at}: it is never sent twice.`;
    case "approved":
      return `Batch ${batch.id} was already approved${by}${at}; only that approver can finish sending it.`;
    case "rejected":
      return `Batch ${batch.id} was rejected${by}${at}${batch.reason ? ` ("${batch.reason}")` : ""}: prepare and submit it again to trade it.`;
    default:
      return `Batch ${batch.id} is not pending.`;
  }
}

/**
 * Where a batch's block is, from the sheet's first column (0-based rows, blank cells included): [start, end), start its
 * titles line (the next line holds the id), end the next block's titles line or the column's end. null: no block has the id.
 */
export function blockSpan(firstColumn: readonly CellValue[], batchId: string): { start: number; end: number } | null {
  const id = batchId.trim();
  for (let r = 0; r + 1 < firstColumn.length; r++) {
    if (!isTitles([firstColumn[r]], BATCH_TITLES[0]) || text(firstColumn[r + 1]) !== id) continue;
    let end = r + 2;
    while (end < firstColumn.length && !isTitles([firstColumn[end]], BATCH_TITLES[0])) end++;
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

/** Whether a decision may be written over the status a block's values line holds now. */
export function statusAllows(statusCell: CellValue | undefined, from: readonly ApprovalStatus[]): boolean {
  return (from as readonly string[]).includes(text(statusCell).toLowerCase());
}

/** The error of a decision on a batch no block holds (deleted, or its Batch id cell edited). */
export function noSuchBatch(batchId: string): Error {
  return new Error(`No batch ${batchId} on the Approvals sheet: it was deleted or its Batch id cell edited.`);
}

/** The error of a decision whose batch changed status since it was checked (another approver was first): nothing written. */
export function decidedMeanwhile(batchId: string, statusCell: CellValue | undefined, from: readonly ApprovalStatus[]): Error {
  return new Error(
    `Batch ${batchId} is ${text(statusCell) || "without a status"} now, not ${from.join(" or ")}: someone decided it first, so nothing was written.`,
  );
}

/**
 * Why the block read now is not what the approver's check showed (the rows it pinned and their hash), in a sentence; null
 * when it is the same batch, the same rows and the same hash. Approve sends only what was shown.
 */
export function differsFromShown(shown: ApprovalCheck, now: ApprovalCheck): string | null {
  const same = shown.batch.id === now.batch.id && shown.batch.hash === now.batch.hash && shown.recomputedHash === now.recomputedHash;
  const changes = batchChanges(shown.batch.rows, now.batch.rows);
  if (same && changes.length === 0) return null;
  const what = changes.map(describeShownChange);
  if (shown.batch.hash !== now.batch.hash)
    what.push(`Batch hash ${shown.batch.hash.slice(0, 12)}… when checked, ${now.batch.hash.slice(0, 12)}… now`);
  if (what.length === 0) what.push("its rows were rewritten in place");
  return `Batch ${shown.batch.id} changed on the sheet since you checked it: ${what.join("; ")}. Nothing was sent: check it again and approve only what you see.`;
}

/** A change against the rows the check showed: "row 1: Side changed". */
function describeShownChange(change: BatchChange): string {
  switch (change.kind) {
    case "changed":
      return `row ${change.position}: ${change.fields.length > 0 ? `${change.fields.map((f) => FIELD_LABELS[f]).join(", ")} changed` : "changed"}`;
    case "added":
      return `row ${change.position}: added`;
    case "removed":
      return `row ${change.position} as checked: removed`;
    case "moved":
      return `row ${change.position}: moved (was row ${change.from})`;
  }
}

/** A decision as this computer's journal keeps it (src/excel/intent-store.ts): never in the workbook. */
export interface JournalledDecision {
  batchId: string;
  /** The batch hash the decision was made on. */
  hash: string;
  status: Exclude<ApprovalStatus, "pending">;
  /** The deciding key's public fingerprint. */
  by: string;
  /** When (ISO 8601 UTC). */
  at: string;
}

/** What outside the block says about a batch: this computer's journal, and the Hedge Log's rows of the batch's keys. */
export interface ApprovalRecord {
  /** This computer's decision on the batch (null: none made here). */
  journalled: JournalledDecision | null;
  /** Hedge Log rows carrying one of the batch's idempotency keys: who approved them. */
  logRows: ReadonlyArray<{ approvedBy?: string | null; loggedAt: string }>;
  /** Whether this computer has approved a batch with the key named in Prepared by. */
  preparerApprovedHere: boolean;
}

/**
 * Why the record refuses the block's status, in sentences; null when it agrees. A batch rejected or executed never becomes
 * approvable again: a decision journalled here or rows of its keys in the Hedge Log outrank the Status cell. "approved"
 * is finished only by its approver, and only where the record shows the approval (this journal, or the log's rows).
 */
export function recordRefusal(batch: ApprovalBatch, record: ApprovalRecord, approver: string): string | null {
  const reasons: string[] = [];
  const j = record.journalled;
  const final = j !== null && (j.status === "rejected" || j.status === "executed");
  // An executed mark lost with an unsaved workbook reads "approved" again: its approver may finish it (its keys are held: nothing is sent).
  const finishing = j?.status === "executed" && batch.status === "approved" && batch.approvedBy === approver && j.by === approver;
  if (final && batch.status !== j.status && !finishing) {
    reasons.push(
      `Batch ${batch.id} was ${j.status} by ${j.by} at ${j.at} (this computer's record), but its Status cell now reads "${batch.status}": a status typed back is refused. It is never approved again: prepare and submit it anew.`,
    );
  }
  const sent = record.logRows[0];
  if (sent && batch.status === "pending") {
    reasons.push(
      `Batch ${batch.id}'s rows are in the Hedge Log (approved by ${sent.approvedBy ?? "an approver"}, logged ${sent.loggedAt}), but its Status cell reads "pending": a status typed back is refused. It was approved and sent; it is never approved again.`,
    );
  }
  if (batch.status === "approved" && !final) {
    const approvedHere = j?.status === "approved" && j.by === approver;
    const loggedBy = record.logRows.some((r) => r.approvedBy === approver);
    if (batch.approvedBy === approver && !approvedHere && !loggedBy) {
      reasons.push(
        `Batch ${batch.id} reads "approved", but neither this computer's record nor the Hedge Log shows that approval: a status typed in is refused. Ask the preparer to submit the batch again.`,
      );
    }
  }
  if (record.preparerApprovedHere && batch.preparedBy !== approver) {
    reasons.push(
      `Prepared by names ${batch.preparedBy}, a key this computer has approved batches with: the preparer's name may have been typed over. Ask the preparer to submit the batch again under their own key.`,
    );
  }
  return reasons.length > 0 ? reasons.join(" ") : null;
}

/**
 * From when a hedge carrying a row's client reference counts as this batch's row done (the service asked before sending):
 * the start of the UTC day in the batch id, or Prepared at when it reads as an earlier time. Both are cells: a Prepared at
 * typed later than the truth cannot hide a hedge opened that day; a later day cannot be typed into the id without changing
 * every key the batch is sent with.
 */
export function doneSince(batch: Pick<ApprovalBatch, "id" | "preparedAt">): string | undefined {
  const day = /^AB-(\d{4})(\d{2})(\d{2})-/.exec(batch.id);
  const dayStart = day ? Date.parse(`${day[1]}-${day[2]}-${day[3]}T00:00:00Z`) : NaN;
  const prepared = Date.parse(batch.preparedAt);
  const since = Math.min(...[dayStart, prepared].filter((t) => Number.isFinite(t)));
  return Number.isFinite(since) ? new Date(since).toISOString() : undefined;
}
