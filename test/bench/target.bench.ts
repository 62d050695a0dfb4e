// HEDGE.TARGET: the time to compute a 10,000-row exposure model over 50 markets × 2 sides, undated and dated (value dates, maturities, rolls), and the requests its recalculations add (none beyond the shared positions poll).
import { performance } from "node:perf_hooks";
import { FakeInvocation, installFeeds } from "../functions/fake-invocation";
import "../../src/functions/engine"; // the functions' work, as the page's engine entry hands it over (after the CustomFunctions global)
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

const AS_OF = Date.UTC(2026, 10, 25, 9);
const DAY = 86_400_000;
const SERIAL = (ms: number) => (ms - Date.UTC(1899, 11, 30)) / DAY;

/** The model with a Value date column: every 5th row undated, the others due from 10 days before as_of to 90 after, half as Excel dates, half as ISO text. */
function datedModel(rows: number): unknown[][] {
  return model(rows).map((row, i) => {
    if (i === 0) return [...row, "Value date"];
    if (i % 5 === 0) return [...row, ""];
    const due = AS_OF + (((i * 37) % 100) - 10) * DAY + (i % 24) * 3_600_000;
    return [...row, i % 2 ? SERIAL(due) : new Date(due).toISOString()];
  });
}
/** The open hedges with maturities: every 4th inside the 24 h roll window. */
const DATED_POSITIONS = [
  [...POSITIONS[0], "maturity_at"],
  ...POSITIONS.slice(1).map((p, i) => [...p, SERIAL(AS_OF + (i % 4 === 0 ? 6 : 30 + i) * 3_600_000)]),
];

function computeScenario(label: string, exposures: unknown[][], positions: unknown[][]): void {
  const times: number[] = [];
  let rows = 0;
  let rolls = 0;
  for (let i = 0; i < 30; i++) {
    const start = performance.now();
    const proposed = propose({
      exposures: readExposures({ values: exposures as never }),
      policy: readPolicy({ values: POLICY as never }),
      holdings: readHoldings({ values: positions as never }),
      day: "2026-11-25",
      asOfMs: AS_OF,
    });
    const spill = proposalSpill(proposed);
    times.push(performance.now() - start);
    rows = spill.length - 1;
    rolls = proposed.filter((r) => r.clientReference.startsWith("ROLL-")).length;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const worst = times[times.length - 1];
  console.log(
    `${label}: 10,000 exposure rows, 50 markets × 2 sides, ${positions.length - 1} open hedges → ${rows} proposed rows, ${rolls} of them rolls (30 runs):`,
  );
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
  fn.target(exposures, POLICY, undefined as never, undefined, cell as never);
  for (let t = 0; t < seconds; t += 1) {
    if (recalc) {
      // Excel recalculates the formula (an input changed): the old invocation is cancelled, a new one starts.
      cell.cancel();
      cell = new FakeInvocation();
      fn.target(exposures, POLICY, undefined as never, undefined, cell as never);
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
  computeScenario("Undated", model(10_000), POSITIONS);
  computeScenario("Dated (value dates, maturities, rolls)", datedModel(10_000), DATED_POSITIONS);
  await requestScenario();
}
