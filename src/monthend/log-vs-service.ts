// Month end's check of the Hedge Log against the service: each cell of a row the service also knows (hedge id, status, notional, rate, transactions, times, account), and the service's actions after the newest row (rows cut off the end), each finding at its sheet row.
import type { ClosedHedge, Hedge } from "../api/schemas";
import { utcMs } from "../api/time";
import { sameAccount } from "../trading/duplicates";
import type { LogRecord } from "../trading/log/hedge-log";
import { CLOCK_SKEW_MS } from "../trading/verdict";
import type { PlacedLogRow } from "../trading/workbook";
import {
  CENT,
  EFFECTIVE,
  NEVER_HAPPENED,
  PENDING,
  usd,
  type ServiceFindingKind,
  type ServiceLine,
  type ServiceReport,
} from "./recon-model";

export interface ServiceCheckInput {
  /** Every row read, in its place (sheet, row). */
  rows: readonly PlacedLogRow[];
  environment: string;
  accountAddress: string | null;
  /** The service's hedges read (fetchMonthData). */
  hedges: readonly Hedge[];
  /** The service's closed-hedge records read (from the month's start). */
  history: readonly ClosedHedge[];
  hedgesComplete: boolean;
}

/** How each kind reads on the sheet. */
export const SERVICE_KIND_LABELS: Readonly<Record<ServiceFindingKind, string>> = {
  differs: "Differs from the service",
  logged_after: "Logged after the service acted",
  cut_off: "Rows cut off the end",
};

/** How long after a row was logged its action may still complete at the service (a few seconds as a rule; a retry within the doubt limit). */
export const ACTION_WINDOW_MS = 10 * 60_000;

/**
 * Rates equal as the service gives them: up to the last binary digits of a double read back from a cell (a cell keeps 15
 * significant digits, so 1e-12 of the rate is far above what a read-back moves and far below a digit the service gives).
 */
const sameRate = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));
/** Times equal to the second (what a cell keeps of a time). */
const sameSecond = (a: string, b: string) => Math.round(utcMs(a) / 1000) === Math.round(utcMs(b) / 1000);
const sameText = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
const shown = (v: unknown) => (v === null || v === undefined || v === "" ? "(empty)" : String(v));

/**
 * Compares the log with the service. Rows of this environment and account whose hedge the service showed (by the row's
 * hedge id) are compared cell by cell; rows of another account that name one of this account's hedges are flagged at
 * their Account; and the service's actions after the newest row of the log are rows cut off its end.
 */
export function checkLogAgainstService(input: ServiceCheckInput): ServiceReport {
  const env = input.environment.toLowerCase();
  const byId = new Map(input.hedges.map((h) => [h.id, h]));
  const rows = input.rows.filter((p) => p.record.idempotencyKey.trim() !== "" && String(p.record.environment).toLowerCase() === env);
  const own = rows.filter((p) => sameAccount(p.record.account, input.accountAddress));
  const ownSet = new Set(own);
  const lines: ServiceLine[] = [];
  let compared = 0;
  const added = changedHedges(own, ["add"]);
  const changed = changedHedges(own, ["add", "reduce", "close"]);
  for (const p of own) {
    const h = p.record.hedgeId ? byId.get(p.record.hedgeId) : undefined;
    if (!h) continue;
    compared++;
    lines.push(...rowLines(p, h, { added: added.has(h.id), changed: changed.has(h.id) }));
  }
  for (const p of rows) if (!ownSet.has(p)) lines.push(...accountLines(p, byId, input.accountAddress));
  lines.push(...cutOffLines(own, input.hedges, input.history));
  return { compared, complete: input.hedgesComplete, lines };
}

/**
 * The hedges a row of these actions may have changed (any not failed, rejected or not sent): after an add the service's
 * struck rate is a blend, no longer the open's; after any of them its notional is no longer the open's.
 */
function changedHedges(rows: readonly PlacedLogRow[], actions: readonly string[]): Set<string> {
  return new Set(
    rows.filter((p) => actions.includes(p.record.action) && !NEVER_HAPPENED.has(p.record.status)).map((p) => p.record.hedgeId ?? ""),
  );
}

/** What the log says happened to a hedge after its open. */
interface HedgeChanges {
  added: boolean;
  changed: boolean;
}

/** A line at a row. */
function line(
  p: PlacedLogRow,
  kind: ServiceFindingKind,
  field: string | null,
  logSays: string,
  serviceSays: string,
  why: string,
): ServiceLine {
  return { kind, field, sheet: p.sheet, rowNumber: p.rowNumber, logSays, serviceSays, message: `Row ${p.rowNumber}: ${why}` };
}

