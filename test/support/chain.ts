// The Hedge Log as month end's chain check reads it: records in sheet order (header on row 1) into ChainRows, and the check's findings in short.
import { checkChain, type ChainRow } from "../../src/trading/log/log-chain";
import { isFinal } from "../../src/trading/intent";
import type { LogRecord } from "../../src/trading/log/hedge-log";

/** The log's records in sheet order as ChainRows (the first body row is sheet row 2). */
export function chainRows(records: readonly LogRecord[]): ChainRow[] {
  return records.map((record, i) => ({
    rowNumber: i + 2,
    record,
    chain: { prevHash: record.prevHash ?? null, rowHash: record.rowHash ?? null, finalHash: record.finalHash ?? null },
    final: isFinal(record.status),
  }));
}

/** checkChain's findings as "kind@row" (empty: the chain checks clean). */
export function chainFindings(records: readonly LogRecord[], head: string | null = null): string[] {
  return checkChain(chainRows(records), head).map((f) => `${f.kind}@${f.rowNumber ?? "-"}`);
}
