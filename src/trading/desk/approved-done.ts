// Before an approved batch is sent: what of it the service already shows done (by another approval of the same batch, on another computer or under another key), so that such a row is recorded as done, never sent.
import type { HedgingClient } from "../../api/client";
import type { Environment } from "../../api/environment";
import { check } from "../fills";
import { intentFromRow, type IntentPatch } from "../intent";
import type { TradeRow } from "../types";

/** A line of the batch the service shows done: its final (or `submitted`) state to record, and what the service shows. */
export interface DoneLine {
  patch: IntentPatch;
  says: string;
}

/**
 * Asks the service about the batch's Open lines: a hedge of the line's market side carrying its client reference,
 * opened since the batch was prepared (`since`, its Prepared at), is that line done by another approval (fills.ts's
 * observe and verdict.ts's judgment, as for a row in doubt). An Add, Reduce or Close is judged by the side's hedge against
 * the row's notional before, which only the computer that sent it knows (its journal and log: the desk's keysHeld): the
 * service's idempotency, scoped per account, is what keeps a second approval of those from acting twice.
 * An error asking the service propagates: nothing is sent on a guess.
 */
export async function doneOnService(
  client: HedgingClient,
  lines: ReadonlyArray<{ row: TradeRow; index: number; key: string }>,
  since: string,
  environment: Environment,
  account: string | null,
  signal?: AbortSignal,
): Promise<Map<number, DoneLine>> {
  const done = new Map<number, DoneLine>();
  for (const { row, index, key } of lines) {
    if (row.action !== "open" || !row.clientReference) continue;
    const probe = intentFromRow(row, key, environment, since, account);
    const { verdict } = await check(client, probe, signal);
    if (verdict.kind === "effect")
      done.set(index, { patch: verdict.patch, says: `Done already by another approval of this batch: ${verdict.says}` });
  }
  return done;
}