/**
 * One row against its hedge. An Open's cells are the hedge's (id, market, side, tenor, client reference, its order and
 * fill transactions, fill time, struck rate while no add blended it, notional while nothing changed it, status); an Add,
 * Reduce or Close acts on the hedge's market side after it opened, and a fill it recorded is the hedge's. A row is
 * logged before its request leaves: a row logged (or sent) after the service opened its hedge was written afterwards.
 */
function rowLines(p: PlacedLogRow, h: Hedge, changes: HedgeChanges): ServiceLine[] {
  const r = p.record;
  const out: ServiceLine[] = [];
  const differs = (field: string, log: unknown, service: unknown, why = "") =>
    out.push(
      line(p, "differs", field, shown(log), shown(service), `${field}: the log says ${shown(log)}, the service ${shown(service)}.${why}`),
    );
  const text = (field: string, log: string | null | undefined, service: string | null | undefined) => {
    if (service && !(log && sameText(log, service))) differs(field, log, service);
  };
  text("Market", r.market, h.market);
  text("Side", r.side, h.side);
  const final = EFFECTIVE.has(r.status) || NEVER_HAPPENED.has(r.status);
  if (r.action === "open") {
    if (r.clientReference && h.client_reference && r.clientReference !== h.client_reference)
      differs("Client reference", r.clientReference, h.client_reference);
    if (r.tenor !== null && r.tenor !== undefined && r.tenor !== h.tenor_days) differs("Tenor (days)", r.tenor, h.tenor_days);
    if (final) out.push(...openOutcomeLines(p, h, changes));
  } else if (r.fillTxHash || r.filledAt) {
    // An Add / Reduce / Close records a fill only when its hedge filled after it (verdict.ts, ownFill): the hedge's own.
    text("Fill tx hash", r.fillTxHash, h.fill_tx_hash);
    if (h.filled_at && !(r.filledAt && sameSecond(r.filledAt, h.filled_at))) differs("Filled at (UTC)", r.filledAt, h.filled_at);
  }
  const opened = utcMs(h.opened_at ?? "");
  const logged = utcMs(r.loggedAt);
  if (r.action === "open") {
    for (const [field, at] of [
      ["Logged at (UTC)", r.loggedAt],
      ["Sent at (UTC)", r.sentAt],
    ] as const)
      if (at && utcMs(at) > opened + CLOCK_SKEW_MS)
        out.push(
          line(
            p,
            "logged_after",
            field,
            at,
            `opened ${h.opened_at}`,
            `${field} ${at} is after the service opened hedge ${h.id} (${h.opened_at}): the add-in writes a row before its request leaves, so this row was written afterwards (typed or forged), or this computer's clock was more than ${CLOCK_SKEW_MS / 60_000} minutes fast.`,
          ),
        );
  } else if (logged < opened - CLOCK_SKEW_MS)
    out.push(
      line(
        p,
        "logged_after",
        "Logged at (UTC)",
        r.loggedAt,
        `opened ${h.opened_at}`,
        `logged at ${r.loggedAt}, before the service opened hedge ${h.id} (${h.opened_at}): a row cannot act on a hedge before it exists.`,
      ),
    );
  return out;
}

/** A final Open's outcome against its hedge: status, order and fill transactions, fill time, struck rate, notional. */
function openOutcomeLines(p: PlacedLogRow, h: Hedge, { added, changed }: HedgeChanges): ServiceLine[] {
  const r = p.record;
  const out: ServiceLine[] = [];
  const differs = (field: string, log: unknown, service: unknown, why = "") =>
    out.push(
      line(p, "differs", field, shown(log), shown(service), `${field}: the log says ${shown(log)}, the service ${shown(service)}.${why}`),
    );
  const held = h.status === "filled" || h.status === "closed";
  // A hedge never goes back from filled: a row filled whose hedge the service still shows in flight was not written from its answer.
  if (EFFECTIVE.has(r.status) !== held)
    differs(
      "Status",
      r.status,
      h.status,
      held
        ? " The service holds the hedge: it is real money."
        : h.status === "failed"
          ? " Nothing was opened."
          : " The service has not filled it.",
    );
  if (!held) return out;
  if (h.order_tx_hash && !(r.orderTxHash && sameText(r.orderTxHash, h.order_tx_hash)))
    differs("Order tx hash", r.orderTxHash, h.order_tx_hash);
  if (h.fill_tx_hash && !(r.fillTxHash && sameText(r.fillTxHash, h.fill_tx_hash))) differs("Fill tx hash", r.fillTxHash, h.fill_tx_hash);
  if (h.filled_at && !(r.filledAt && sameSecond(r.filledAt, h.filled_at))) differs("Filled at (UTC)", r.filledAt, h.filled_at);
  if (!added && typeof h.struck_rate === "number" && !(typeof r.struckRate === "number" && sameRate(r.struckRate, h.struck_rate)))
    differs("Struck rate", r.struckRate, h.struck_rate, " (Compared while the log shows no add on the hedge: an add blends the rate.)");
  if (!changed && h.status === "filled" && !(typeof r.notional === "number" && Math.abs(r.notional - h.notional_usd) < CENT))
    differs("Notional (USD)", r.notional, h.notional_usd, " (Compared while the log shows no add, reduce or close on the hedge.)");
  return out;
}

