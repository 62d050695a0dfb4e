// The "Hedge Recon YYYY-MM" sheet as plain content: header, realized hedges with totals per side, open positions, rolls with their cost and unhedged time per side (and each side's program cost beside ROLLCOST's), the controls changed, and the differences with the Hedge Log.
import { toExcelDate } from "../trading/cells";
import { utcMinute, utcMs } from "../api/time";
import { reconSheetName } from "./month";
import type { Reconciliation } from "./recon-model";
import { DIFFERENCE_LABELS } from "./recon-model";
import { CHAIN_KIND_LABELS, flaggedLines, type ChainReport } from "./log-chain-check";
import { SERVICE_KIND_LABELS } from "./log-vs-service";
import type { ServiceLine, ServiceReport } from "./recon-model";
import { FORMATS, type CellValue, type SheetContent, type SheetSection } from "../trading/sheet-content";
import { durationText } from "./side-time";
import type { ControlLine } from "./control-lines";
import { exactSum } from "./exact-sum";

type Kind = "text" | "usd" | "rate" | "date" | "count";

export interface Column<T> {
  header: string;
  kind: Kind;
  /** Width this column wants, in points (a sheet column takes the widest of its sections). */
  width: number;
  value: (item: T) => CellValue | undefined;
}

const FORMAT_OF: Record<Kind, string> = {
  text: FORMATS.text,
  usd: FORMATS.usd,
  rate: FORMATS.rate,
  date: FORMATS.date,
  count: FORMATS.count,
};

/** ISO → Excel serial (UTC); a missing or unreadable time is an empty cell. */
function date(iso: string | null | undefined): CellValue {
  if (!iso) return "";
  return Number.isFinite(utcMs(iso)) ? toExcelDate(iso) : String(iso);
}

type RealizedItem = Reconciliation["realized"][number];
type OpenItem = Reconciliation["open"][number];
type DifferenceItem = Reconciliation["differences"][number];
type ProgramItem = Reconciliation["programs"][number];

/** A figure that could not be priced (its quote refused, or not asked) reads so, in its cell. */
const NOT_KNOWN = "not known";
const known = (x: number | null): CellValue => (x === null ? NOT_KNOWN : x);
type SideTimeItem = Reconciliation["sideTime"][number];

const msDate = (t: number): CellValue => toExcelDate(new Date(t).toISOString());

/** What followed a hedge's end on its side, in words. */
function sideEventText(e: SideTimeItem): string {
  if (e.kind === "roll") return "Roll";
  return e.stillUnhedged ? "Unhedged: still flat when generated" : "Unhedged to the month's end";
}

export const REALIZED_COLUMNS: readonly Column<RealizedItem>[] = [
  { header: "Closed at (UTC)", kind: "date", width: 120, value: (l) => date(l.record.closed_at) },
  { header: "Opened at (UTC)", kind: "date", width: 120, value: (l) => date(l.record.opened_at) },
  { header: "Hedge id", kind: "text", width: 110, value: (l) => l.hedgeId },
  { header: "Client reference", kind: "text", width: 100, value: (l) => l.clientReference },
  { header: "Market", kind: "text", width: 60, value: (l) => l.record.market },
  { header: "Side", kind: "text", width: 40, value: (l) => l.record.side },
  { header: "Size (USD)", kind: "usd", width: 95, value: (l) => l.record.size_usd },
  { header: "Collateral (USDC)", kind: "usd", width: 95, value: (l) => l.record.collateral_usdc },
  { header: "Entry price", kind: "rate", width: 80, value: (l) => l.record.entry_price },
  { header: "Exit price", kind: "rate", width: 80, value: (l) => l.record.exit_price },
  { header: "Gross P&L (USD)", kind: "usd", width: 95, value: (l) => l.record.gross_pnl_usd },
  { header: "Carry (USD)", kind: "usd", width: 85, value: (l) => l.record.carry_usd },
  { header: "Fees (USD)", kind: "usd", width: 85, value: (l) => l.record.fees_usd },
  { header: "Net P&L (USD)", kind: "usd", width: 95, value: (l) => l.record.net_pnl_usd },
  { header: "Exit type", kind: "text", width: 65, value: (l) => String(l.record.exit_type) },
];

