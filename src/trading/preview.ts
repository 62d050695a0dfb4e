// The preview: per row a quote (Open/Add; rows asking the same question share one) or the affected position (Reduce/Close), streamed as they arrive and cancellable, totals of what is priced, limit checks and duplicates of the same day or hedge. Sends nothing.
import type { HedgingClient } from "../api/client";
import type { Environment } from "../api/environment";
import { isHedgingApiError } from "../api/errors";
import { type Account, type Hedge, type Market, type Position, type Quote, type Tenor } from "../api/schemas";
import { findDuplicate } from "./duplicates";
import { laneOf, OPEN_LOOKUP_SCOPE, openHedges } from "./fills";
import { byLoggedAt, utcDayStart, type LogQuery, type LogRecord } from "./log/hedge-log";
import type { Action, BatchAction, LimitCheck, Preview, PreviewLine, PreviewOptions, TradeRow } from "./types";
import { mapLimited } from "./map-limited";
import { batchNotional, exitQuestion, rollFigures, rollPairs } from "./preview-rolls";

export interface PreviewContext {
  client: HedgingClient;
  environment: Environment;
  /** account_address of the key in use: duplicates are looked for among this account's rows (and rows without one). */
  account: string | null;
  /** Reads log rows (today's and those of given hedges, for the duplicate check). */
  readLog: (query: LogQuery) => Promise<LogRecord[]>;
  /** Rows the desk knows (this session's, with updates not yet written): newer than what the log holds. */
  known: () => readonly LogRecord[];
  /** Market sides with an unfinished row: blocking (rows there are not sent) or not (they wait their turn), with the reason. */
  busySides: () => ReadonlyMap<string, { reason: string; blocking: boolean }>;
  concurrency: number;
  now: () => Date;
}

const usd = (n: number) => n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
function describe(e: unknown): string {
  if (isHedgingApiError(e)) return `${e.message}${e.advice ? ` ${e.advice}` : ""} (${e.code})`;
  return e instanceof Error ? e.message : String(e);
}

/** The question a row asks the quote endpoint: rows asking the same one share its answer. */
const questionOf = (r: TradeRow, tenor: Tenor) => `${r.market}|${r.side}|${(r.notional ?? 0).toFixed(2)}|${tenor}`;

/** Open and Add are quoted; Reduce and Close look up the position. */
const quoted = (a: Action) => a === "open" || a === "add";

/**
 * The preview of a batch. `action` is the batch's: one action every row must carry, or "column" when the rows carry their
 * own (a proposal): then closes and reduces are looked up and opens and adds quoted in one preview, and the limit checks
 * count what the closes and reduces free.
 */
export async function buildPreview(
  ctx: PreviewContext,
  action: BatchAction,
  rows: readonly TradeRow[],
  options: PreviewOptions = {},
): Promise<Preview> {
  const wrongAction = action === "column" ? undefined : rows.find((r) => r.action !== action);
  if (wrongAction)
    throw new Error(`Row ${wrongAction.rowNumber} was read for ${wrongAction.action}, not ${action}: read the rows again for ${action}.`);
  const { signal } = options;
  const service = await readService(ctx, rows, signal);
  const lines = await startLines(ctx, rows, service.hedges, service.markets);
  const preview: Preview = {
    action,
    environment: ctx.environment,
    createdAt: ctx.now().toISOString(),
    lines,
    totals: { rows: lines.length, priced: 0, notionalUsd: 0, collateralUsdc: 0, carryUsdc: 0, marginBackUsdc: 0 },
    checks: [],
    blockers: [],
    duplicates: 0, // summarise() counts them, before any progress is published
    account: service.account,
    markets: service.markets,
    cancelled: false,
    quoteRequests: 0,
    rolls: [],
  };
  const publish = () => {
    summarise(preview, service.account, service.markets);
    options.onProgress?.({ ...preview, lines: [...preview.lines] });
  };

  // Closes and reduces first (their positions are already in), then the opens and adds as their quotes arrive.
  positionLines(lines, service.positions);
  notionalsBefore(lines, service.hedges, service.complete);
  const opening = lines.filter((l) => quoted(l.row.action));
  if (opening.length > 0) {
    sideBlockers(lines, service.hedges, service.complete);
    publish(); // the rows that cannot go, at once
    await quoteLines(ctx, opening, service.hedges, preview, signal, publish);
    if (!signal?.aborted) await priceRolls(ctx, preview, service.hedges, signal);
  }
  if (signal?.aborted) {
    preview.cancelled = true;
    for (const line of opening) if (line.blockers.length === 0 && !line.quote) line.blockers.push("Not priced: the preview was cancelled.");
  }
  summarise(preview, service.account, service.markets);
  return preview;
}

