// The month-end panel's state and actions (month picked, Reconcile month, Snapshot to values with its confirmation, progress and results), without the DOM.
import { isHedgingApiError } from "../api/errors";
import type { LogRecord } from "../trading/log/hedge-log";
import type { PlacedLogRow } from "../trading/workbook";
import type { SnapshotResult, SnapshotScope, Snapshotter } from "./snapshot-plan";
import type { MonthEndClient } from "./month-data";
import { defaultMonth, monthLabel, recentMonths } from "./month";
import { reconcileMonth } from "./run-month-end";
import type { SheetWriter } from "../trading/sheet-content";

export interface MonthEndPanelDeps {
  /** The client to use now, or null when no API key is set (the shared runtime's `connection.client`). */
  client: () => MonthEndClient | null;
  /** Every row of the Hedge Log (the engine's Workbook.readLog). */
  readLog: () => Promise<LogRecord[]>;
  /** Every row with its place (Workbook.readLogRows): read instead, and the log's hash chain checked over it. */
  readLogRows?: () => Promise<PlacedLogRow[]>;
  /** The newest link this computer wrote into this workbook's log: chainHeadOf(journal, workbook id). */
  chainHead?: () => Promise<string | null>;
  /** Writes the recon sheet: officeSheetWriter() in Excel, new MemorySheetWriter(memoryWorkbook) in the harness. */
  writer: SheetWriter;
  /** Snapshot to values: officeSnapshotter() in Excel; null where the workbook holds no formulas (the button is hidden). */
  snapshotter: Snapshotter | null;
  /** Epoch ms now; Date.now by default. */
  now?: () => number;
}

export type MessageKind = "info" | "success" | "warning" | "error";

export interface PanelMessage {
  kind: MessageKind;
  text: string;
  /** Further lines (skipped formulas, the error's advice). */
  details: string[];
}

export interface MonthEndView {
  months: string[];
  month: string;
  busy: "reconcile" | "snapshot" | null;
  /** The snapshot waiting for the user's confirmation, if any. */
  confirming: SnapshotScope | null;
  progress: string | null;
  message: PanelMessage | null;
}

const usd = (n: number) => n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** An error as the user should read it: the service's code and message, and what to do. Never the key (the client redacts it). */
export function errorMessage(e: unknown): PanelMessage {
  if (isHedgingApiError(e)) return { kind: "error", text: `${e.code}: ${e.message}`, details: e.advice ? [`What to do: ${e.advice}`] : [] };
  return { kind: "error", text: e instanceof Error ? e.message : String(e), details: [] };
}

/** What Snapshot to values did, in words. */
export function snapshotMessage(result: SnapshotResult): PanelMessage {
  const where = result.sheetName;
  const marker =
    result.marker === "note" ? "a note" : result.marker === "comment" ? "a comment" : "no note (this Excel has neither notes nor comments)";
  const details = result.skipped.map((s) => `${s.address} ${s.formula} left as a formula: ${s.reason}.`);
  if (result.replaced.length === 0 && result.skipped.length === 0) {
    return { kind: "info", text: `No HEDGE formulas found on ${where}: nothing was changed.`, details: [] };
  }
  const text =
    result.replaced.length > 0
      ? `Replaced ${plural(result.replaced.length, "HEDGE formula")} (${plural(result.cells, "cell")}) on ${where} by their values; each has ${marker} saying when.`
      : `No formula was replaced on ${where}.`;
  return { kind: result.skipped.length > 0 ? "warning" : "success", text, details };
}

export class MonthEndController {
  private state: MonthEndView;
  private readonly listeners = new Set<(view: MonthEndView) => void>();
  private readonly now: () => number;

  constructor(private readonly deps: MonthEndPanelDeps) {
    this.now = deps.now ?? Date.now;
    const now = this.now();
    this.state = {
      months: recentMonths(now),
      month: monthLabel(defaultMonth(now)),
      busy: null,
      confirming: null,
      progress: null,
      message: null,
    };
  }

  get view(): MonthEndView {
    return this.state;
  }