export const OPEN_COLUMNS: readonly Column<OpenItem>[] = [
  { header: "Market", kind: "text", width: 60, value: (l) => l.position.market },
  { header: "Side", kind: "text", width: 40, value: (l) => l.position.side },
  { header: "Hedge id", kind: "text", width: 110, value: (l) => l.hedgeId },
  { header: "Client reference", kind: "text", width: 100, value: (l) => l.clientReference },
  { header: "Opened at (UTC)", kind: "date", width: 120, value: (l) => date(l.openedAt) },
  { header: "Size (USD)", kind: "usd", width: 95, value: (l) => l.position.size_usd },
  { header: "Collateral (USDC)", kind: "usd", width: 95, value: (l) => l.position.collateral_usdc },
  { header: "Entry price", kind: "rate", width: 80, value: (l) => l.position.entry_price },
  { header: "Mark price", kind: "rate", width: 80, value: (l) => l.position.mark_price },
  { header: "Unrealized gross P&L (USD)", kind: "usd", width: 95, value: (l) => l.position.gross_pnl_usd },
  { header: "Accrued carry (USD)", kind: "usd", width: 85, value: (l) => l.position.accrued_carry_usd },
  { header: "Unrealized net P&L (USD)", kind: "usd", width: 95, value: (l) => l.position.net_pnl_usd },
  { header: "Closing fee (USD)", kind: "usd", width: 85, value: (l) => l.position.closing_fee_usd },
  { header: "Net margin (USD)", kind: "usd", width: 95, value: (l) => l.position.net_margin_usd },
  { header: "Maturity (UTC)", kind: "date", width: 120, value: (l) => date(l.position.maturity_at) },
];

export const DIFFERENCE_COLUMNS: readonly Column<DifferenceItem>[] = [
  { header: "Difference", kind: "text", width: 120, value: (d) => DIFFERENCE_LABELS[d.kind] },
  { header: "Hedge id", kind: "text", width: 110, value: (d) => d.hedgeId },
  { header: "Client reference", kind: "text", width: 100, value: (d) => d.clientReference },
  { header: "Market", kind: "text", width: 60, value: (d) => d.market },
  { header: "Side", kind: "text", width: 40, value: (d) => d.side },
  { header: "Log action", kind: "text", width: 60, value: (d) => d.logAction },
  { header: "Logged at (UTC)", kind: "date", width: 120, value: (d) => date(d.loggedAt) },
  { header: "Idempotency key", kind: "text", width: 80, value: (d) => d.logIdempotencyKey },
  { header: "Log says", kind: "text", width: 80, value: (d) => d.logSays },
  { header: "Service says", kind: "text", width: 80, value: (d) => d.serviceSays },
  { header: "Amount (USD)", kind: "usd", width: 85, value: (d) => d.amount },
  // Last on its row, so a long sentence runs on into the empty cells to its right.
  { header: "What it means", kind: "text", width: 85, value: (d) => d.detail },
];

/** The control rows of the period (control-lines.ts). */
export const CONTROL_COLUMNS: readonly Column<ControlLine>[] = [
  { header: "Logged at (UTC)", kind: "date", width: 120, value: (c) => date(c.loggedAt) },
  { header: "Control", kind: "text", width: 140, value: (c) => c.control },
  { header: "From", kind: "text", width: 60, value: (c) => c.from },
  { header: "To", kind: "text", width: 60, value: (c) => c.to },
  { header: "By", kind: "text", width: 130, value: (c) => c.by },
  { header: "Environment", kind: "text", width: 70, value: (c) => c.environment },
  { header: "Hash", kind: "text", width: 140, value: (c) => c.hash },
  { header: "Flag", kind: "text", width: 300, value: (c) => c.flag },
];