/** A row of another account naming one of this account's hedges: its Account cell was changed. */
function accountLines(p: PlacedLogRow, byId: ReadonlyMap<string, Hedge>, account: string | null): ServiceLine[] {
  const h = p.record.hedgeId ? byId.get(p.record.hedgeId) : undefined;
  if (!h || !account) return [];
  return [
    line(
      p,
      "differs",
      "Account",
      shown(p.record.account),
      account,
      `Account: the row names account ${shown(p.record.account)}, but its hedge ${h.id} is this key's account's (${account}).`,
    ),
  ];
}

/** One action the service shows: an open (its time opened) or a reduction or close (its record's time). */
interface ServiceAction {
  atMs: number;
  /** The log actions that could have sent it. */
  actions: readonly string[];
  hedgeId: string | null;
  clientReference: string | null;
  market: string;
  side: string;
  says: string;
}

/**
 * The service's actions after the newest row of the log (by Logged at) that no row of the log sent: rows cut off its end
 * (or trades made outside this workbook since). An open is the log's when a row names its hedge id or client reference;
 * a reduction or close when a Reduce or Close row on its hedge (or market side) was logged at most ACTION_WINDOW_MS
 * before it (each row sends one action), or is still pending. Settlement at maturity is the service's own doing. An add
 * leaves no dated trace at the service: a cut Add shows as a notional that disagrees.
 */
function cutOffLines(rows: readonly PlacedLogRow[], hedges: readonly Hedge[], history: readonly ClosedHedge[]): ServiceLine[] {
  if (rows.length === 0) return [];
  let newest = rows[0];
  for (const p of rows) if (!(utcMs(p.record.loggedAt) <= utcMs(newest.record.loggedAt))) newest = p;
  const newestMs = utcMs(newest.record.loggedAt);
  if (!Number.isFinite(newestMs)) return [];
  const last = rows[rows.length - 1];
  const actions: ServiceAction[] = [
    ...hedges.map((h) => ({
      atMs: utcMs(h.opened_at ?? ""),
      actions: ["open"],
      hedgeId: h.id,
      clientReference: h.client_reference ?? null,
      market: h.market,
      side: h.side,
      says: `an open of ${h.market} ${h.side} ${usd(h.notional_usd)} (hedge ${h.id}${h.client_reference ? `, client reference ${h.client_reference}` : ""}) at ${h.opened_at}`,
    })),
    ...history
      .filter((c) => c.exit_type !== "maturity")
      .map((c) => ({
        atMs: utcMs(c.closed_at),
        actions: c.exit_type === "decrease" ? ["reduce"] : ["close", "reduce"],
        hedgeId: c.hedge_id ?? null,
        clientReference: null,
        market: c.market,
        side: c.side,
        says: `a ${c.exit_type} of ${c.market} ${c.side} ${usd(c.size_usd)}${c.hedge_id ? ` (hedge ${c.hedge_id})` : ""} at ${c.closed_at}`,
      })),
  ].filter((a) => a.atMs > newestMs);
  const used = new Set<LogRecord>();
  const sentBy = (a: ServiceAction): PlacedLogRow | undefined =>
    rows.find(({ record: r }) => {
      if (used.has(r) || !a.actions.includes(r.action)) return false;
      if (r.action === "open")
        return (!!r.hedgeId && r.hedgeId === a.hedgeId) || (!!r.clientReference && r.clientReference === a.clientReference);
      const sameHedge = r.hedgeId && a.hedgeId ? r.hedgeId === a.hedgeId : r.market === a.market && r.side === a.side;
      // Every action here is after the newest row, so a row is never logged after it: only how long before counts.
      return sameHedge && (PENDING.has(r.status) || utcMs(r.loggedAt) >= a.atMs - ACTION_WINDOW_MS);
    });
  const out: ServiceLine[] = [];
  for (const a of actions.sort((x, y) => x.atMs - y.atMs)) {
    const row = sentBy(a);
    if (row) {
      used.add(row.record);
      continue;
    }
    out.push(
      line(
        last,
        "cut_off",
        null,
        `newest row logged ${newest.record.loggedAt}`,
        a.says,
        `the service shows ${a.says}, after the newest row of the log (row ${newest.rowNumber}, logged ${newest.record.loggedAt}), and no row sent it: rows were cut off the end, or it was traded outside this workbook since.`,
      ),
    );
  }
  return out;
}