  get canSnapshot(): boolean {
    return this.deps.snapshotter !== null;
  }

  /** Calls the listener now and on every change. */
  subscribe(listener: (view: MonthEndView) => void): () => void {
    this.listeners.add(listener);
    listener(this.state);
    return () => this.listeners.delete(listener);
  }

  selectMonth(month: string): void {
    if (!this.state.months.includes(month)) return;
    this.set({ month });
  }

  /** Reads the log and the service for the picked month and writes a new recon sheet. */
  async reconcile(): Promise<void> {
    if (this.state.busy) return;
    const client = this.deps.client();
    if (!client) {
      this.set({
        message: {
          kind: "error",
          text: "Not connected: enter your API key in the connection section and Connect, then reconcile.",
          details: [],
        },
      });
      return;
    }
    const month = this.state.month;
    this.set({ busy: "reconcile", confirming: null, progress: `Reconciling ${month}…`, message: null });
    try {
      const { reconciliation: r, sheet } = await reconcileMonth(
        {
          client,
          readLog: this.deps.readLog,
          readLogRows: this.deps.readLogRows,
          chainHead: this.deps.chainHead,
          writer: this.deps.writer,
          now: this.now,
        },
        month,
        {
          onProgress: (progress) => this.set({ progress }),
        },
      );
      const all = r.realizedTotals.find((t) => t.label === "all");
      const text =
        `Wrote “${sheet.name}”: ${plural(r.counts.realized, "hedge")} closed (net P&L ${usd(all?.netPnlUsd ?? 0)} USD), ` +
        `${plural(r.counts.open, "open position")}, ${plural(r.counts.differences, "difference")} with the Hedge Log` +
        (r.counts.pending > 0 ? ` (${r.counts.pending} still pending)` : "") +
        (r.counts.chainFindings > 0
          ? `; the Hedge Log's chain has ${plural(r.counts.chainFindings, "finding")} (a row edited, inserted, deleted, moved or cut off)`
          : "") +
        (r.counts.serviceFindings > 0
          ? `; the Hedge Log differs from the service in ${plural(r.counts.serviceFindings, "finding")} (a cell, a row logged after the service acted, rows cut off)`
          : "") +
        (r.counts.chainFindings + r.counts.serviceFindings > 0 ? ": see the sheet's Differences." : ".");
      if (r.historyIncomplete) {
        const warning = `History incomplete: only the newest ${plural(r.counts.realized, "record")} of the month could be read, so the sheet may miss hedges closed earlier in it.`;
        this.set({
          busy: null,
          progress: null,
          message: { kind: "warning", text: `${warning} ${text}`, details: [r.historyIncomplete, ...r.notes] },
        });
        return;
      }
      this.set({
        busy: null,
        progress: null,
        message: {
          kind: r.counts.differences + r.counts.chainFindings + r.counts.serviceFindings > 0 ? "warning" : "success",
          text,
          details: r.notes,
        },
      });
    } catch (e) {
      this.set({ busy: null, progress: null, message: errorMessage(e) });
    }
  }

  /** First click: asks for confirmation (Excel cannot undo what an add-in writes). */
  askSnapshot(scope: SnapshotScope): void {
    if (this.state.busy || !this.deps.snapshotter) return;
    this.set({ confirming: scope, message: null });
  }

  cancelSnapshot(): void {
    this.set({ confirming: null });
  }

  /** Replaces the HEDGE formulas of the confirmed scope by their values. */
  async snapshot(): Promise<void> {
    const scope = this.state.confirming;
    const snapshotter = this.deps.snapshotter;
    if (this.state.busy || !scope || !snapshotter) return;
    this.set({ busy: "snapshot", confirming: null, progress: "Replacing HEDGE formulas by their values…", message: null });
    try {
      const result = await snapshotter.snapshot(scope, new Date(this.now()));
      this.set({ busy: null, progress: null, message: snapshotMessage(result) });
    } catch (e) {
      this.set({ busy: null, progress: null, message: errorMessage(e) });
    }
  }

  private set(patch: Partial<MonthEndView>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener(this.state);
  }
}