/** What the preview needs of the service: the account, the markets, the positions (when a row reduces or closes), the open hedges. */
async function readService(ctx: PreviewContext, rows: readonly TradeRow[], signal: AbortSignal | undefined) {
  const closing = rows.some((r) => !quoted(r.action));
  const [account, markets, positions, { bySide: hedges, complete }] = await Promise.all([
    ctx.client.account(signal).then((r) => r.data),
    ctx.client.markets(signal).then((r) => r.data),
    closing ? ctx.client.positions(signal).then((r) => r.data) : Promise.resolve<Position[]>([]),
    openHedges(ctx.client, signal),
  ]);
  return { account, markets, positions, hedges, complete };
}

/** One line per row: duplicates of the same UTC day or hedge (never the whole log), markets the account cannot use, busy sides. */
async function startLines(
  ctx: PreviewContext,
  rows: readonly TradeRow[],
  hedges: Map<string, Hedge>,
  markets: readonly Market[],
): Promise<PreviewLine[]> {
  const dayStart = utcDayStart(ctx.now());
  const hedgeOf = (r: TradeRow) => (r.action === "open" ? null : (hedges.get(laneOf(r))?.id ?? null));
  const sideHedgeIds = [...new Set(rows.map(hedgeOf).filter((id): id is string => !!id))];
  const fromLog = await ctx.readLog({ loggedSince: dayStart, ...(sideHedgeIds.length ? { hedgeIds: sideHedgeIds } : {}) });
  const known = new Map(fromLog.map((r) => [r.idempotencyKey, r]));
  for (const r of ctx.known()) known.set(r.idempotencyKey, r);
  const log = [...known.values()].sort(byLoggedAt);
  const busy = ctx.busySides();
  const account = ctx.account;
  const marketOf = new Map(markets.map((m) => [m.market, m]));

  return rows.map((row) => {
    const line: PreviewLine = {
      row,
      quote: null,
      position: null,
      collateralUsdc: 0,
      carryUsdc: 0,
      marginBackUsdc: 0,
      duplicateOf: findDuplicate(row, ctx.environment, log, account, { dayStart, hedgeId: hedgeOf(row) }),
      blockers: [],
      warnings: [],
    };
    const market = marketOf.get(row.market);
    if (!market) {
      line.blockers.push(
        `Market ${row.market} is not available to this account: use ${markets.map((m) => m.market).join(", ") || "a listed market"}.`,
      );
    } else if (market.status !== "open" && market.status !== "active") {
      line.warnings.push(`Market ${row.market} reports status "${market.status}".`);
    }
    const waiting = busy.get(laneOf(row));
    if (waiting?.blocking) line.blockers.push(waiting.reason);
    else if (waiting) line.warnings.push(waiting.reason);
    return line;
  });
}

function summarise(preview: Preview, account: Account, markets: Market[]): void {
  // A Reduce or Close line without a position has a blocker; an Open or Add line is priced once its quote is in.
  const priced = preview.lines.filter((l) => l.blockers.length === 0 && (l.quote !== null || !quoted(l.row.action)));
  preview.totals = {
    rows: preview.lines.length,
    priced: priced.length,
    notionalUsd: batchNotional(priced),
    collateralUsdc: sum(priced.map((l) => l.collateralUsdc)),
    carryUsdc: sum(priced.map((l) => l.carryUsdc)),
    marginBackUsdc: sum(priced.map((l) => l.marginBackUsdc)),
  };
  preview.checks = preview.lines.some((l) => quoted(l.row.action)) ? limitChecks(account, markets, priced) : [];
  preview.blockers = preview.checks
    .filter((c) => !c.ok)
    .map(
      (c) =>
        `${c.label}: the batch needs ${usd(c.needed)} ${c.unit} but ${usd(c.available)} ${c.unit} is available. Remove rows or reduce amounts.`,
    );
  preview.duplicates = preview.lines.filter((l) => l.duplicateOf).length;
}

/**
 * Opens need a side without a hedge, Adds one with a hedge. In a batch of mixed actions an Add behind an Open of the same
 * side (a split) adds to the hedge that Open makes: the desk sends it once the Open is final. A Close of the side in the
 * same batch (a roll: Close, then Open) frees it for the Open: closes go first, and the Open leaves once the Close is final.
 * So an Add of a side the batch closes has no hedge to add to unless an Open of the side comes before it.
 */
