// Benchmark of the Hedge Log's hash chain: what checking 50,000 rows adds to month end (goal: under 1 s), and what one append's link costs.
import { CHAIN_START, checkChain, finalHashOf, rowHashOf, type ChainRow } from "../../src/trading/log-chain";
import type { LogRecord } from "../../src/trading/hedge-log";

/** A log of n final rows the add-in wrote, linked and sealed (messages of 200 characters, as a busy log has). */
function chainedLog(n: number): ChainRow[] {
  const rows: ChainRow[] = [];
  let prev = CHAIN_START;
  for (let i = 0; i < n; i++) {
    const record: Partial<LogRecord> = {
      loggedAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
      environment: "production",
      action: ["open", "add", "reduce", "close"][i % 4],
      market: "USDTNGN",
      side: i % 2 ? "sell" : "buy",
      notional: i % 4 === 3 ? null : 10_000 + i,
      tenor: i % 4 === 0 ? 7 : null,
      clientReference: `DEAL-${i}`,
      idempotencyKey: `5f0c2a8e-7b1d-4c3e-9a2f-${String(i).padStart(12, "0")}`,
      account: "0x5a4d0e1b2c3f40516273849a0b1c2d3e4f506172",
      status: "filled",
      hedgeId: `hdg_${i}`,
      orderTxHash: `0x${"a".repeat(64)}`,
      fillTxHash: `0x${"b".repeat(64)}`,
      struckRate: 1500.25,
      filledAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000 + 5_000).toISOString(),
      message: "m".repeat(200),
    };
    const rowHash = rowHashOf(prev, record);
    rows.push({ rowNumber: i + 2, record, chain: { prevHash: prev, rowHash, finalHash: finalHashOf(rowHash, record) }, final: true });
    prev = rowHash;
  }
  return rows;
}

export async function run(): Promise<void> {
  const rows = chainedLog(50_000);
  const head = rows[rows.length - 1].chain.rowHash;
  checkChain(rows.slice(0, 1_000), head); // warm up
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const findings = checkChain(rows, head);
    times.push(performance.now() - t);
    if (findings.length !== 0) throw new Error(`an untouched log was flagged: ${findings[0].message}`);
  }
  times.sort((a, b) => a - b);
  const median = times[2];
  const t = performance.now();
  for (let i = 0; i < 1_000; i++) rowHashOf(head!, rows[i].record);
  const link = (performance.now() - t) / 1_000;
  console.log("| What | Figure | Goal |");
  console.log("|---|---|---|");
  console.log(
    `| Checking the chain of 50,000 log rows (median of 5) | ${median.toFixed(0)} ms | under 1,000 ms ${median < 1_000 ? "✓" : "✗"} |`,
  );
  console.log(`| One row's link, at append | ${(link * 1000).toFixed(1)} µs | |`);
}
