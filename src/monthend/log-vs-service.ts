// Month end's check of the Hedge Log against the service: each cell of a row the service also knows (hedge id, status, amounts, rate, transactions, times, references, account), each in its class, and the service's actions after the newest row (rows cut off the end), each finding at its sheet row.
import type { ClosedHedge, Hedge } from "../api/schemas";
import { utcMs } from "../api/time";
import { DOUBT_LIMIT_MS, RESEND_WINDOW_MS } from "../trading/desk/rule";
import { sameAccount } from "../trading/duplicates";
import type { LogRecord } from "../trading/log/hedge-log";
import { isControlRecord } from "../trading/log/control-row";
import { CLOCK_SKEW_MS } from "../trading/verdict";
import type { PlacedLogRow } from "../trading/workbook";
import { checkedFields, countCells } from "./cell-classes";
import { hedgeFacts, storyLines, type HedgeFacts } from "./hedge-story";
import { EFFECTIVE, NEVER_HAPPENED, PENDING, usd, type ServiceFindingKind, type ServiceLine, type ServiceReport } from "./recon-model";
import { ACTION_WINDOW_MS, differsLine, line, sameSecond, sameText, shown } from "./service-line";

export { ACTION_WINDOW_MS } from "./service-line";

export interface ServiceCheckInput {
  /** Every row read, in its place (sheet, row). */
  rows: readonly PlacedLogRow[];
  environment: string;
  accountAddress: string | null;
  /** The service's hedges read (fetchMonthData). */
  hedges: readonly Hedge[];
  /** The service's closed-hedge records read (from the month's start). */
  history: readonly ClosedHedge[];
  /** Records closed from this instant on are all in `history` (the month's start); null when its read was cut short. Absent: all of them. */
  historyWholeFromMs?: number | null;
  hedgesComplete: boolean;
}

/** How each kind reads on the sheet. */
export const SERVICE_KIND_LABELS: Readonly<Record<ServiceFindingKind, string>> = {
  differs: "Differs from the service",
  logged_after: "Logged after the service acted",
  logged_long_before: "Logged long before the service acted",
  cut_off: "Rows cut off the end",
};

/**
 * How long before its hedge opened an Open's first request may have left: a row is sent again with its key only within
 * the resend window of its first send (and the doubts within their limit), with the clocks' skew on top.
 */
export const SENT_LEAD_MS = RESEND_WINDOW_MS + DOUBT_LIMIT_MS + CLOCK_SKEW_MS;
/**
 * How long before its hedge opened an Open may have been logged: the add-in sends a row when it logs it, and one left
 * unsent (the pane closed between the two) is sent when the pane opens again; a day covers a night (README, Service assumptions).
 */
export const LOGGED_LEAD_MS = 24 * 3_600_000;

/**
 * Compares the log with the service. Rows of this environment and account whose hedge the service showed (by the row's
 * hedge id) are compared cell by cell, and a hedge's rows together (hedge-story.ts); rows of another account that name
 * one of this account's hedges are flagged at their Account; the service's actions after the newest row of the log are
 * rows cut off its end; and every cell read is counted in its class (cell-classes.ts).
 */
export function checkLogAgainstService(input: ServiceCheckInput): ServiceReport {
  const env = input.environment.toLowerCase();
  const byId = new Map(input.hedges.map((h) => [h.id, h]));
  // A control row is no trade: nothing of it is the service's (its cells are counted below, held by the chain).
  const rows = input.rows.filter(
    (p) => p.record.idempotencyKey.trim() !== "" && !isControlRecord(p.record) && String(p.record.environment).toLowerCase() === env,
  );
  const own = rows.filter((p) => sameAccount(p.record.account, input.accountAddress));
  const ownSet = new Set(own);
  const facts = factsByHedge(own, byId, input);
  const refs = referenceOwners(input.hedges, input.history);
  const lines: ServiceLine[] = [];
  let compared = 0;
  for (const p of own) {
    const f = p.record.hedgeId ? facts.get(p.record.hedgeId) : undefined;
    if (!f) continue;
    compared++;
    lines.push(...rowLines(p, f.hedge, refs));
    if (p.record.action === "open") lines.push(...openOutcomeLines(p, f.hedge));
  }
  for (const f of facts.values()) lines.push(...storyLines(f));
  // In sheet order: a hedge's findings stand among its rows' (a stable sort keeps each row's in the order found).
  const place = new Map(input.rows.map((p, i) => [`${p.sheet}\n${p.rowNumber}`, i]));
  lines.sort((a, b) => place.get(`${a.sheet}\n${a.rowNumber}`)! - place.get(`${b.sheet}\n${b.rowNumber}`)!);
  for (const p of rows) if (!ownSet.has(p)) lines.push(...accountLines(p, byId, input.accountAddress));
  lines.push(...cutOffLines(own, input.hedges, input.history));
  const factsOf = (p: PlacedLogRow) => (ownSet.has(p) && p.record.hedgeId ? facts.get(p.record.hedgeId) : undefined);
  return { compared, complete: input.hedgesComplete, lines, cells: countCells(input.rows, (p) => checkedFields(p, factsOf(p))) };
}

/** The facts of each hedge the service showed that a row of this account names, from all the rows that name it. */
function factsByHedge(own: readonly PlacedLogRow[], byId: ReadonlyMap<string, Hedge>, input: ServiceCheckInput): Map<string, HedgeFacts> {
  const named = new Map<string, PlacedLogRow[]>();
  for (const p of own) {
    const id = p.record.hedgeId;
    if (id && byId.has(id)) named.set(id, [...(named.get(id) ?? []), p]);
  }
  const cover = { records: input.history, wholeFromMs: input.historyWholeFromMs === undefined ? -Infinity : input.historyWholeFromMs };
  return new Map([...named].map(([id, rows]) => [id, hedgeFacts(byId.get(id)!, rows, cover)]));
}