export const SIDE_TIME_COLUMNS: readonly Column<SideTimeItem>[] = [
  { header: "Market", kind: "text", width: 60, value: (e) => e.market },
  { header: "Side", kind: "text", width: 40, value: (e) => e.side },
  { header: "Hedge id", kind: "text", width: 110, value: (e) => e.hedgeId },
  { header: "Client reference", kind: "text", width: 100, value: (e) => e.clientReference },
  { header: "Ended at (UTC)", kind: "date", width: 120, value: (e) => msDate(e.endedAtMs) },
  { header: "Ended by", kind: "text", width: 65, value: (e) => e.endedBy },
  { header: "Followed by", kind: "text", width: 95, value: (e) => sideEventText(e) },
  { header: "Next hedge id", kind: "text", width: 110, value: (e) => e.next?.hedgeId },
  { header: "Next client reference", kind: "text", width: 100, value: (e) => e.next?.clientReference },
  { header: "Next filled at (UTC)", kind: "date", width: 120, value: (e) => (e.next ? msDate(e.next.coveredFromMs) : "") },
  { header: "Unhedged for", kind: "text", width: 80, value: (e) => durationText(e.gapMs) },
  { header: "Unhedged (hours)", kind: "rate", width: 80, value: (e) => e.gapMs / 3_600_000 },
  { header: "Fees (USD)", kind: "usd", width: 85, value: (e) => e.cost?.feesUsd },
  { header: "Carry (USD)", kind: "usd", width: 85, value: (e) => e.cost?.carryUsd },
  { header: "Exit impact (USD)", kind: "usd", width: 85, value: (e) => (e.cost ? known(e.cost.exitImpactUsd) : "") },
  { header: "Cost (USD)", kind: "usd", width: 85, value: (e) => (e.cost ? known(e.cost.costUsd) : "") },
];

export const PROGRAM_COLUMNS: readonly Column<ProgramItem>[] = [
  { header: "Program cost", kind: "text", width: 60, value: (p) => p.market },
  { header: "Side", kind: "text", width: 40, value: (p) => p.side },
  { header: "Hedges ended", kind: "count", width: 110, value: (p) => p.hedges },
  { header: "From (UTC)", kind: "date", width: 100, value: (p) => msDate(p.fromMs) },
  { header: "To (UTC)", kind: "date", width: 120, value: (p) => msDate(p.toMs) },
  { header: "Days", kind: "count", width: 65, value: (p) => p.days },
  { header: "Notional (USD)", kind: "usd", width: 95, value: (p) => p.notionalUsd },
  { header: "Tenor (days)", kind: "count", width: 110, value: (p) => p.tenor },
  { header: "Roll", kind: "text", width: 100, value: (p) => p.mode },
  { header: "Realized (USD)", kind: "usd", width: 120, value: (p) => known(p.realizedUsd) },
  { header: "ROLLCOST quotes (USD)", kind: "usd", width: 80, value: (p) => known(p.quotedUsd) },
  {
    header: "Realized − quoted (USD)",
    kind: "usd",
    width: 80,
    value: (p) => (p.realizedUsd === null || p.quotedUsd === null ? NOT_KNOWN : exactSum([p.realizedUsd, -p.quotedUsd])),
  },
  { header: "ROLLCOST hedges", kind: "count", width: 80, value: (p) => p.quotedHedges },
];

/** A line of the chain's table: a finding, or the sentence that its hashes hold. */
export interface ChainItem {
  label: string;
  sheet: string | null;
  rowNumber: number | null;
  message: string;
}

export const CHAIN_COLUMNS: readonly Column<ChainItem>[] = [
  { header: "Hedge Log chain", kind: "text", width: 120, value: (c) => c.label },
  { header: "Sheet", kind: "text", width: 110, value: (c) => c.sheet },
  { header: "Row", kind: "count", width: 100, value: (c) => c.rowNumber ?? "" },
  // Last on its row, so a long sentence runs on into the empty cells to its right.
  { header: "What it means", kind: "text", width: 60, value: (c) => c.message },
];

/** The label of the chain's line when it found no edit: what holds is the chain's hashes, not every cell (see CHAIN_HOLDS_WHY). */
export const CHAIN_HOLDS_LABEL = "Chain holds";

/**
 * The sentence that says the chain found no edit made in Excel, and what that covers: the hashes are not secret, so the
 * sealed cells rest on the chain alone, and the cells the service knows are checked in the table below.
 */
