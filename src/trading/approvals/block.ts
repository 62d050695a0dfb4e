// A batch's block on the Approvals sheet as the add-in writes it (pure): the titles and columns, the batch id, the rows' idempotency keys and digests, the lines and their number formats.
import type { Environment } from "../../api/environment";
import { BATCH_FIELDS, canonicalRow, type BatchBinding } from "./batch-hash";
import type { CellValue } from "../cells";
import { hashOf } from "../log/digest";
import { normaliseHeader } from "../rows";
import type { TradeRequest, TradeRow } from "../types";

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
  /** The preparer's environment (in the hash); null or absent: a block written before batches were bound to one. */
  environment?: Environment | null;
  /** The preparer's account address (in the hash; null: not known when prepared). */
  account?: string | null;
}

/** What the batch hash binds the rows to (batch-hash.ts); null for a block written before (no Environment cell). */
export function bindingOf(batch: Pick<ApprovalBatch, "environment" | "account" | "preparedAt">): BatchBinding | null {
  if (!batch.environment) return null;
  return { environment: batch.environment, account: batch.account ?? null, preparedAt: batch.preparedAt };
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
  "Environment",
  "Account",
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

/** A block's header columns, 0-based. */
export const COL = {
  id: 0,
  status: 1,
  hash: 2,
  rows: 3,
  preparedBy: 4,
  preparedAt: 5,
  decidedBy: 6,
  decidedAt: 7,
  reason: 8,
  environment: 9,
  account: 10,
} as const;
/** A row line's columns read by position (its key and digest; the amount and tenor formatted). */
export const ROW_COL = { key: 6, digest: 7, notional: 3, tenor: 4, before: 8 } as const;

/** What the text of a cell says, trimmed ("" when empty). */
export const text = (v: CellValue | undefined): string => (v === null || v === undefined ? "" : String(v).trim());
/** A cell's text, null when empty. */
export const orNull = (v: CellValue | undefined): string | null => text(v) || null;
/** Whether a line is a titles line (its first cell reads as `first`). */
export const isTitles = (values: readonly CellValue[], first: string) => normaliseHeader(text(values[0])) === normaliseHeader(first);
/** The first title of a standing roll instruction's block (roll-instruction.ts): a block of its own kind on the same sheet. */
export const INSTRUCTION_ID_TITLE = "Roll instruction id";
/** The first title of its terms line (Market, Side, Until, Max per hedge, Tenors). */
export const INSTRUCTION_TERMS_TITLE = "Market";
/** Whether a line starts a block of either kind (a batch's, a roll instruction's): a block runs to the next one. */
export const isBlockStart = (values: readonly CellValue[]) => isTitles(values, BATCH_TITLES[0]) || isTitles(values, INSTRUCTION_ID_TITLE);
/** A status a block's values line may hold: a batch's, or a roll instruction's `revoked`. */
export type BlockStatus = ApprovalStatus | "revoked";

/** A new batch id: the UTC day and 12 random hex digits ("AB-20261125-1a2b3c4d5e6f"); its rows' idempotency keys derive from it. */
export function newBatchId(now: Date, random: () => string): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, "");
  return `AB-${day}-${random()
    .replace(/[^0-9a-f]/gi, "")
    .slice(0, 12)
    .toLowerCase()}`;
}

/** The start (epoch ms) of the UTC day a batch id names ("AB-20261125-…", or a roll instruction's "RI-…"); NaN when the id is not of that form. */
export function batchDayStart(batchId: string): number {
  // A roll instruction's id ("RI-20261125-…") names its day the same way.
  const day = /^(?:AB|RI)-(\d{4})(\d{2})(\d{2})-/.exec(batchId);
  return day ? Date.parse(`${day[1]}-${day[2]}-${day[3]}T00:00:00Z`) : NaN;
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

/** The lines of a batch's block, as plain values (titles, header values, row titles, one line per row), each APPROVAL_WIDTH wide. */
export function blockLines(batch: Omit<ApprovalBatch, "rows"> & { rows: readonly TradeRequest[] }): CellValue[][] {
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
    batch.environment ?? "",
    batch.account ?? "",
  ];
  const rows = batch.rows.map((r, i) => [
    ...[r.action, r.market, r.side, r.notional ?? "", r.tenor ?? "", r.clientReference ?? ""],
    ...[approvalKey(batch.id, i + 1), rowDigest(r), batch.notionalsBefore?.[i] ?? ""],
    ...Array<CellValue>(APPROVAL_WIDTH - ROW_TITLES.length).fill(""),
  ]);
  const rowTitles = [...ROW_TITLES, ...Array<CellValue>(APPROVAL_WIDTH - ROW_TITLES.length).fill("")];
  return [[...BATCH_TITLES], header, rowTitles, ...rows];
}

/** Number formats of a block's cells (strings become text through the safe writer): amounts to the cent, counts and tenors whole. */
export function blockFormats(lines: readonly (readonly CellValue[])[]): string[][] {
  let inRows = false;
  let terms = false;
  return lines.map((line) => {
    const formats = line.map(() => "General");
    if (isBlockStart(line)) [inRows, terms] = [false, false];
    else if (isTitles(line, ROW_TITLES[0])) inRows = true;
    else if (isTitles(line, INSTRUCTION_TERMS_TITLE)) terms = true;
    else if (terms)
      formats[ROW_COL.notional] = "#,##0.00"; // a roll instruction's Max per hedge (USD)
    else if (inRows) {
      formats[ROW_COL.notional] = "#,##0.00";
      formats[ROW_COL.tenor] = "0";
      formats[ROW_COL.before] = "#,##0.00";
    } else formats[COL.rows] = "0";
    return formats;
  });
}
