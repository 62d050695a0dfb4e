// The Hedge Log's columns: the one list (header, format, width, which part of a row each is, the chain form that covers it) that the log's schema, the intent, this computer's journal, the hash chain and the workbook adapters derive from, and the record its cells make.

/** What the service answered for a row: kept alike by the log record and the intent. */
export interface RowOutcome {
  hedgeId: string | null;
  orderTxHash: string | null;
  fillTxHash: string | null;
  struckRate: number | null;
  filledAt: string | null;
  errorCode: string | null;
  message: string | null;
}

/** What the journal records about a row beyond the service's answer: kept alike by the log record (columns added after its first version, so optional there) and the intent. */
export interface RowJournal {
  /**
   * The account the row was sent for: the account_address of GET /account for the key in use. Idempotency keys are per
   * API key, so a row is only ever resumed or counted as a duplicate by the same account. Empty in logs written before
   * this column existed (such rows count for any account of their environment).
   */
  account: string | null;
  /**
   * Add / Reduce / Close: the hedge's notional (USD) just before this action was sent, read from the service and written
   * here before the request left. With the decrease/close records of history it tells whether the action took effect.
   */
  notionalBefore: number | null;
  /** When the first request of this row left (written before it left); empty: the row was never sent. */
  sentAt: string | null;
  /** The user's decision on a row that needed one: "done" (adopted what the service shows) or "not done". */
  decision: string | null;
  /** When the user decided (ISO 8601 UTC). */
  decidedAt: string | null;
}

/** The approval a row was sent under (empty for a direct trade): written with the row, never changed after. */
export interface RowApproval {
  /** The approval batch's hash (src/trading/approvals/batch-hash.ts). */
  batchHash: string | null;
  /** The preparer's public key fingerprint (never the key). */
  preparedBy: string | null;
  /** The approver's public key fingerprint (never the key). */
  approvedBy: string | null;
}

/** The row's links in the log's hash chain (src/trading/log/log-chain.ts): written by the journal, never by the user. */
export interface RowChain {
  /** The link of the row written before it in this log (CHAIN_START for the first). */
  prevHash: string | null;
  /** This row's link: rowHashOf(prevHash, its body). */
  rowHash: string | null;
  /** Once final: finalHashOf(rowHash, its final state), written with the final status. */
  finalHash: string | null;
}

/**
 * One row of the "Hedge Log" table: one action on one selected row. Times are ISO 8601 UTC strings. The request's
 * fields are those of a TradeRequest (src/trading/types.ts) as read back from cells, so loosely typed: a user may have
 * typed anything there, and readers check them (isIntentStatus, ACTIONS…) before trusting them.
 */
export interface LogRecord extends RowOutcome, Partial<RowJournal>, Partial<RowApproval>, Partial<RowChain> {
  loggedAt: string;
  /** "sandbox" or "production". */
  environment: string;
  /** "open", "add", "reduce" or "close". */
  action: string;
  market: string;
  side: string;
  /** Open: notional; Add: additional notional; Reduce: reduced notional; Close: null. USD. */
  notional: number | null;
  tenor: number | null;
  clientReference: string | null;
  /** Unique per row: the row's identity in the log and the request's Idempotency-Key. */
  idempotencyKey: string;
  /** submitting | submitted | needs_decision | filled | failed | closed | rejected | not_sent */
  status: string;
}

/**
 * One column of the log. `part` says what it holds, and so who writes it and what keeps it:
 * - "body": written with the row and never changed after (what was journalled and sent, the approval): the row's link
 *   (Row hash) covers it, the journal keeps it over a later edit of the log (LOG_BODY_FIELDS);
 * - "outcome": updated until the row is final (the service's answer, what was written before the request left, the
 *   user's decision): the seal (Final hash) covers it, status updates may set it (LOG_STATUS_FIELDS);
 * - "link": the hash chain's own cells, the log's alone: this computer's journal keeps none of them (a row written back
 *   from it is a new link).
 * The intent carries every column; this computer's journal keeps every column but the links.
 */
export type LogColumn = {
  field: keyof LogRecord;
  header: string;
  kind: "text" | "date" | "usd" | "int" | "rate";
  /** Excel number format; "@" is text (so hashes and keys are never turned into numbers). */
  numberFormat: string;
  /** Column width in points. */
  width: number;
  /** A body or link column that status updates may still set (the Account, claimed on a row of an older log; the Final hash, written with the final status). */
  updatable?: true;
} & (
  | {
      part: "body" | "outcome";
      /**
       * The version of the chain's canonical form (log-chain.ts) from which on the row's link (a body column) or seal (an
       * outcome column) covers it: 1 for the columns the chain started with. A new column takes the next version
       * (chainVersion() + 1), which makes that form; never change it on a column logs already hold (every old link or
       * seal would break).
       */
      chain: number;
    }
  | { part: "link" }
);

