// Before an approved batch is sent: what of it the service already shows done (by another approval of the same batch, on another computer or under another key), so that such a row is recorded as done, never sent; and the rows whose side the service shows in a state the batch cannot explain, refused.
import type { HedgingClient } from "../../api/client";
import type { Environment } from "../../api/environment";
import type { Hedge } from "../../api/schemas";
import { check, laneOf, openHedges } from "../fills";
import { intentFromRow } from "../intent";
import { sameCent } from "../rows";
import { usdText } from "../verdict";
import type { TradeRow } from "../types";
import type { DoneElsewhere } from "./rule";

/**
 * A line of the batch the service shows done: what shows it (the Open's verdict, or its side's hedge at the notional
 * after it) and what the log's Message says; the recovery rule says what it is recorded as (rule.ts's done_elsewhere).
 */
export type DoneLine = DoneElsewhere;

/** A line of the approved batch: its row, its place in the preview, its key and the notional it expects to find (Add / Reduce / Close; null: not known). */
export interface ApprovedLine {
  row: TradeRow;
  index: number;
  key: string;
  before: number | null;
}

/** What the service shows of the batch: lines done already (recorded, never sent) and lines refused (not sent), with why. */
export interface AlreadyDone {
  done: Map<number, DoneLine>;
  refused: Map<number, string>;
}

const DONE = "Done already by another approval of this batch:";

/**
 * An Open of the batch on the service (by its client reference) means the batch was executed: none of its rows not
 * shown done is sent again, whatever its key (the service forgets keys; a copy approved later would trade them anew).
 */
function executedElsewhere(lines: readonly ApprovedLine[], found: AlreadyDone): AlreadyDone {
  const opened = lines.find((l) => l.row.action === "open" && found.done.has(l.index));
  if (!opened) return found;
  const reason = `This batch was executed already: its Open of ${opened.row.market} ${opened.row.side} with client reference ${opened.row.clientReference} is on the service (found by its client reference), so no row of it is sent again. Check the sides on the service; prepare a new batch for anything still wanted.`;
  for (const line of lines) if (!found.done.has(line.index)) found.refused.set(line.index, reason);
  return found;
}

/**
 * Asks the service about the batch. An Open: a hedge of its market side carrying its client reference, opened since the
 * batch was prepared (`since`), is that line done (fills.ts's check and verdict.ts's judgment, as for a row in doubt).
 * An Add, Reduce or Close: the side's hedge (one read of the open hedges for every side) against the row's notional
 * before as prepared (judgeSide). An error asking the service propagates: nothing is sent on a guess.
 */
export async function doneOnService(
  client: HedgingClient,
  lines: readonly ApprovedLine[],
  since: string,
  environment: Environment,
  account: string | null,
  signal?: AbortSignal,
): Promise<AlreadyDone> {
  const found: AlreadyDone = { done: new Map(), refused: new Map() };
  for (const { row, index, key } of lines) {
    if (row.action !== "open" || !row.clientReference) continue;
    const probe = intentFromRow(row, key, environment, since, account);
    const { verdict } = await check(client, probe, signal);
    if (verdict.kind === "effect")
      found.done.set(index, { kind: "done_elsewhere", by: "effect", patch: verdict.patch, says: `${DONE} ${verdict.says}` });
  }
  const sides = sideChains(lines, found.done);
  if (sides.size === 0) return executedElsewhere(lines, found);
  const { bySide, complete } = await openHedges(client, signal, (held) => [...sides.keys()].every((lane) => held.has(lane)));
  for (const [lane, chain] of sides) {
    const hedge = bySide.get(lane) ?? null;
    if (hedge || complete) judgeSide(chain, hedge, found); // else the lists were cut short: the keys alone decide
  }
  return executedElsewhere(lines, found);
}

/**
 * Per market side, its Add / Reduce / Close lines in batch order, each with the notional it expects before it. A side is
 * left out when a line has no notional before (a batch prepared before it was kept), or when an Open of the side in the
 * batch is not done yet (the side's later rows act on the hedge that Open makes).
 */
function sideChains(lines: readonly ApprovedLine[], done: ReadonlyMap<number, DoneLine>): Map<string, ApprovedLine[]> {
  const chains = new Map<string, ApprovedLine[]>();
  const skipped = new Set<string>();
  for (const line of lines) {
    const lane = laneOf(line.row);
    if (skipped.has(lane)) continue;
    if ((line.row.action === "open" && !done.has(line.index)) || (line.row.action !== "open" && line.before === null)) {
      skipped.add(lane);
      chains.delete(lane);
    } else if (line.row.action !== "open") chains.set(lane, [...(chains.get(lane) ?? []), line]);
  }
  return chains;
}

/** The hedge's notional after a line, as prepared: before + amount (Add), before − amount (Reduce; 0 when it closes the hedge), 0 (Close). */
function afterOf(line: ApprovedLine): number {
  const before = line.before!;
  const amount = line.row.notional ?? 0;
  if (line.row.action === "add") return before + amount;
  if (line.row.action === "reduce") return amount >= before * 0.99 ? 0 : before - amount;
  return 0;
}

/**
 * One side's lines against its hedge now (null: none open, i.e. 0): at the first line's notional before, nothing of the
 * side is done (all are sent); at a line's notional after, that line and the ones before it are done (recorded, never
 * sent) and the rest are sent; anything else (or both readings at once) is a change the batch does not explain: every
 * line of the side not done is refused, not sent.
 */
function judgeSide(chain: readonly ApprovedLine[], hedge: Hedge | null, found: AlreadyDone): void {
  const now = hedge?.notional_usd ?? 0;
  const untouched = sameCent(now, chain[0].before!);
  let last = -1;
  chain.forEach((line, i) => {
    if (sameCent(now, afterOf(line))) last = i;
  });
  if (untouched && last < 0) return;
  const row = chain[0].row;
  const shown = hedge
    ? `The ${row.market} ${row.side} hedge ${hedge.id} is at ${usdText(now)}`
    : `No ${row.market} ${row.side} hedge is open`;
  if (untouched || last < 0) {
    const expected = [chain[0].before!, ...chain.map(afterOf)].map(usdText).join(", ");
    const reason = untouched
      ? `${shown}: both the notional before this side's rows and after one of them, as prepared (${expected}), so the service cannot tell whether they were done. This row was not sent: check the side on the service, then prepare the batch again.`
      : `${shown}: that is none of ${expected} (the side's notional before its rows, as prepared, and after each). Something else changed the side since the batch was prepared, so this row was not sent: check the side on the service, then prepare the batch again.`;
    for (const line of chain) found.refused.set(line.index, reason);
    return;
  }
  for (const line of chain.slice(0, last + 1)) {
    const closes = afterOf(line) === 0;
    const sign = line.row.action === "add" ? "+" : "−";
    const how = line.row.action === "close" ? "closed" : `${usdText(line.before!)} ${sign} ${usdText(line.row.notional ?? 0)}`;
    found.done.set(line.index, {
      kind: "done_elsewhere",
      by: "side",
      closes,
      hedgeId: hedge?.id ?? null,
      notionalBefore: line.before!,
      says: `${DONE} ${shown} (this ${line.row.action} as prepared: ${how}).`,
    });
  }
}
