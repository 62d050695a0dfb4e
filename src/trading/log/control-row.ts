// A control row of the Hedge Log: a change of a control (the workbook's "LIVE trades need approval", a standing roll instruction approved or revoked) as a row of its own kind (Action `control`, Status `recorded`), chained and sealed like any row, never a trade; made here and read back here.
import { PUBLIC_FINGERPRINT } from "../../api/environment";
import type { LogRecord } from "./log-columns";

/** A control row's Action. */
export const CONTROL_ACTION = "control";
/** A control row's Status: final at once (its seal is written with it), never a trade's state. */
export const CONTROL_STATUS = "recorded";

/** The controls a row may record, as the Market cell names them. */
export const CONTROLS = {
  /** The workbook's "LIVE trades need approval" (its values: `on`, `off`). */
  liveApproval: "LIVE trades need approval",
  /** A standing roll instruction (its values: `pending`, `approved`, `revoked`). */
  rollInstruction: "Roll instruction",
} as const;

/** Between the value before and the value after, in the Client reference cell. */
const ARROW = " → ";

/** One change of a control, as recorded. */
export interface ControlChange {
  /** Which control (a CONTROLS value): the Market cell. */
  control: string;
  /** The value before and after (`on` → `off`; `approved` → `revoked`): the Client reference cell, `from → to`. */
  from: string;
  to: string;
  /** Who made it: the public fingerprint of the key in use (never the key): the Approved by cell. */
  by: string;
  /** When (ISO 8601 UTC): Logged at. */
  at: string;
  environment: string;
  account: string | null;
  /** The hash of what the control is about (a roll instruction's): the Batch hash cell; null for a setting. */
  hash: string | null;
  /** Who prepared what it is about (a roll instruction's preparer): the Prepared by cell; null for a setting. */
  preparedBy: string | null;
  /** The sentence the Message cell shows. */
  message: string;
}

/** Whether a log row is a control row (any case, spaces around): every reader of trades leaves it out. */
export function isControlRecord(record: Pick<LogRecord, "action">): boolean {
  return (
    String(record.action ?? "")
      .trim()
      .toLowerCase() === CONTROL_ACTION
  );
}

/**
 * The log row of a change, under its own idempotency key (the row's identity in the log; nothing is sent with it). A
 * `by` or `preparedBy` that is not a public fingerprint (a key typed where a fingerprint belongs) is refused, naming it.
 */
export function controlRecord(change: ControlChange, idempotencyKey: string): LogRecord {
  for (const [field, value] of [
    ["by", change.by],
    ["preparedBy", change.preparedBy],
  ] as const)
    if (value !== null && !PUBLIC_FINGERPRINT.test(value))
      throw new Error(
        `A control row's ${field} must be a key's public fingerprint (fp- and 16 hex), never the key: got ${value.length} characters.`,
      );
  if (change.from.includes(ARROW) || change.to.includes(ARROW)) throw new Error(`A control's values may not contain "${ARROW.trim()}".`);
  return {
    loggedAt: change.at,
    environment: change.environment,
    action: CONTROL_ACTION,
    market: change.control,
    side: "",
    notional: null,
    tenor: null,
    clientReference: `${change.from}${ARROW}${change.to}`,
    idempotencyKey,
    status: CONTROL_STATUS,
    hedgeId: null,
    orderTxHash: null,
    fillTxHash: null,
    struckRate: null,
    filledAt: null,
    errorCode: null,
    message: change.message,
    account: change.account,
    notionalBefore: null,
    sentAt: null,
    decision: null,
    decidedAt: null,
    batchHash: change.hash,
    preparedBy: change.preparedBy,
    approvedBy: change.by,
  };
}

/** A control row read back as its change; null for a row that is not one (a trade). Cells typed by hand read as they stand. */
export function readControl(record: LogRecord): ControlChange | null {
  if (!isControlRecord(record)) return null;
  const change = record.clientReference ?? "";
  const cut = change.indexOf(ARROW);
  return {
    control: record.market,
    from: cut < 0 ? "" : change.slice(0, cut),
    to: cut < 0 ? change : change.slice(cut + ARROW.length),
    by: record.approvedBy ?? "",
    at: record.loggedAt,
    environment: record.environment,
    account: record.account ?? null,
    hash: record.batchHash ?? null,
    preparedBy: record.preparedBy ?? null,
    message: record.message ?? "",
  };
}
