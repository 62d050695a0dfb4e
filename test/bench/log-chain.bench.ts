// Benchmark of the Hedge Log's hash chain: what checking 50,000 rows adds to month end, as month end reads them (goal: under 1 s), and what one append's link costs.
import { CHAIN_START, finalHashOf, rowHashOf } from "../../src/trading/log/log-chain";
import { LOG_COLUMNS, LOG_SHEET_NAME, cellsToLogRecord, type LogRecord } from "../../src/trading/log/hedge-log";
import { toExcelDate, type CellValue } from "../../src/trading/cells";
import type { PlacedLogRow } from "../../src/trading/workbook";
import { verifyLogChain } from "../../src/monthend/log-chain-check";

/** A log of n final rows the add-in wrote, linked and sealed (messages of 200 characters, as a busy log has). */
function chainedLog(n: number): LogRecord[] {
  const rows: LogRecord[] = [];
  let prev = CHAIN_START;
  for (let i = 0; i < n; i++) {
    const record: LogRecord = {
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
      errorCode: null,
      message: "m".repeat(200),
      sentAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000 + 100).toISOString(),
    };
    record.prevHash = prev;
    record.rowHash = rowHashOf(prev, record);
    record.finalHash = finalHashOf(record.rowHash, record);
    rows.push(record);
    prev = record.rowHash;
  }
  return rows;
}

/** The rows as month end gets them: written to cells (times as Excel serials), read back into records, with their sheet rows. */
function asRead(records: readonly LogRecord[]): PlacedLogRow[] {
  return records.map((r, i) => {
    const cells: CellValue[] = LOG_COLUMNS.map((c) => {
      const v = r[c.field];
      if (v === null || v === undefined) return "";
      return c.kind === "date" ? toExcelDate(String(v)) : (v as CellValue);
    });
    return { sheet: LOG_SHEET_NAME, rowNumber: i + 2, record: cellsToLogRecord(cells) };
  });
}

export async function run(): Promise<void> {
  const written = chainedLog(50_000);
  const rows = asRead(written);
  const head = written[written.length - 1].rowHash!;
  verifyLogChain(rows.slice(0, 1_000), null); // warm up
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const c = process.cpuUsage();
    const report = verifyLogChain(rows, head);
    const used = process.cpuUsage(c);
    times.push(performance.now() - t);
    cpu.push((used.user + used.system) / 1000);
    if (report.lines.length !== 0) throw new Error(`an untouched log was flagged: ${report.lines[0].message}`);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const median = times[2];
  const t = performance.now();
  for (let i = 0; i < 1_000; i++) rowHashOf(head, written[i]);
  const link = (performance.now() - t) / 1_000;
  console.log("| What | Figure | Goal |");
  console.log("|---|---|---|");
  console.log(
    `| Month end's chain check of 50,000 log rows as read back from cells (median of 5; fastest ${times[0].toFixed(0)} ms) | ${median.toFixed(0)} ms | under 1,000 ms ${median < 1_000 ? "✓" : "✗"} |`,
  );
  // On a shared machine the wall time includes the waits for a core; the process's CPU time is the work itself.
  console.log(`| The same, CPU time of the process (median of 5) | ${cpu[2].toFixed(0)} ms | |`);
  console.log(`| One row's link, at append | ${(link * 1000).toFixed(1)} µs | |`);
}
