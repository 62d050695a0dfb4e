// The approval batch's hash: SHA-256 over the preparer's environment, account and time and a canonical form of its rows in order, and, against the rows as prepared, what changed since (which row, which field).
import type { Environment } from "../../api/environment";
import { hashOf } from "../log/digest";
import type { TradeRequest } from "../types";

/** The fields of a row the hash covers, in this order. */
export const BATCH_FIELDS = ["action", "market", "side", "notional", "tenor", "clientReference"] as const;
export type BatchField = (typeof BATCH_FIELDS)[number];
const FIELDS = BATCH_FIELDS;
type Field = BatchField;

/** A row's canonical values: the amount to the cent as text, empty values null, text as typed (trimmed). */
export function canonicalRow(row: TradeRequest): Array<string | number | null> {
  return FIELDS.map((f) => {
    const v = row[f];
    if (v === null || v === undefined || v === "") return null;
    if (f === "notional") return (Math.round((v as number) * 100) / 100).toFixed(2);
    return typeof v === "string" ? v.trim() : v;
  });
}

/** The canonical text of a batch: one JSON array per row, in order, one per line. */
export function canonicalBatch(rows: readonly TradeRequest[]): string {
  return rows.map((r) => JSON.stringify(canonicalRow(r))).join("\n");
}

/** Where and when a batch was prepared: the preparer's environment and account address (null: not known) and Prepared at. */
export interface BatchBinding {
  environment: Environment;
  account: string | null;
  preparedAt: string;
}

/**
 * The batch hash (hex): what an approver's copy of the rows must match, row for row, to be approved. With its binding
 * (every batch prepared since issue 40), the preparer's environment, account address and Prepared at are hashed with
 * the rows ("hedge-batch-v2"): a block moved to another environment or account, or its time typed later, no longer
 * matches. Without (a block written before), the rows alone ("hedge-batch-v1").
 */
export function batchHash(rows: readonly TradeRequest[], binding: BatchBinding | null = null): string {
  if (binding === null) return hashOf("hedge-batch-v1", canonicalBatch(rows));
  return hashOf("hedge-batch-v2", binding.environment, binding.account ?? "", binding.preparedAt, canonicalBatch(rows));
}

export type BatchChange =
  | { kind: "changed"; position: number; fields: Field[] }
  | { kind: "added"; position: number }
  | { kind: "removed"; position: number }
  | { kind: "moved"; position: number; from: number };

/**
 * What differs between the rows as prepared and as read now, by 1-based position in the batch: rows moved (the same row
 * at another place), removed, added, or changed in place (the fields named). Empty: the batch is as prepared.
 */
export function batchChanges(prepared: readonly TradeRequest[], now: readonly TradeRequest[]): BatchChange[] {
  const text = (r: TradeRequest) => JSON.stringify(canonicalRow(r));
  const wanted = prepared.map(text);
  const found = now.map(text);
  const changes: BatchChange[] = [];
  const used = new Set<number>();
  found.forEach((t, i) => {
    if (wanted[i] === t) {
      used.add(i);
      return;
    }
    const from = wanted.findIndex((w, j) => w === t && found[j] !== w && !used.has(j));
    if (from >= 0) {
      used.add(from);
      changes.push({ kind: "moved", position: i + 1, from: from + 1 });
    } else if (i < prepared.length && !found.includes(wanted[i])) {
      used.add(i);
      const a = canonicalRow(prepared[i]);
      const b = canonicalRow(now[i]);
      changes.push({ kind: "changed", position: i + 1, fields: FIELDS.filter((_, k) => a[k] !== b[k]) });
    } else changes.push({ kind: "added", position: i + 1 });
  });
  wanted.forEach((_, j) => {
    if (!used.has(j) && !found.includes(wanted[j])) changes.push({ kind: "removed", position: j + 1 });
  });
  return changes;
}
