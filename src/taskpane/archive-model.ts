// The log archive control's state and actions, without the DOM: count what would move, ask, move with progress, say what happened.
import type { LogArchiveRequest, LogArchiveResult } from "../trading/log/hedge-log";
import { LOG_FINAL_STATUSES } from "../trading/types";
import { addMonths, monthOf, monthWindow } from "../monthend/month";
import { errorMessage, type PanelMessage } from "../monthend/month-end-controller";

export interface ArchiveDeps {
  /** Workbook.archiveLog. */
  archiveLog: (request: LogArchiveRequest) => Promise<LogArchiveResult>;
  /** Epoch ms now; Date.now by default. */
  now?: () => number;
}

export interface ArchiveView {
  busy: "counting" | "moving" | null;
  /** Rows logged before this day (UTC) may move: the first day of the previous month, so the month to reconcile stays in the log. */
  cutoffDay: string;
  /** What would move, waiting for the user's word. */
  confirming: LogArchiveResult | null;
  progress: { moved: number; total: number } | null;
  message: PanelMessage | null;
}

const count = (n: number) => n.toLocaleString("en-US");
const rows = (n: number) => `${count(n)} ${n === 1 ? "row" : "rows"}`;
const stay = (n: number) => (n === 1 ? "stays" : "stay");
const list = (names: string[]) => (names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`);

/** The cut-off: the previous month's first midnight (UTC), as an ISO instant. */
export function archiveCutoff(nowMs: number): string {
  return new Date(monthWindow(addMonths(monthOf(nowMs), -1)).startMs).toISOString();
}

/** The confirmation's question. */
export function archiveQuestion(plan: LogArchiveResult, cutoffDay: string): string {
  const kept =
    plan.kept > 0
      ? ` ${rows(plan.kept)} logged before then ${stay(plan.kept)} in the log (unfinished, with a time that cannot be read, or written after such a row: the log's chain moves whole).`
      : "";
  return (
    `Move ${rows(plan.total)} finished before ${cutoffDay} (UTC) from the Hedge Log to ${list(plan.sheets)}?${kept} ` +
    "Month end still reads them there; Excel cannot undo this."
  );
}

export class ArchiveController {
  private state: ArchiveView;
  private readonly listeners = new Set<(view: ArchiveView) => void>();
  /** The cut-off of the last count (a confirmed move uses the one its count showed); taken afresh at each count. */
  private cutoff: string;

  constructor(private readonly deps: ArchiveDeps) {
    this.cutoff = this.today();
    this.state = { busy: null, cutoffDay: this.cutoff.slice(0, 10), confirming: null, progress: null, message: null };
  }

  /** The cut-off now: the shared runtime keeps the pane for days, so a month may have turned since it opened. */
  private today(): string {
    return archiveCutoff((this.deps.now ?? Date.now)());
  }

  get view(): ArchiveView {
    return this.state;
  }

  subscribe(listener: (view: ArchiveView) => void): () => void {
    this.listeners.add(listener);
    listener(this.state);
    return () => this.listeners.delete(listener);
  }

  private request(extra: Partial<LogArchiveRequest> = {}): LogArchiveRequest {
    return { before: this.cutoff, finalStatuses: LOG_FINAL_STATUSES, ...extra };
  }

  /** First click: counts what would move (nothing moves) and asks. */
  async ask(): Promise<void> {
    if (this.state.busy) return;
    this.cutoff = this.today();
    this.set({ busy: "counting", cutoffDay: this.cutoff.slice(0, 10), confirming: null, message: null });
    try {
      const plan = await this.deps.archiveLog(this.request({ dryRun: true }));
      if (plan.total === 0) {
        const kept =
          plan.kept > 0 ? ` (${rows(plan.kept)} before then ${plan.kept === 1 ? "is" : "are"} unfinished and ${stay(plan.kept)})` : "";
        this.set({
          busy: null,
          message: {
            kind: "info",
            text: `No finished rows logged before ${this.state.cutoffDay} (UTC)${kept}: nothing to archive.`,
            details: [],
          },
        });
        return;
      }
      this.set({ busy: null, confirming: plan });
    } catch (e) {
      this.set({ busy: null, message: errorMessage(e) });
    }
  }

  cancel(): void {
    this.set({ confirming: null });
  }

  /** On the user's word: moves the rows, chunk by chunk, showing how far it got. */
  async confirm(): Promise<void> {
    const plan = this.state.confirming;
    if (this.state.busy || !plan) return;
    this.set({ busy: "moving", confirming: null, progress: { moved: 0, total: plan.total }, message: null });
    try {
      const done = await this.deps.archiveLog(this.request({ onProgress: (moved, total) => this.set({ progress: { moved, total } }) }));
      const kept = done.kept > 0 ? ` ${rows(done.kept)} logged before then ${stay(done.kept)} in the log, unfinished.` : "";
      this.set({
        busy: null,
        progress: null,
        message: { kind: "success", text: `Moved ${rows(done.total)} to ${list(done.sheets)}.${kept}`, details: [] },
      });
    } catch (e) {
      this.set({ busy: null, progress: null, message: errorMessage(e) });
    }
  }

  private set(patch: Partial<ArchiveView>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener(this.state);
  }
}
