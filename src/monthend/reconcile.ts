// Month-end reconciliation as a short pipeline of named phases: the service's history, positions and hedges against the Hedge Log rows, with every difference named.
import { sameAccount } from "../trading/duplicates";
import { isControlRecord } from "../trading/log/control-row";
import { attributeLogRows } from "./attribute-log";
import { controlLines, controlNote } from "./control-lines";
import { attributeRecords } from "./attribute-records";
import { findDifferences } from "./differences";
import { flaggedLines } from "./log-chain-check";
import { historyWarning, reconNotes } from "./recon-notes";
import type { MonthData, Reconciliation } from "./recon-model";
import { openLines, openTotals, realizedLines, realizedTotals } from "./sections";
import { sideTimeline } from "./side-time";

/**
 * Reconciles one month. Pure: the same data gives the same sheet.
 *  1. attributeRecords: the service's hedges, and the hedge of each history record;
 *  2. attributeLogRows: the hedge each log row (this environment and account) acted on;
 *  3. findDifferences: per log row, per service hedge of the month, per realized record no row explains;
 *  4. sideTimeline: each hedge that ended in the month, the roll that followed or the unhedged time;
 *  5. historyWarning / reconNotes: what the reader must know first;
 *  6. controlLines: the log's control rows of the period, an unticking of LIVE approval flagged (and noted first).
 * The chain check (verifyLogChain, over every row read, in their places) is run before, by the caller, and carried along.
 */
export function reconcile(data: MonthData): Reconciliation {
  const env = data.environment.toLowerCase();
  // Control rows (a change of a control) are no trade: listed apart, never matched with the service.
  const trades = data.log.filter((r) => !isControlRecord(r));
  const ownLog = trades.filter((r) => String(r.environment).toLowerCase() === env && sameAccount(r.account, data.accountAddress));
  const otherLogRows = trades.length - ownLog.length;
  const controls = controlLines(data.log, data.window);
  const controlWarning = controlNote(controls);

  const book = attributeRecords(data.hedges, data.history);
  const realized = realizedLines(data.history, data.window, book);
  const open = openLines(data.positions, book);
  const attributed = attributeLogRows(ownLog, book);
  const { differences, scopedLogRows, serviceHedges } = findDifferences({ month: data.window, book, attributed, realized });
  const sideTime = sideTimeline(book.hedges.values(), data.window, data.generatedAtMs);

  return {
    environment: data.environment,
    accountAddress: data.accountAddress,
    window: data.window,
    generatedAtMs: data.generatedAtMs,
    historyIncomplete: historyWarning(data, realized.length),
    realized,
    realizedTotals: realizedTotals(realized),
    open,
    openTotals: openTotals(open),
    differences,
    sideTime,
    programs: [],
    chain: data.chain ?? null,
    service: data.service ?? null,
    controls,
    counts: {
      realized: realized.length,
      open: open.length,
      logRows: scopedLogRows,
      otherEnvironmentLogRows: otherLogRows,
      serviceHedges,
      differences: differences.length,
      pending: differences.filter((d) => d.kind === "pending").length,
      rolls: sideTime.filter((e) => e.kind === "roll").length,
      unhedged: sideTime.filter((e) => e.kind === "unhedged").length,
      chainFindings: flaggedLines(data.chain ?? null).length,
      serviceFindings: data.service?.lines.length ?? 0,
      controls: controls.length,
      controlFlags: controls.filter((c) => c.flag !== null).length,
    },
    notes: controlWarning ? [controlWarning, ...reconNotes(data, otherLogRows)] : reconNotes(data, otherLogRows),
  };
}
