// Reconcile month, end to end: read the Hedge Log and the service, reconcile, write the "Hedge Recon YYYY-MM" sheet; progress for the pane.
import type { LogRecord } from "../trading/hedge-log";
import { fetchMonthData, type MonthEndClient } from "./month-data";
import { monthWindow } from "./month";
import { reconcile } from "./reconcile";
import type { Reconciliation } from "./recon-model";
import { reconContent } from "./recon-layout";
import type { SheetWriter, WrittenSheet } from "./sheet-content";

export interface ReconcileMonthDeps {
  client: MonthEndClient;
  /** Every row of the Hedge Log (Workbook.readLog). */
  readLog(): Promise<LogRecord[]>;
  writer: SheetWriter;
  /** Epoch ms of "now"; the time generated. */
  now?: () => number;
}

export interface ReconcileMonthOptions {
  onProgress?: (message: string) => void;
  signal?: AbortSignal;
}

export interface ReconcileMonthResult {
  reconciliation: Reconciliation;
  sheet: WrittenSheet;
}

/** "2026-11" → a new recon sheet. Reads only; nothing is sent that changes anything at the service. */
export async function reconcileMonth(
  deps: ReconcileMonthDeps,
  month: string,
  options: ReconcileMonthOptions = {},
): Promise<ReconcileMonthResult> {
  const period = monthWindow(month);
  const progress = options.onProgress ?? (() => undefined);
  progress("Reading the Hedge Log…");
  const log = await deps.readLog();
  const data = await fetchMonthData(deps.client, period, log, { now: deps.now, onProgress: progress, signal: options.signal });
  progress("Reconciling…");
  const reconciliation = reconcile(data);
  progress("Writing the sheet…");
  const sheet = await deps.writer.writeSheet(reconContent(reconciliation));
  return { reconciliation, sheet };
}