/**
 * The log table's columns in order. Only ever append (an older log gets a missing column appended by name, and this
 * computer's journal stores a row's values in this order): a new column is one line here (and its field's type in
 * the interface of its part above); src/README.md, "A new Hedge Log column".
 */
export const LOG_COLUMNS = [
  { field: "loggedAt", header: "Logged at (UTC)", kind: "date", numberFormat: "yyyy-mm-dd hh:mm:ss", width: 120, part: "body", chain: 1 },
  { field: "environment", header: "Environment", kind: "text", numberFormat: "@", width: 70, part: "body", chain: 1 },
  { field: "action", header: "Action", kind: "text", numberFormat: "@", width: 50, part: "body", chain: 1 },
  { field: "market", header: "Market", kind: "text", numberFormat: "@", width: 60, part: "body", chain: 1 },
  { field: "side", header: "Side", kind: "text", numberFormat: "@", width: 35, part: "body", chain: 1 },
  { field: "notional", header: "Notional (USD)", kind: "usd", numberFormat: "#,##0.00", width: 90, part: "body", chain: 1 },
  { field: "tenor", header: "Tenor (days)", kind: "int", numberFormat: "0", width: 60, part: "body", chain: 1 },
  { field: "clientReference", header: "Client reference", kind: "text", numberFormat: "@", width: 100, part: "body", chain: 1 },
  { field: "idempotencyKey", header: "Idempotency key", kind: "text", numberFormat: "@", width: 210, part: "body", chain: 1 },
  { field: "status", header: "Status", kind: "text", numberFormat: "@", width: 65, part: "outcome", chain: 1 },
  { field: "hedgeId", header: "Hedge id", kind: "text", numberFormat: "@", width: 110, part: "outcome", chain: 1 },
  { field: "orderTxHash", header: "Order tx hash", kind: "text", numberFormat: "@", width: 140, part: "outcome", chain: 1 },
  { field: "fillTxHash", header: "Fill tx hash", kind: "text", numberFormat: "@", width: 140, part: "outcome", chain: 1 },
  { field: "struckRate", header: "Struck rate", kind: "rate", numberFormat: "#,##0.0000", width: 75, part: "outcome", chain: 1 },
  {
    field: "filledAt",
    header: "Filled at (UTC)",
    kind: "date",
    numberFormat: "yyyy-mm-dd hh:mm:ss",
    width: 120,
    part: "outcome",
    chain: 1,
  },
  { field: "errorCode", header: "Error code", kind: "text", numberFormat: "@", width: 110, part: "outcome", chain: 1 },
  { field: "message", header: "Message", kind: "text", numberFormat: "@", width: 300, part: "outcome", chain: 1 },
  // Appended after the first release: older logs lack them and get them added at the end (never reordered).
  { field: "account", header: "Account", kind: "text", numberFormat: "@", width: 150, part: "body", chain: 1, updatable: true },
  {
    field: "notionalBefore",
    header: "Notional before (USD)",
    kind: "usd",
    numberFormat: "#,##0.00",
    width: 100,
    part: "outcome",
    chain: 1,
  },
  { field: "sentAt", header: "Sent at (UTC)", kind: "date", numberFormat: "yyyy-mm-dd hh:mm:ss", width: 120, part: "outcome", chain: 1 },
  { field: "decision", header: "Decision", kind: "text", numberFormat: "@", width: 200, part: "outcome", chain: 1 },
  {
    field: "decidedAt",
    header: "Decided at (UTC)",
    kind: "date",
    numberFormat: "yyyy-mm-dd hh:mm:ss",
    width: 120,
    part: "outcome",
    chain: 1,
  },
  // Issue 24: the approval a row was sent under, and the log's hash chain (log-chain.ts).
  { field: "batchHash", header: "Batch hash", kind: "text", numberFormat: "@", width: 140, part: "body", chain: 1 },
  { field: "preparedBy", header: "Prepared by", kind: "text", numberFormat: "@", width: 130, part: "body", chain: 1 },
  { field: "approvedBy", header: "Approved by", kind: "text", numberFormat: "@", width: 130, part: "body", chain: 1 },
  { field: "prevHash", header: "Prev hash", kind: "text", numberFormat: "@", width: 140, part: "link" },
  { field: "rowHash", header: "Row hash", kind: "text", numberFormat: "@", width: 140, part: "link" },
  { field: "finalHash", header: "Final hash", kind: "text", numberFormat: "@", width: 140, part: "link", updatable: true },
] as const satisfies readonly LogColumn[];

/** A field of the log (a column's). */
export type LogField = (typeof LOG_COLUMNS)[number]["field"];
/** The fields of a row's body (part "body"). */
export type LogBodyField = Extract<(typeof LOG_COLUMNS)[number], { part: "body" }>["field"];
/** The fields status updates may set: every outcome column, and the body and link columns marked updatable. */
export type LogStatusField = Extract<(typeof LOG_COLUMNS)[number], { part: "outcome" } | { updatable: true }>["field"];