function sideBlockers(lines: PreviewLine[], hedges: Map<string, Hedge>, complete: boolean): void {
  const openedInBatch = new Map<string, number>();
  const closedInBatch = new Set(lines.filter((l) => l.row.action === "close").map((l) => laneOf(l.row)));
  for (const line of lines) {
    const r = line.row;
    if (!quoted(r.action)) continue;
    const held = hedges.get(laneOf(r));
    const existing = closedInBatch.has(laneOf(r)) ? undefined : held;
    const earlier = openedInBatch.get(laneOf(r));
    if (r.action === "open") {
      if (existing) line.blockers.push(`A hedge is already open on ${r.market} ${r.side} (${existing.id}): use Add to grow it.`);
      if (earlier !== undefined)
        line.blockers.push(`Row ${earlier} already opens ${r.market} ${r.side}: one hedge per market and side — use Add for more.`);
      else openedInBatch.set(laneOf(r), r.rowNumber);
    } else if (!existing && earlier === undefined) {
      line.blockers.push(
        complete
          ? `No open hedge on ${r.market} ${r.side}: use Open first.`
          : `No open hedge on ${r.market} ${r.side} ${OPEN_LOOKUP_SCOPE}: check the hedge on the service.`,
      );
    }
  }
}

/**
 * Quotes each distinct question once (same market, side, notional and tenor), at most `concurrency` at a time, updating
 * every line that asked it as its answer arrives. Stops asking when the signal aborts.
 */
async function quoteLines(
  ctx: PreviewContext,
  lines: PreviewLine[],
  hedges: Map<string, Hedge>,
  preview: Preview,
  signal: AbortSignal | undefined,
  publish: () => void,
): Promise<void> {
  const questions = new Map<string, { tenor: Tenor; row: TradeRow; lines: PreviewLine[] }>();
  // An Add behind an Open of the same side in this batch is quoted at that Open's tenor.
  const openedTenor = new Map(lines.filter((l) => l.row.action === "open").map((l) => [laneOf(l.row), l.row.tenor]));
  for (const line of lines) {
    if (line.blockers.length > 0) continue;
    const r = line.row;
    // An Open of the side in the batch makes the hedge its Adds grow (after a roll's Close, not the hedge closed).
    const tenor = (r.action === "open" ? r.tenor : (openedTenor.get(laneOf(r)) ?? hedges.get(laneOf(r))?.tenor_days)) as Tenor;
    const key = questionOf(r, tenor);
    const q = questions.get(key) ?? { tenor, row: r, lines: [] };
    q.lines.push(line);
    questions.set(key, q);
  }
  const ask = async (q: { tenor: Tenor; row: TradeRow; lines: PreviewLine[] }): Promise<void> => {
    preview.quoteRequests++;
    try {
      const { data } = await ctx.client.quote(
        { market: q.row.market, side: q.row.side, notional_usd: q.row.notional ?? 0, tenor_days: q.tenor },
        signal,
      );
      for (const line of q.lines) applyQuote(line, data);
    } catch (e) {
      if (signal?.aborted) return;
      for (const line of q.lines) line.blockers.push(`No quote: ${describe(e)}`);
    }
    publish();
  };
  await mapLimited([...questions.values()], ctx.concurrency, ask, signal);
}

/**
 * Each roll of the batch priced (preview-rolls.ts): the Close's exit asked as a quote of the position at the closing
 * hedge's tenor, at most `concurrency` at a time; a quote refused leaves the roll's cost unknown, said on the Close's line.
 */
async function priceRolls(ctx: PreviewContext, preview: Preview, hedges: Map<string, Hedge>, signal: AbortSignal | undefined) {
  const pairs = rollPairs(preview.lines);
  const exits = new Map<PreviewLine, Quote | null>();
  await mapLimited(
    pairs,
    ctx.concurrency,
    async ({ close, open }) => {
      preview.quoteRequests++;
      try {
        exits.set(close, (await ctx.client.quote(exitQuestion(close, hedges, open), signal)).data);
      } catch (e) {
        if (!signal?.aborted) close.warnings.push(`The roll's exit impact is not known: ${describe(e)}`);
      }
    },
    signal,
  );
  preview.rolls = pairs.map(({ close, open }) => rollFigures(close, open, exits.get(close) ?? null));
}

function applyQuote(line: PreviewLine, quote: Quote): void {
  line.quote = quote;
  line.collateralUsdc = quote.upfront.total_upfront_usdc;
  line.carryUsdc = quote.carry.total_usdc;
}

/**
 * Each Add / Reduce / Close line's notional before: its side's open hedge, after the rows above it in the batch (an Open
 * makes it its notional, an Add adds, a Reduce removes — all of it when it takes 99 % or more —, a Close ends it). A side
 * with no open hedge holds 0, unless the hedge lists were cut short (then not known: null).
 */
