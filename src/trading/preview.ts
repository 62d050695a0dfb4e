// The preview: per row a quote (Open/Add) or the affected position (Reduce/Close), totals, limit checks (balance, exposure headroom, capacity) and duplicates flagged from the log. Sends nothing.
import type { HedgingClient } from "../api/client";
import type { Environment } from "../api/environment";
import { isHedgingApiError } from "../api/errors";
import type { Account, Hedge, Market, Position, Quote, Tenor } from "../api/schemas";
import type { LogRecord } from "./hedge-log";
import { findDuplicate } from "./duplicates";
import { mapLimited } from "./pool";
import type { Action, LimitCheck, Preview, PreviewLine, TradeRow } from "./types";

export interface PreviewContext {
  client: HedgingClient;
  environment: Environment;
  /** account_address of the key in use: duplicates are looked for among this account's rows (and rows without one). */
  account: string | null;
  log: readonly LogRecord[];
  concurrency: number;
  now: () => Date;
}

const usd = (n: number) => n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const laneOf = (r: { market: string; side: string }) => `${r.market}|${r.side}`;

/** Hedges that hold the market side now (submitted or filled), newest first, from one list call. */
async function openHedges(client: HedgingClient): Promise<Map<string, Hedge>> {
  const { data } = await client.list({ limit: 500 });
  const open = new Map<string, Hedge>();
  for (const h of data) if ((h.status === "filled" || h.status === "submitted") && !open.has(laneOf(h))) open.set(laneOf(h), h);
  return open;
}

function describe(e: unknown): string {
  if (isHedgingApiError(e)) return `${e.message}${e.advice ? ` ${e.advice}` : ""} (${e.code})`;
  return e instanceof Error ? e.message : String(e);
}

export async function buildPreview(ctx: PreviewContext, action: Action, rows: readonly TradeRow[]): Promise<Preview> {
  const wrongAction = rows.find((r) => r.action !== action);
  if (wrongAction)
    throw new Error(`Row ${wrongAction.rowNumber} was read for ${wrongAction.action}, not ${action}: read the rows again for ${action}.`);
  const trading = action === "open" || action === "add";
  const [account, markets, positions, hedges] = await Promise.all([
    ctx.client.account().then((r) => r.data),
    ctx.client.markets().then((r) => r.data),
    trading ? Promise.resolve<Position[]>([]) : ctx.client.positions().then((r) => r.data),
    trading ? openHedges(ctx.client) : Promise.resolve(new Map<string, Hedge>()),
  ]);
  const marketOf = new Map(markets.map((m) => [m.market, m]));

  const lines: PreviewLine[] = rows.map((row) => ({
    row,
    quote: null,
    position: null,
    collateralUsdc: 0,
    carryUsdc: 0,
    marginBackUsdc: 0,
    duplicateOf: findDuplicate(row, ctx.environment, ctx.log, ctx.account),
    blockers: [],
    warnings: [],
  }));

  for (const line of lines) {
    if (!marketOf.has(line.row.market)) {
      line.blockers.push(
        `Market ${line.row.market} is not available to this account: use ${markets.map((m) => m.market).join(", ") || "a listed market"}.`,
      );
    } else if (marketOf.get(line.row.market)!.status !== "open" && marketOf.get(line.row.market)!.status !== "active") {
      line.warnings.push(`Market ${line.row.market} reports status "${marketOf.get(line.row.market)!.status}".`);
    }
  }

  if (trading) await quoteLines(ctx, action, lines, hedges);
  else positionLines(action, lines, positions);

  const sendable = lines.filter((l) => l.blockers.length === 0);
  const totals = {
    rows: lines.length,
    notionalUsd: sum(sendable.map((l) => l.row.notional ?? l.position?.size_usd ?? 0)),
    collateralUsdc: sum(sendable.map((l) => l.collateralUsdc)),
    carryUsdc: sum(sendable.map((l) => l.carryUsdc)),
    marginBackUsdc: sum(sendable.map((l) => l.marginBackUsdc)),
  };
  const checks = trading ? limitChecks(account, markets, sendable) : [];
  const blockers = checks
    .filter((c) => !c.ok)
    .map((c) => `${c.label}: the batch needs ${usd(c.needed)} but ${usd(c.available)} is available. Remove rows or reduce amounts.`);

  return {
    action,
    environment: ctx.environment,
    createdAt: ctx.now().toISOString(),
    lines,
    totals,
    checks,
    blockers,
    duplicates: lines.filter((l) => l.duplicateOf).length,
    account,
    markets,
  };
}

