// HEDGE.TARGET: the time to compute a 10,000-row exposure model over 50 markets × 2 sides, and the requests its recalculations add (none beyond the shared positions poll).
import { performance } from "node:perf_hooks";
import { FakeInvocation, installFeeds } from "../functions/fake-invocation";
import * as fn from "../../src/functions/functions";
import { position } from "../feeds/fake-client";
import { readExposures, readHoldings, readPolicy } from "../../src/policy/inputs";
import { proposalSpill, propose } from "../../src/policy/target";

const TARGET_MS = 100;
const MARKETS = Array.from(
  { length: 50 },
  (_, i) => `USDT${String.fromCharCode(65 + Math.floor(i / 26))}${String.fromCharCode(65 + (i % 26))}X`,
);

/** A deterministic model: 10,000 rows cycling through 50 markets and both sides, amounts with cents. */
function model(rows: number): unknown[][] {
  const out: unknown[][] = [["Market", "Side", "Amount (USD)"]];
  for (let i = 0; i < rows; i++) out.push([MARKETS[i % 50], i % 7 < 4 ? "buy" : "sell", 10_000 + ((i * 7919) % 250_000) + (i % 100) / 100]);
  return out;
}

const POLICY = [
  ["Market", "Hedge ratio (%)", "Tenor (days)", "Round to (USD)", "Min trade (USD)", "Max trade (USD)", "Net sides"],
  ["*", 75, 7, 1_000, 10_000, 5_000_000, "yes"],
  [MARKETS[0], 50, 3, 1_000, 10_000, "", "no"],
];
const POSITIONS = [
  ["market", "side", "size_usd"],
  ...MARKETS.flatMap((m, i) => (i % 3 === 0 ? [] : [[m, i % 2 ? "buy" : "sell", 1_000_000]])),
];

function computeScenario(): void {
  const exposures = model(10_000);
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < 30; i++) {
    const start = performance.now();
    const spill = proposalSpill(
      propose({
        exposures: readExposures({ values: exposures as never }),
        policy: readPolicy({ values: POLICY as never }),
        holdings: readHoldings({ values: POSITIONS as never }),
        day: "2026-11-25",
      }),
    );
    times.push(performance.now() - start);
    rows = spill.length - 1;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const worst = times[times.length - 1];
  console.log(`10,000 exposure rows, 50 markets × 2 sides, ${POSITIONS.length - 1} open hedges → ${rows} proposed rows (30 runs):`);
  console.log(
    `  median ${median.toFixed(1)} ms, slowest ${worst.toFixed(1)} ms (first run, cold) — target < ${TARGET_MS} ms: ${median < TARGET_MS ? "met" : "NOT MET"}`,
  );
}

/** GET /positions over `seconds` with one TARGET cell, re-entered every second or not, with or without a POSITIONS cell beside it. */
async function positionsRequests(
  seconds: number,
  recalc: boolean,
  withPositionsCell: boolean,
): Promise<{ positions: number; other: number }> {
  const feeds = installFeeds();
  feeds.client.positions_ = [position({ side: "buy", size_usd: 500_000 })];
  if (withPositionsCell) fn.positions(undefined, undefined, new FakeInvocation() as never);
  const exposures = model(10_000);
  let cell = new FakeInvocation();
  fn.target(exposures, POLICY, undefined, undefined, cell as never);
  for (let t = 0; t < seconds; t += 1) {
    if (recalc) {
      // Excel recalculates the formula (an input changed): the old invocation is cancelled, a new one starts.
      cell.cancel();
      cell = new FakeInvocation();
      fn.target(exposures, POLICY, undefined, undefined, cell as never);
    }
    await feeds.advance(1_000);
  }
  const other = (["prices", "account", "markets", "hedges", "quote"] as const).reduce((n, e) => n + feeds.client.count(e as never), 0);
  const positions = feeds.client.count("positions");
  feeds.hub.dispose();
  return { positions, other };
}

async function requestScenario(): Promise<void> {
  const seconds = 60;
  console.log(`Requests over ${seconds} s simulated (GET /positions every 2 s), one HEDGE.TARGET cell on the live positions:`);
  for (const beside of [false, true]) {
    const still = await positionsRequests(seconds, false, beside);
    const recalculated = await positionsRequests(seconds, true, beside);
    console.log(
      `  ${beside ? "beside HEDGE.POSITIONS" : "alone               "}: not recalculated ${still.positions} GET /positions; recalculated every second (${seconds}×) ${recalculated.positions} GET /positions, ${recalculated.other} other — added per recalculation: ${((recalculated.positions - still.positions) / seconds).toFixed(2)}`,
    );
  }
}

export async function run(): Promise<void> {
  computeScenario();
  await requestScenario();
}