function chainHoldsSentence(chain: ChainReport): string {
  const end = chain.headKnown
    ? "; its last row is the newest this computer wrote"
    : " (this computer's journal holds no newest row of this log, so rows cut off its end could not be seen)";
  return `No edit found in Excel: the hashes of the ${chain.chained} rows of the chain hold, none deleted, inserted or moved${end}. The hashes are not secret: a rewrite that recomputes them holds too, so the sealed cells rest on the chain alone; the cells the service knows are checked below.`;
}

/** The chain's findings row by row, then, when none says a row was changed, the sentence that its hashes hold. */
export function chainItems(chain: ChainReport | null): ChainItem[] {
  if (!chain) return [];
  const items: ChainItem[] = chain.lines.map((l) => ({
    label: CHAIN_KIND_LABELS[l.kind],
    sheet: l.sheet,
    rowNumber: l.rowNumber,
    message: l.message,
  }));
  if (chain.chained > 0 && flaggedLines(chain).length === 0)
    items.push({ label: CHAIN_HOLDS_LABEL, sheet: null, rowNumber: null, message: chainHoldsSentence(chain) });
  return items;
}

/** What the chain's table says when it has no line. */
function chainEmpty(chain: ChainReport | null): string {
  if (!chain) return "The Hedge Log's hash chain was not checked.";
  return chain.rows === 0 ? "The Hedge Log has no rows: no chain to check." : chainHoldsSentence(chain);
}

export const SERVICE_COLUMNS: readonly Column<ServiceLine>[] = [
  { header: "Hedge Log against the service", kind: "text", width: 120, value: (l) => SERVICE_KIND_LABELS[l.kind] },
  { header: "Sheet", kind: "text", width: 110, value: (l) => l.sheet },
  { header: "Row", kind: "count", width: 100, value: (l) => l.rowNumber ?? "" },
  { header: "Column", kind: "text", width: 60, value: (l) => l.field },
  { header: "Log says", kind: "text", width: 40, value: (l) => l.logSays },
  { header: "Service says", kind: "text", width: 60, value: (l) => l.serviceSays },
  // Last on its row, so a long sentence runs on into the empty cells to its right.
  { header: "What it means", kind: "text", width: 120, value: (l) => l.message },
];

/** What the table of the log against the service says when it has no line: by class, so that nothing is said of a cell it did not check. */
function serviceEmpty(service: ServiceReport): string {
  const { checked, sealed, workbookOnly } = service.cells;
  const rows = `${service.compared} row(s) compared with the hedges the service shows`;
  const partial = service.complete ? "" : " (the service's hedges could not all be read: rows whose hedge was not read were not compared)";
  return `No difference in the ${checked} cells checked against the service (${rows}${partial}); no action of the service after the newest row. Not checked against the service: ${sealed} sealed cells (held only by the hash chain) and ${workbookOnly} cells in the workbook only.`;
}

/** The log's cells against the service, after an empty row: one line per finding, at its row (none when it was not run). */
function serviceTable(sheet: SheetBuilder, service: ServiceReport | null): void {
  if (!service) return;
  sheet.blank();
  sheet.table(SERVICE_COLUMNS, service.lines, serviceEmpty(service));
}

/** The header's count of each class of the log's cells. */
export const CELL_CLASS_LABELS = {
  checked: "Log cells checked against the service",
  sealed: "Log cells sealed (held only by the hash chain)",
  workbookOnly: "Log cells in the workbook only",
} as const;

/** The label of the header's first line when the history was read only in part. */
export const HISTORY_INCOMPLETE_LABEL = "WARNING: history incomplete";

/** What the program cost table compares, and how ROLLCOST's figure is had (the month-end guide says the same). */
export const PROGRAM_NOTE =
  "Program cost: per market side, the hedges that ended in the period (fees + carry paid + the exit impact of those closed before maturity, as quoted for their size when this sheet was made) beside =HEDGE.ROLLCOST for the same side, the first one's size and the days from its fill to the last end, at the longest tenor used, early when a hedge was closed before maturity and rolled, with Roll within 24, from quotes asked when this sheet was made; ROLLCOST's entry impact is left out on both sides (the service's history does not show it).";