function notionalsBefore(lines: PreviewLine[], hedges: Map<string, Hedge>, complete: boolean): void {
  const held = new Map<string, number | null>();
  for (const line of lines) {
    const { action, notional } = line.row;
    const lane = laneOf(line.row);
    const before = held.has(lane) ? held.get(lane)! : (hedges.get(lane)?.notional_usd ?? (complete ? 0 : null));
    const amount = notional ?? 0;
    line.notionalBefore = action === "open" || before === null ? null : Math.round(before * 100) / 100;
    if (action === "open") held.set(lane, amount);
    else if (before === null) held.set(lane, null);
    else if (action === "add") held.set(lane, before + amount);
    else held.set(lane, action === "close" || amount >= before * 0.99 ? 0 : before - amount);
  }
}

/** Reduce and Close lines: the position each acts on, what is left of it after the rows above, the margin expected back. */
function positionLines(lines: PreviewLine[], positions: Position[]): void {
  /** What the rows above left of each side's position (a side closed above refuses the rows after it). */
  const remaining = new Map<string, number>();
  const closedInBatch = new Map<string, number>();
  for (const line of lines) {
    const r = line.row;
    const action = r.action;
    if (quoted(action)) continue;
    const position = positions.find((p) => p.market === r.market && p.side === r.side && p.size_usd > 0) ?? null;
    line.position = position;
    if (!position) {
      line.blockers.push(`No open ${r.side} position on ${r.market}: nothing to ${action}.`);
      continue;
    }
    if (line.blockers.length > 0) continue;
    const left = remaining.get(laneOf(r)) ?? position.size_usd;
    const earlier = closedInBatch.get(laneOf(r));
    if (earlier !== undefined) {
      line.blockers.push(`Row ${earlier} already closes ${r.market} ${r.side}.`);
      continue;
    }
    if (action === "close") {
      closedInBatch.set(laneOf(r), r.rowNumber);
      line.marginBackUsdc = position.net_margin_usd * (left / position.size_usd);
      continue;
    }
    const amount = r.notional ?? 0;
    if (amount > left + 0.005) {
      line.blockers.push(
        `Reduce ${usd(amount)} is more than the ${usd(left)} left open on ${r.market} ${r.side}${left < position.size_usd ? " after the rows above" : ""}: reduce at most ${usd(left)}, or use Close.`,
      );
      continue;
    }
    if (amount >= left * 0.99) line.warnings.push(`This reduces the whole ${r.market} ${r.side} position: it will be closed.`);
    line.marginBackUsdc = position.net_margin_usd * (amount / position.size_usd);
    remaining.set(laneOf(r), left - amount);
  }
}

/**
 * Balance, exposure headroom and capacity per market side for the opens and adds, counting first what the batch's closes
 * and reduces free (they go first in a proposal): their margin back, their notional, and their side's capacity.
 */
function limitChecks(account: Account, markets: Market[], lines: PreviewLine[]): LimitCheck[] {
  const opening = lines.filter((l) => quoted(l.row.action));
  const freeing = lines.filter((l) => !quoted(l.row.action));
  const freed = (l: PreviewLine) => (l.row.action === "close" ? (l.position?.size_usd ?? 0) : (l.row.notional ?? 0));
  const checks: LimitCheck[] = [];
  const collateral = sum(opening.map((l) => l.collateralUsdc));
  const balance = account.balance_usdc + sum(freeing.map((l) => l.marginBackUsdc));
  checks.push({ label: "Balance (USDC)", unit: "USDC", needed: collateral, available: balance, ok: collateral <= balance });
  const notional = sum(opening.map((l) => l.row.notional ?? 0));
  const headroom = account.available_exposure_usd + sum(freeing.map(freed));
  checks.push({ label: "Exposure headroom (USD)", unit: "USD", needed: notional, available: headroom, ok: notional <= headroom });
  const perLane = new Map<string, number>();
  for (const l of opening) perLane.set(laneOf(l.row), (perLane.get(laneOf(l.row)) ?? 0) + (l.row.notional ?? 0));
  for (const [lane, needed] of perLane) {
    const [market, side] = lane.split("|") as [string, "buy" | "sell"];
    const available =
      (markets.find((m) => m.market === market)?.available_capacity_usd[side] ?? 0) +
      sum(freeing.filter((l) => laneOf(l.row) === lane).map(freed));
    checks.push({ label: `Capacity ${market} ${side} (USD)`, unit: "USD", needed, available, ok: needed <= available });
  }
  return checks;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
