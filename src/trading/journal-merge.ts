// The journal's merge on load: one row known to both the Hedge Log and this computer's journal merged (the journalled request, the more advanced state), whose missing rows are written back into this log, and a row's seal in its state now. Pure.
import type { WorkbookIdentity } from "./workbook";
import { LOG_BODY_FIELDS, LOG_SHEET_NAME, LOG_STATUS_FIELDS, type LogRecord, type LogUpdate } from "./log/hedge-log";
import { intentToLogRecord, isFinal, type Intent } from "./intent";
import type { StoredIntent } from "./intent-store";
import { finalHashOf } from "./log/log-chain";
import type { IntentStatus } from "./types";

/** Whose a journal entry is, seen from this workbook: see load(). "copy": this workbook's id under another file name. */
export type Owner = "mine" | "unknown" | "other" | "copy";

const RANK: Record<IntentStatus, number> = {
  submitting: 0,
  submitted: 1,
  needs_decision: 2,
  filled: 3,
  failed: 3,
  closed: 3,
  rejected: 3,
  not_sent: 3,
};
/** A row's result, taken whole from the log when the log is further on: the status columns the service's answer and the desk fill (not Account, Notional before, Sent at or the decision, which the merge takes field by field), and why the row was parked. */
const RESULT_FIELDS = [
  "status",
  "hedgeId",
  "orderTxHash",
  "fillTxHash",
  "struckRate",
  "filledAt",
  "errorCode",
  "message",
  "parkedFor",
] as const;

/** One row known to both, merged: the row itself, the fields its log row gets again, whether this computer's journal is written again, the body fields edited in the log. */
export interface Merged {
  intent: Intent;
  logFix: Omit<LogUpdate, "idempotencyKey">;
  storeAgain: boolean;
  edited: string[];
}

/**
 * One row known to both the log (`fromLog`, null when its row is no longer usable; `record`, its cells) and this
 * computer's journal (`stored`): the journalled request (a later edit of the log's body is reported and noted on an
 * unfinished row, never sent), the more advanced state, the facts written before the request left, the log's chain cells.
 */
export function mergeRow(fromLog: Intent | null, record: LogRecord, stored: Intent): Merged {
  if (!fromLog) {
    // The log row became unusable (a blank market, an edited status): the journal still knows the row.
    return { intent: stored, logFix: { status: stored.status, message: stored.message }, storeAgain: false, edited: ["row"] };
  }
  // What was journalled wins over a later edit of the log's body (the key is equal: the rows are matched by it; an
  // account is claimed, not compared).
  const edited = LOG_BODY_FIELDS.filter((f) => f !== "account" && (fromLog[f] ?? null) !== (stored[f] ?? null));
  stored.account ||= fromLog.account;
  const result: Intent = { ...stored };
  // The log's result wins when it is further on, or final (a final stored state is only ever equal in rank to it).
  const storeAgain = RANK[fromLog.status] > RANK[stored.status] || isFinal(fromLog.status);
  if (storeAgain) for (const f of RESULT_FIELDS) (result as unknown as Record<string, unknown>)[f] = fromLog[f];
  result.notionalBefore = stored.notionalBefore ?? fromLog.notionalBefore;
  result.sentAt = stored.sentAt ?? fromLog.sentAt;
  result.hedgeId = result.hedgeId ?? fromLog.hedgeId ?? stored.hedgeId;
  result.decision = fromLog.decision ?? stored.decision;
  result.decidedAt = fromLog.decidedAt ?? stored.decidedAt;
  // The chain's cells are the log's (the journal keeps none). A row final in the log keeps its seal as it is (a seal made
  // now over a cell edited since would hide the edit); one the journal knows final and the log not yet gets it now.
  result.prevHash = fromLog.prevHash;
  result.rowHash = fromLog.rowHash;
  result.finalHash = isFinal(fromLog.status) ? fromLog.finalHash : sealOf(result);
  // The log gets whatever the merge knows better than its row.
  const logFix: Omit<LogUpdate, "idempotencyKey"> = {};
  for (const f of LOG_STATUS_FIELDS) {
    // An empty cell reads as null (cellsToLogRecord); the status of a usable row is never empty.
    const mine = (result as unknown as Record<string, unknown>)[f] ?? null;
    if (mine !== (record[f] ?? null)) (logFix as Record<string, unknown>)[f] = mine;
  }
  if (edited.length > 0 && !isFinal(result.status)) {
    const note = `The ${LOG_SHEET_NAME} row was edited (${edited.join(", ")}): the add-in keeps what it journalled and sent.`;
    result.message = result.message?.includes(note) ? result.message : `${note} ${result.message ?? ""}`.trim();
    logFix.message = result.message;
  }
  return { intent: result, logFix, storeAgain, edited };
}