/** Builds the sheet; one row per hedge, position or difference, plain values only. */
export function reconContent(recon: Reconciliation): SheetContent {
  const sheet = new SheetBuilder(
    Math.max(REALIZED_COLUMNS.length, OPEN_COLUMNS.length, DIFFERENCE_COLUMNS.length, SIDE_TIME_COLUMNS.length, PROGRAM_COLUMNS.length, 2),
  );
  summarySection(sheet, recon);
  sheet.blank();
  realizedSection(sheet, recon);
  sheet.blank();
  openSection(sheet, recon);
  sheet.blank();
  sheet.section("Rolls and unhedged time: each hedge that ended in the period", () => {
    sheet.table(SIDE_TIME_COLUMNS, recon.sideTime, "No hedge ended in the period.");
    if (recon.programs.length === 0) return;
    sheet.blank();
    sheet.table(PROGRAM_COLUMNS, recon.programs, "");
    sheet.line("Note", PROGRAM_NOTE, FORMATS.text);
  });
  sheet.blank();
  sheet.section("Controls changed in the period", () =>
    sheet.table(CONTROL_COLUMNS, recon.controls, "No control row in the period: no control was changed from this workbook's pane."),
  );
  sheet.blank();
  sheet.section("Differences with the Hedge Log", () => {
    sheet.table(
      DIFFERENCE_COLUMNS,
      recon.differences,
      "None of these differences: every log action of the period has its hedge at the service and every service hedge its log rows, with the same status and net notional (the log's other cells: the chain and the check against the service, below).",
    );
    sheet.blank();
    sheet.table(CHAIN_COLUMNS, chainItems(recon.chain), chainEmpty(recon.chain));
    serviceTable(sheet, recon.service);
  });
  return sheet.content(reconSheetName(recon.window.label));
}

/** The sheet's rows as they are added: values, formats, bold rows, titled sections and column widths. */
class SheetBuilder {
  private readonly values: CellValue[][] = [];
  private readonly formats: string[][] = [];
  private readonly boldRows: number[] = [];
  private readonly sections: SheetSection[] = [];
  readonly widths: number[];

  constructor(private readonly width: number) {
    this.widths = Array.from({ length: width }, () => 0);
  }

  push(cells: Array<[CellValue | undefined, string]>, bold = false): void {
    const row: CellValue[] = Array.from({ length: this.width }, () => "");
    const fmt: string[] = Array.from({ length: this.width }, () => FORMATS.general);
    cells.forEach(([v, f], i) => {
      row[i] = v === undefined || v === null ? "" : v;
      fmt[i] = f;
    });
    if (bold) this.boldRows.push(this.values.length);
    this.values.push(row);
    this.formats.push(fmt);
  }

  blank(): void {
    this.push([]);
  }

  /** A bold title row, then the body's rows, recorded as one section. */
  section(title: string, body: () => void): void {
    const firstRow = this.values.length;
    this.push([[title, FORMATS.text]], true);
    body();
    this.sections.push({ title, firstRow, lastRow: this.values.length - 1 });
  }

  /** A label and one value. */
  line(label: string, value: CellValue, format: string, bold = false): void {
    this.push(
      [
        [label, FORMATS.text],
        [value, format],
      ],
      bold,
    );
  }

  /** A bold header row, then one row per item (or the `empty` sentence). */
  table<T>(columns: readonly Column<T>[], items: readonly T[], empty: string): void {
    columns.forEach((c, i) => (this.widths[i] = Math.max(this.widths[i], c.width)));
    this.push(
      columns.map((c) => [c.header, FORMATS.text]),
      true,
    );
    if (items.length === 0) this.push([[empty, FORMATS.text]]);
    for (const item of items) this.push(columns.map((c) => [c.value(item), FORMAT_OF[c.kind]]));
  }

  /** A totals row: label in the first column, amounts under their own headers. */
  totalsRow<T>(columns: readonly Column<T>[], label: string, amounts: Record<string, number>): void {
    this.push(
      columns.map((c, i) =>
        i === 0 ? [label, FORMATS.text] : c.header in amounts ? [amounts[c.header], FORMAT_OF[c.kind]] : ["", FORMATS.general],
      ),
      true,
    );
  }

