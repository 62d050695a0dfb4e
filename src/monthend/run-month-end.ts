// Reconcile month, end to end: read the Hedge Log (and check its hash chain) and the service, check the log's cells against the service, reconcile, write the "Hedge Recon YYYY-MM" sheet; progress for the pane.
import { LOG_SHEET_NAME, type LogRecord } from "../trading/log/hedge-log";
import { journalRecords, type PlacedLogRow } from "../trading/workbook";
import { verifyLogChain, type ChainReport } from "./log-chain-check";
import { checkLogAgainstService } from "./log-vs-service";
import { fetchMonthData, type MonthEndClient } from "./month-data";
import { monthWindow } from "./month";
import { reconcile } from "./reconcile";
import { costQuestions, priceRolls } from "./roll-costs";
import { mapLimited } from "../trading/map-limited";
import { quoteKey, type QuoteCosts } from "../policy/rollcost";
import type { Reconciliation } from "./recon-model";
import { reconContent } from "./recon-layout";
import type { SheetWriter, WrittenSheet } from "../trading/sheet-content";

export interface ReconcileMonthDeps {
  client: MonthEndClient;
  /** Every row of the Hedge Log (Workbook.readLog). */
  readLog(): Promise<LogRecord[]>;
  /**
   * Every row with its sheet and row (Workbook.readLogRows): read instead of readLog, and the log's hash chain is checked
   * over them. Absent: the chain is not checked.
   */
  readLogRows?(): Promise<PlacedLogRow[]>;
  /** The newest link this computer wrote into this workbook's log (chainHeadOf), null when it holds none. */
  chainHead?(): Promise<string | null>;
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
  const placed = deps.readLogRows ? await deps.readLogRows() : null;
  const log = placed ? journalRecords(placed) : await deps.readLog();
  let chain: ChainReport | null = null;
  if (placed) {
    progress("Checking the Hedge Log's chain…");
    chain = verifyLogChain(placed, deps.chainHead ? await deps.chainHead() : null);
  }
  const fetched = await fetchMonthData(deps.client, period, log, { now: deps.now, onProgress: progress, signal: options.signal });
  progress("Checking the Hedge Log against the service…");
  const service = checkLogAgainstService({
    // Without the rows' places (an older workbook port), rows are named as they stand in the log: from sheet row 2.
    rows: placed ?? log.map((record, i) => ({ sheet: LOG_SHEET_NAME, rowNumber: i + 2, record })),
    environment: fetched.environment,
    accountAddress: fetched.accountAddress,
    hedges: fetched.hedges,
    history: fetched.history,
    historyWholeFromMs: fetched.historyComplete ? period.startMs : null,
    hedgesComplete: fetched.hedgesComplete,
  });
  const data = { ...fetched, chain, service };
  progress("Reconciling…");
  const reconciled = reconcile(data);
  progress("Pricing the rolls…");
  const quotes = await askQuotes(deps.client, costQuestions(reconciled), options.signal);
  const reconciliation = { ...reconciled, ...priceRolls(reconciled, (q) => quotes.get(quoteKey(q)) ?? null) };
  progress("Writing the sheet…");
  const sheet = await deps.writer.writeSheet(reconContent(reconciliation));
  return { reconciliation, sheet };
}

/** Most distinct quotes month end asks to price the rolls (each early end's exit and each side's program). */
export const ROLL_QUOTES_MAX = 100;

/**
 * The quotes of the roll costs, two at a time, at most ROLL_QUOTES_MAX: a quote refused, or one past the bound, is left
 * out (the figures that need it read "not known"). Quotes are indicative and change nothing at the service.
 */
async function askQuotes(
  client: MonthEndClient,
  questions: ReturnType<typeof costQuestions>,
  signal: AbortSignal | undefined,
): Promise<Map<string, QuoteCosts>> {
  const out = new Map<string, QuoteCosts>();
  const quote = client.quote?.bind(client);
  if (!quote) return out;
  await mapLimited(
    questions.slice(0, ROLL_QUOTES_MAX),
    2,
    async (q) => {
      try {
        out.set(quoteKey(q), (await quote(q, signal)).data);
      } catch {
        // Not known: said on the sheet where the figure would stand.
      }
    },
    signal,
  );
  return out;
}