/**
 * Whose an entry is: this workbook's (its id, under this file's name or a name Excel did not know, in a log that is that
 * workbook's: see ownLog), a copy's (this id journalled under another file name, or in a file whose log is not that
 * workbook's: a Save As, a copied file or a file given the id carries it, so the user says which file the rows belong
 * to), of no known workbook (journalled before ids were kept), or another's.
 */
export function ownerOf(e: StoredIntent, me: WorkbookIdentity, ownLog: boolean): Owner {
  if (!e.workbookId) return "unknown";
  if (e.workbookId !== me.id) return "other";
  return !ownLog || (e.workbookName && me.name && e.workbookName !== me.name) ? "copy" : "mine";
}

/**
 * Whether this file's Hedge Log is the one this computer wrote its rows of this workbook id into: it holds one of them, or
 * a row one of them was appended after (its anchor: a row pruned from the journal since), or this session is working on
 * one. A file carrying the id whose log holds none of them (a copy saved before them under the same name, a file given
 * the id, one never saved) is not: nothing is written into it unasked. The workbook itself, closed without saving since
 * its last save held none of them, asks too.
 */
export function ownLogOf(
  stored: readonly StoredIntent[],
  present: ReadonlySet<string>,
  me: WorkbookIdentity,
  live: (idempotencyKey: string) => Intent | undefined,
): boolean {
  return stored.some(
    (e) =>
      e.workbookId === me.id &&
      (present.has(e.record.idempotencyKey) || (e.anchor !== null && present.has(e.anchor)) || live(e.record.idempotencyKey) !== undefined),
  );
}

/** How "not this file's rows" is remembered for a copy (the entry's dismissedIn): the id alone is every copy's. */
export function copyMark(me: WorkbookIdentity): string {
  return `${me.id} as ${me.name ?? ""}`;
}

/**
 * Another workbook's row that may be this one's all the same: this file has the same name and got its id only now (it had
 * none when opened), as a workbook closed without saving after its first trades loses the id with the rows. The user says.
 */
export function mayBeMine(e: StoredIntent, me: WorkbookIdentity): boolean {
  return me.fresh === true && me.name !== null && e.workbookName === me.name;
}

/**
 * The missing entries written back into this log without asking: this workbook's unfinished rows, its rows appended after
 * a row this log holds (or gets back) and the rows those were appended after; of no known workbook, only rows tied to this
 * log by their anchors; another workbook's, or this id's under another file name or in a log that is not its (a copy), never. A row this session is working on (`live`) is this workbook's.
 */
export function writtenBack(
  missing: readonly StoredIntent[],
  present: ReadonlySet<string>,
  me: WorkbookIdentity,
  live: (idempotencyKey: string) => Intent | undefined,
  ownLog: boolean,
): Set<string> {
  const back = new Set<string>();
  const inLog = (k: string | null) => k !== null && (present.has(k) || back.has(k));
  for (let changed = true; changed;) {
    changed = false;
    for (const e of missing) {
      const key = e.record.idempotencyKey;
      const owner = ownerOf(e, me, ownLog);
      if (back.has(key) || owner === "other" || owner === "copy") continue;
      const after = missing.some((o) => o.anchor === key && back.has(o.record.idempotencyKey));
      const unfinishedHere = owner === "mine" && !isFinal(e.record.status);
      if (unfinishedHere || live(key) || inLog(e.anchor) || after) {
        back.add(key);
        changed = true;
      }
    }
  }
  return back;
}

/** The seal of a row in its state now: once final and linked, finalHashOf over its final state; before, none. */
export function sealOf(intent: Intent): string | null {
  return isFinal(intent.status) && intent.rowHash ? finalHashOf(intent.rowHash, intentToLogRecord(intent)) : null;
}
