// Admission: what of a preview may be sent now — the preview's environment and blockers, an approval checked field by field, the approved keys already sent (this computer's journal, then the log), and each line admitted or skipped with the reason.
import type { Environment } from "../../api/environment";
import { usableKey } from "../intent";
import { laneOf } from "../fills";
import type { LogQuery, LogRecord } from "../log/hedge-log";
import type { Preview, SendApproval, SendOptions, SendResult, TradeRow } from "../types";
import { when } from "./context";

/** Why a line of an approved batch is not sent: its key is already in this computer's journal or the log. */
export const ALREADY_SENT = "already sent: see Resume";

/** A line that goes now, with its place in the preview (an approval's key is taken by that place). */
export interface Admitted {
  row: TradeRow;
  index: number;
}

/** What admission reads: this computer's journal (its rows, and whether it holds a key) and the log, asked by keys only. */
export interface AdmissionSources {
  records(): LogRecord[];
  journalledHere(idempotencyKey: string): boolean;
  readLog(query: LogQuery): Promise<LogRecord[]>;
}

/**
 * A preview that cannot be sent at all, before anything is journalled or sent: made for another environment, with a
 * blocker, or under an approval that is not whole (a clear error naming the field and the fix).
 */
export function refuseUnsendable(preview: Preview, environment: Environment, approval: SendApproval | undefined): void {
  if (preview.environment !== environment) {
    throw new Error(
      `This preview was made for ${preview.environment}, but the desk trades in ${environment}: preview again. Nothing was sent.`,
    );
  }
  if (preview.blockers.length > 0) throw new Error(`Nothing was sent: ${preview.blockers.join(" ")}`);
  if (approval) checkApproval(approval, preview.lines.length);
}

/** An approval that cannot be sent as given: a clear error naming the field and the fix, before anything is journalled or sent. */
export function checkApproval(approval: SendApproval, lines: number): void {
  for (const field of ["batchHash", "preparedBy", "approvedBy"] as const)
    if (typeof approval[field] !== "string" || approval[field].trim() === "")
      throw new Error(
        `SendOptions.approval.${field} is empty: send the batch as approved (its hash and both fingerprints). Nothing was sent.`,
      );
  const keys = approval.idempotencyKeys;
  if (keys === undefined) return;
  if (keys.length !== lines)
    throw new Error(
      `SendOptions.approval.idempotencyKeys has ${keys.length} key(s) for ${lines} preview line(s): give one per line, in order. Nothing was sent.`,
    );
  const bad = keys.findIndex((k) => !usableKey(k));
  if (bad >= 0)
    throw new Error(`SendOptions.approval.idempotencyKeys[${bad}] is not a usable key (empty, or spaces around it): nothing was sent.`);
  if (new Set(keys).size !== keys.length)
    throw new Error("SendOptions.approval.idempotencyKeys holds the same key twice: each line needs its own. Nothing was sent.");
}

/**
 * The approval's keys this computer's journal or the log already holds: those lines were sent before (a batch approved
 * again after a crash) and are never sent again. The log is asked for the keys alone (its key column, not its rows).
 */
export async function keysHeld(sources: AdmissionSources, keys: readonly string[]): Promise<Set<string>> {
  const known = new Set(sources.records().map((r) => r.idempotencyKey));
  const held = new Set(keys.filter((k) => known.has(k) || sources.journalledHere(k)));
  const ask = keys.filter((k) => !held.has(k));
  if (ask.length > 0) for (const r of await sources.readLog({ keys: ask })) held.add(r.idempotencyKey); // the rows of those keys only
  return held;
}

/**
 * The preview's lines that go now (with their place in the preview), and the others with the reason (a key already
 * sent, blockers, a side that waits, a duplicate). `busy`: the market sides that wait, and whether they hold new rows back.
 * `blocked`: the skipped lines whose only reason is their preview blockers (an approved batch's line another approval
 * already did reads "no open position" or "already open": the desk asks the service before leaving it skipped).
 */
export function sendable(
  preview: Preview,
  options: SendOptions,
  held: ReadonlySet<string>,
  busy: ReadonlyMap<string, { reason: string; blocking: boolean }>,
): { lines: Admitted[]; blocked: Admitted[]; skipped: SendResult["skipped"] } {
  const skipped: SendResult["skipped"] = [];
  const lines: Admitted[] = [];
  const blocked: Admitted[] = [];
  for (const [index, line] of preview.lines.entries()) {
    const waiting = busy.get(laneOf(line.row));
    const key = options.approval?.idempotencyKeys?.[index];
    if (key !== undefined && held.has(key)) skipped.push({ rowNumber: line.row.rowNumber, reason: ALREADY_SENT });
    else if (line.blockers.length > 0) {
      skipped.push({ rowNumber: line.row.rowNumber, reason: line.blockers.join(" ") });
      blocked.push({ row: line.row, index });
    } else if (waiting?.blocking) skipped.push({ rowNumber: line.row.rowNumber, reason: waiting.reason });
    else if (line.duplicateOf && !options.sendAgain) {
      skipped.push({
        rowNumber: line.row.rowNumber,
        reason: `Already in the log (${line.duplicateOf.status}, logged ${when(line.duplicateOf.loggedAt)}, key ${line.duplicateOf.idempotencyKey}): tick "send again" to send it anyway.`,
      });
    } else lines.push({ row: line.row, index });
  }
  return { lines, blocked, skipped };
}
