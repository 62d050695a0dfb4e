// A roll at maturity's names and facts, written once for the policy (HEDGE.TARGET, Propose) and the desk's armed rolls: its client reference, the idempotency key derived from it, and the sides the service shows settled at their maturity.
import type { ClosedHedge, Side } from "../api/schemas";
import { isSide } from "../api/schemas";
import { isoMinute, utcMs } from "../api/time";
import { hashOf } from "./log/digest";

/**
 * The client reference of the n-th row of the roll of `market` `side` at the maturity `maturityMs`:
 * ROLL-<maturity, UTC, to the minute>Z-<MARKET>-<SIDE>-<n> (n = 1 for the Open, 2, 3, … for Max trade's Adds). Named by the
 * maturity, not by the day it is looked at, so every look, on any computer and any day, names the same deal.
 */
export function rollReference(maturityMs: number, market: string, side: Side, n: number): string {
  return `ROLL-${isoMinute(maturityMs)}-${market}-${side.toUpperCase()}-${n}`;
}

/**
 * The idempotency key of a roll's row: derived from its client reference alone (SHA-256, shaped as a UUID, version
 * nibble 8), so two computers (or two copies of the workbook) sending the same roll at once send the same key, and the
 * service acts once (the sandbox keeps keys per account: README "Service assumptions"). `attempt`: how many hedges with
 * that reference the service shows failed (a failed Open is resubmitted with a new key, as the spec says), the same
 * count on every computer.
 */
export function rollKey(reference: string, attempt = 0): string {
  const h = hashOf("hedge-for-excel roll", reference, String(attempt));
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A side whose newest closed hedge settled at its maturity, at `maturedAtMs`. */
export interface Settlement {
  market: string;
  side: Side;
  maturedAtMs: number;
}

/**
 * The sides whose newest closed hedge (GET /hedges/history, newest first) settled at its maturity (exit type
 * `maturity`): the facts an `at maturity` roll's next Open is named from. A side with an open hedge is not rolled from
 * them (whoever reads them checks).
 */
export function settledAtMaturity(history: readonly Pick<ClosedHedge, "market" | "side" | "closed_at" | "exit_type">[]): Settlement[] {
  const newest = new Map<string, Pick<ClosedHedge, "market" | "side" | "closed_at" | "exit_type">>();
  for (const h of history) {
    const key = `${h.market}|${h.side}`;
    const seen = newest.get(key);
    if (!seen || utcMs(h.closed_at) > utcMs(seen.closed_at)) newest.set(key, h);
  }
  return [...newest.values()].flatMap((h) =>
    h.exit_type === "maturity" && isSide(h.side) && !Number.isNaN(utcMs(h.closed_at))
      ? [{ market: h.market, side: h.side, maturedAtMs: utcMs(h.closed_at) }]
      : [],
  );
}