async function quoteLines(ctx: PreviewContext, action: Action, lines: PreviewLine[], hedges: Map<string, Hedge>): Promise<void> {
  const openedInBatch = new Map<string, number>();
  for (const line of lines) {
    const r = line.row;
    const existing = hedges.get(laneOf(r));
    if (action === "open") {
      if (existing) line.blockers.push(`A hedge is already open on ${r.market} ${r.side} (${existing.id}): use Add to grow it.`);
      const earlier = openedInBatch.get(laneOf(r));
      if (earlier !== undefined)
        line.blockers.push(`Row ${earlier} already opens ${r.market} ${r.side}: one hedge per market and side — use Add for more.`);
      else openedInBatch.set(laneOf(r), r.rowNumber);
    } else if (!existing) {
      line.blockers.push(`No open hedge on ${r.market} ${r.side}: use Open first.`);
    }
  }
  await mapLimited(lines, ctx.concurrency, async (line) => {
    if (line.blockers.length > 0) return;
    const r = line.row;
    const tenor = (action === "open" ? r.tenor : hedges.get(laneOf(r))?.tenor_days) as Tenor;
    try {
      const { data } = await ctx.client.quote({ market: r.market, side: r.side, notional_usd: r.notional ?? 0, tenor_days: tenor });
      applyQuote(line, data);
    } catch (e) {
      line.blockers.push(`No quote: ${describe(e)}`);
    }
  });
}

function applyQuote(line: PreviewLine, quote: Quote): void {
  line.quote = quote;
  line.collateralUsdc = quote.upfront.total_upfront_usdc;
  line.carryUsdc = quote.carry.total_usdc;
}

function positionLines(action: Action, lines: PreviewLine[], positions: Position[]): void {
  const remaining = new Map(positions.map((p) => [laneOf(p), p.size_usd]));
  const closedInBatch = new Map<string, number>();
  for (const line of lines) {
    const r = line.row;
    const position = positions.find((p) => p.market === r.market && p.side === r.side && p.size_usd > 0) ?? null;
    line.position = position;
    if (!position) {
      line.blockers.push(`No open ${r.side} position on ${r.market}: nothing to ${action}.`);
      continue;
    }
    const left = remaining.get(laneOf(r)) ?? 0;
    const earlier = closedInBatch.get(laneOf(r));
    if (earlier !== undefined) {
      line.blockers.push(`Row ${earlier} already closes ${r.market} ${r.side}.`);
      continue;
    }
    if (action === "close") {
      closedInBatch.set(laneOf(r), r.rowNumber);
      line.marginBackUsdc = position.net_margin_usd * (left / position.size_usd);
      remaining.set(laneOf(r), 0);
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

function limitChecks(account: Account, markets: Market[], lines: PreviewLine[]): LimitCheck[] {
  const checks: LimitCheck[] = [];
  const collateral = sum(lines.map((l) => l.collateralUsdc));
  checks.push({ label: "Balance (USDC)", needed: collateral, available: account.balance_usdc, ok: collateral <= account.balance_usdc });
  const notional = sum(lines.map((l) => l.row.notional ?? 0));
  checks.push({
    label: "Exposure headroom (USD)",
    needed: notional,
    available: account.available_exposure_usd,
    ok: notional <= account.available_exposure_usd,
  });
  const perLane = new Map<string, number>();
  for (const l of lines) perLane.set(laneOf(l.row), (perLane.get(laneOf(l.row)) ?? 0) + (l.row.notional ?? 0));
  for (const [lane, needed] of perLane) {
    const [market, side] = lane.split("|") as [string, "buy" | "sell"];
    const available = markets.find((m) => m.market === market)?.available_capacity_usd[side] ?? 0;
    checks.push({ label: `Capacity ${market} ${side} (USD)`, needed, available, ok: needed <= available });
  }
  return checks;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
