// The desk's state: the one place a row is changed (its status only through the row runner's judge, the executor; its other fields by any part; an accepted row handed to the fill follower), the progress told to the pane, the chain's index over the journal's rows, the desk's life, and the waits on its changes.
import type { Journal } from "../journal";
import { isFinal, rowStatusOf, type Intent, type IntentPatch } from "../intent";
import { chainOf } from "../verdict";
import { INTENT_STATUSES, type IntentStatus, type Progress } from "../types";

/** A change of a row's fields other than its status: a note meanwhile, the send time, the hedge it acts on, its account. */
export type RowNote = Omit<IntentPatch, "status">;

/** The rows the desk works on, as the state counts them (lanes.ts's Lanes). */
export interface WorkedRows {
  all(): ReadonlyArray<{ intent: Intent }>;
  readonly size: number;
  /** Rows not final and not waiting for the user. */
  pending(): readonly unknown[];
}

export class DeskState {
  /** The journal's rows indexed as chains (verdict.ts's chainOf); null once any row changed. */
  private chainIndex: ((intent: Intent) => Intent | null) | null = null;
  /** Aborted by stop(): every request the desk has out stops with it (a stopped pane sends nothing more). */
  private lifeController = new AbortController();
  private readonly changeWaiters = new Set<() => void>();
  private readonly idleWaiters = new Set<() => void>();

  /** Follows the accepted rows to their fill (the fill follower, wired by the facade). */
  private follower: { start(): void } | null = null;

  constructor(
    readonly journal: Journal,
    private readonly lanes: WorkedRows,
    private readonly onProgress?: (progress: Progress) => void,
  ) {}

  /** The fill follower that a row accepted is handed to. */
  followWith(follower: { start(): void }): void {
    this.follower = follower;
  }

  /** The fill follower follows the accepted rows (a stopped desk starts again: its requests get a fresh signal). */
  follow(): void {
    this.restart();
    this.follower?.start();
  }

  // ---- changing a row ----

  /** Changes a row's fields other than its status (the journal, then the log, then the listeners). */
  note(intent: Intent, patch: RowNote): void {
    if ("status" in patch)
      throw new Error(
        `A row's status is changed by the row runner's judge alone (src/README.md), not by a note: ${intent.idempotencyKey}.`,
      );
    this.change(intent, patch);
  }

  /**
   * Changes a row's status, with the fields that go with it. Called from one place only, the executor (RowRunner.judge
   * in runner.ts, applying the recovery rule's step): test/trading/desk/one-writer.test.ts fails on a second caller.
   */
  changeStatus(intent: Intent, patch: IntentPatch): void {
    this.change(intent, patch);
    // Accepted (by the service, or recorded so on the user's word): the fill follower has it.
    if (intent.status === "submitted") this.follow();
  }

  private change(intent: Intent, patch: IntentPatch): void {
    const changed = this.journal.update(intent, patch);
    if (Object.keys(changed).length === 0) return;
    this.chainIndex = null;
    this.tell(intent);
    this.changed();
  }

  // ---- the chain's index ----

  /** For each row, the next row of its side that found the hedge (verdict.ts's chain), over every row the journal holds now. */
  chain(): (intent: Intent) => Intent | null {
    // Indexed once until a row changes (a batch in doubt re-checks many rows between two changes).
    return (this.chainIndex ??= chainOf(this.journal.all()));
  }

  /** Rows were appended, restored or read again: the chain is indexed again when next asked. */
  rowsChanged(): void {
    this.chainIndex = null;
  }

  // ---- the desk's life ----

  /** The desk's life: aborted by stop(); every request the desk has out stops with it. */
  life(): AbortSignal {
    return this.lifeController.signal;
  }

  get stopped(): boolean {
    return this.lifeController.signal.aborted;
  }

  /** A stopped desk starts again (send, resume, a decision, fill polling): new requests get a fresh abort signal. */
  restart(): void {
    if (this.stopped) this.lifeController = new AbortController();
  }

  /** Stops every request out, and wakes whoever waits on a change (a send returns). */
  stop(): void {
    this.lifeController.abort(new Error("The desk was stopped: nothing more is sent."));
    for (const w of [...this.changeWaiters]) w();
  }

  // ---- telling progress and waiting ----

  /** Tells the pane where a row is, with the counts of the rows this desk works on. */
  tell(intent: Intent): void {
    const onProgress = this.onProgress;
    if (!onProgress) return;
    const counts = Object.fromEntries(INTENT_STATUSES.map((s) => [s, 0])) as Record<IntentStatus, number>;
    let done = 0;
    for (const t of this.lanes.all()) {
      counts[t.intent.status]++;
      if (isFinal(t.intent.status)) done++;
    }
    try {
      onProgress({ row: rowStatusOf(intent), total: this.lanes.size, done, counts });
    } catch {
      // A failing progress listener must not stop trading.
    }
  }

  /** Something changed: wake whoever waits on the desk's state. */
  changed(): void {
    for (const w of [...this.changeWaiters]) w();
    if (this.lanes.pending().length === 0) for (const w of [...this.idleWaiters]) w();
  }

  /** Resolves when `condition` holds (checked on every change). */
  until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const check = () => {
        if (condition()) {
          this.changeWaiters.delete(check);
          resolve();
        }
      };
      this.changeWaiters.add(check);
    });
  }

  /** Resolves once no row is pending and the journal is written; rejects after `timeoutMs` with how many are not final. */
  settled(timeoutMs: number): Promise<void> {
    if (this.pending().length === 0) return this.journal.flush();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.idleWaiters.delete(done);
        reject(
          new Error(
            `${this.pending().length} row(s) still not final after ${timeoutMs} ms; they stay in the log and are listed next time.`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.idleWaiters.delete(done);
        this.journal.flush().then(resolve, reject);
      };
      this.idleWaiters.add(done);
    });
  }

  private pending(): readonly unknown[] {
    return this.lanes.pending();
  }
}