  content(name: string): SheetContent {
    const { values, formats, boldRows, sections } = this;
    return { name, values, formats, columnWidths: this.widths.map((w) => w || 64), boldRows, sections };
  }
}

/** The title section: a cut-short history first, then the environment, the period, the counts and the notes. */
function summarySection(sheet: SheetBuilder, recon: Reconciliation): void {
  const { counts, window: month } = recon;
  sheet.section(`Hedge reconciliation ${month.label}`, () => {
    // First and bold: a history read cut short changes what every section below can be trusted for.
    if (recon.historyIncomplete) sheet.line(HISTORY_INCOMPLETE_LABEL, recon.historyIncomplete, FORMATS.text, true);
    sheet.line("Environment", recon.environment, FORMATS.text);
    sheet.line("Account address", recon.accountAddress ?? "not configured", FORMATS.text);
    sheet.line("Period start (UTC)", toExcelDate(new Date(month.startMs).toISOString()), FORMATS.date);
    sheet.line("Period end (UTC, exclusive)", toExcelDate(new Date(month.endMs).toISOString()), FORMATS.date);
    sheet.line("Generated at (UTC)", toExcelDate(new Date(recon.generatedAtMs).toISOString()), FORMATS.date);
    sheet.line("Hedges closed in the period", counts.realized, FORMATS.count);
    sheet.line("Open positions", counts.open, FORMATS.count);
    sheet.line("Service hedges in the period", counts.serviceHedges, FORMATS.count);
    sheet.line("Log rows matched", counts.logRows, FORMATS.count);
    sheet.line("Differences", counts.differences, FORMATS.count);
    sheet.line("Actions pending", counts.pending, FORMATS.count);
    sheet.line("Rolls", counts.rolls, FORMATS.count);
    sheet.line("Hedge ends not reopened", counts.unhedged, FORMATS.count);
    sheet.line("Control rows", counts.controls, FORMATS.count);
    if (recon.chain) sheet.line("Hedge Log chain findings", counts.chainFindings, FORMATS.count);
    if (recon.service) {
      sheet.line("Hedge Log against the service findings", counts.serviceFindings, FORMATS.count);
      sheet.line(CELL_CLASS_LABELS.checked, recon.service.cells.checked, FORMATS.count);
      sheet.line(CELL_CLASS_LABELS.sealed, recon.service.cells.sealed, FORMATS.count);
      sheet.line(CELL_CLASS_LABELS.workbookOnly, recon.service.cells.workbookOnly, FORMATS.count);
    }
    for (const note of recon.notes) sheet.line("Note", note, FORMATS.text);
  });
  sheet.widths[0] = Math.max(sheet.widths[0], 150);
  sheet.widths[1] = Math.max(sheet.widths[1], 120);
}

/** Hedges closed in the period, with a totals row per side and for all. */
function realizedSection(sheet: SheetBuilder, recon: Reconciliation): void {
  sheet.section("Realized: hedges closed in the period", () => {
    sheet.table(REALIZED_COLUMNS, recon.realized, "No hedge closed in the period.");
    for (const t of recon.realizedTotals) {
      const label = t.label === "all" ? `Total (${t.count})` : `Total ${t.label} (${t.count})`;
      sheet.totalsRow(REALIZED_COLUMNS, label, {
        "Size (USD)": t.sizeUsd,
        "Gross P&L (USD)": t.grossPnlUsd,
        "Carry (USD)": t.carryUsd,
        "Fees (USD)": t.feesUsd,
        "Net P&L (USD)": t.netPnlUsd,
      });
    }
  });
}

/** Positions open when the sheet was made, with their totals. */
function openSection(sheet: SheetBuilder, recon: Reconciliation): void {
  sheet.section(`Open positions at ${utcMinute(recon.generatedAtMs)}`, () => {
    sheet.table(OPEN_COLUMNS, recon.open, "No open position.");
    const t = recon.openTotals;
    sheet.totalsRow(OPEN_COLUMNS, `Total (${t.count})`, {
      "Size (USD)": t.sizeUsd,
      "Unrealized gross P&L (USD)": t.grossPnlUsd,
      "Accrued carry (USD)": t.accruedCarryUsd,
      "Unrealized net P&L (USD)": t.netPnlUsd,
    });
  });
}