/** Each client reference the service shows and the hedge it is on (from the hedges, then the records that name theirs). */
function referenceOwners(hedges: readonly Hedge[], history: readonly ClosedHedge[]): ReferenceOwners {
  const out: ReferenceOwners = new Map();
  for (const c of history) if (c.hedge_id) out.set(c.client_reference, c.hedge_id);
  for (const h of hedges) out.set(h.client_reference, h.id);
  return out;
}

/** Client reference → the hedge it is on (a hedge without one is kept under null or undefined: a row's empty reference is never looked up). */
type ReferenceOwners = Map<string | null | undefined, string>;

/**
 * One row against its hedge: its market and side; an Open's client reference and tenor (the hedge's); another row's
 * client reference is its own (the service never saw it) unless it names another hedge's deal; an Add's, Reduce's or
 * Close's recorded fill is the hedge's. Times: a row is logged before its request leaves, so an Open logged (or sent)
 * after the service opened its hedge was written afterwards, and one sent long before was not sent then; another
 * action cannot be logged or sent before its hedge opened.
 */
function rowLines(p: PlacedLogRow, h: Hedge, refs: ReferenceOwners): ServiceLine[] {
  const r = p.record;
  const out: ServiceLine[] = [];
  const differs = (field: string, log: unknown, service: unknown, why = "") => out.push(differsLine(p, field, log, service, why));
  const text = (field: string, log: string | null | undefined, service: string | null | undefined) => {
    if (service && !(log && sameText(log, service))) differs(field, log, service);
  };
  text("Market", r.market, h.market);
  text("Side", r.side, h.side);
  if (r.action === "open") {
    if (h.client_reference && r.clientReference !== h.client_reference) differs("Client reference", r.clientReference, h.client_reference);
    if (r.tenor !== null && r.tenor !== undefined && r.tenor !== h.tenor_days) differs("Tenor (days)", r.tenor, h.tenor_days);
  } else {
    const owner = r.clientReference ? refs.get(r.clientReference) : undefined;
    if (owner && owner !== h.id)
      differs(
        "Client reference",
        r.clientReference,
        `hedge ${owner}'s`,
        ` It names the deal of hedge ${owner}, not of the hedge this row acts on (${h.id}).`,
      );
    if (r.fillTxHash || r.filledAt) {
      // An Add / Reduce / Close records a fill only when its hedge filled after it (verdict.ts, ownFill): the hedge's own.
      text("Fill tx hash", r.fillTxHash, h.fill_tx_hash);
      if (h.filled_at && !(r.filledAt && sameSecond(r.filledAt, h.filled_at))) differs("Filled at (UTC)", r.filledAt, h.filled_at);
    }
  }
  return [...out, ...timeLines(p, h)];
}

/** A row's Logged at and Sent at against when the service opened its hedge. */
function timeLines(p: PlacedLogRow, h: Hedge): ServiceLine[] {
  const r = p.record;
  const opened = utcMs(h.opened_at ?? "");
  const out: ServiceLine[] = [];
  const times = [
    ["Logged at (UTC)", r.loggedAt],
    ["Sent at (UTC)", r.sentAt],
  ] as const;
  for (const [field, cell] of times) {
    const at = cell ?? "";
    const ms = utcMs(at); // an empty cell is no time: no comparison holds
    const says = `opened ${h.opened_at}`;
    if (r.action !== "open") {
      if (ms < opened - CLOCK_SKEW_MS)
        out.push(
          line(
            p,
            "logged_after",
            field,
            at,
            says,
            `${field} ${at}, before the service opened hedge ${h.id} (${h.opened_at}): a row cannot act on a hedge before it exists.`,
          ),
        );
    } else if (ms > opened + CLOCK_SKEW_MS)
      out.push(
        line(
          p,
          "logged_after",
          field,
          at,
          says,
          `${field} ${at} is after the service opened hedge ${h.id} (${h.opened_at}): the add-in writes a row before its request leaves, so this row was written afterwards (typed or forged), or this computer's clock was more than ${CLOCK_SKEW_MS / 60_000} minutes fast.`,
        ),
      );
    else if (ms < opened - (field === "Sent at (UTC)" ? SENT_LEAD_MS : LOGGED_LEAD_MS))
      out.push(
        line(
          p,
          "logged_long_before",
          field,
          at,
          says,
          `${field} ${at} is long before the service opened hedge ${h.id} (${h.opened_at}): ${field === "Sent at (UTC)" ? `a request is sent again with its key only within ${SENT_LEAD_MS / 60_000} minutes of its first` : `a row is sent when it is logged, or when the pane opens again after a stop (a day at most)`}, so its time was changed.`,
        ),
      );
  }
  return out;
}

/** A final Open's outcome against its hedge: status, order and fill transactions, fill time (its struck rate and notional: hedge-story.ts). */
function openOutcomeLines(p: PlacedLogRow, h: Hedge): ServiceLine[] {
  const r = p.record;
  if (!(EFFECTIVE.has(r.status) || NEVER_HAPPENED.has(r.status))) return [];
  const out: ServiceLine[] = [];
  const differs = (field: string, log: unknown, service: unknown, why = "") => out.push(differsLine(p, field, log, service, why));
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
