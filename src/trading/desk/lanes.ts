// The market sides' lanes: the rows this desk tracks, in journal order, one head per side (only it may act), what waits behind a decision, and the sides a new row would wait on.
import { isFinal, rowStatusOf, type Intent } from "../intent";
import { laneOf } from "../fills";
import { sameAccount } from "../duplicates";
import type { LaneWait, RowStatus } from "../types";
import { when, type Tracking } from "./context";

export class Lanes {
  /** Rows of this session (sent, resumed or decided), by idempotency key, in the order they were added (a Map keeps it). */
  private readonly tracked = new Map<string, Tracking>();
  private seq = 0;

  /**
   * `logOnly`: the row is known from the Hedge Log alone, not from this computer's journal (another computer's, an older
   * version's, or typed in). Such rows go in a lane of their own beside their side's: one of them waiting for a decision
   * never holds back the rows this computer journalled, and waits alone.
   */
  constructor(private readonly logOnly: (intent: Intent) => boolean = () => false) {}

  /** The lane of a row: its market side, and whether this computer journalled it. */
  private laneKey(intent: Intent): string {
    return this.logOnly(intent) ? `${laneOf(intent)} (log only)` : laneOf(intent);
  }

  track(intent: Intent, fresh: boolean): Tracking {
    let t = this.tracked.get(intent.idempotencyKey);
    if (!t) {
      t = { intent, seq: ++this.seq, busy: false, wakeAt: 0, fresh, attempts: 0, doubt: null, answered: isFinal(intent.status) };
      this.tracked.set(intent.idempotencyKey, t);
    }
    return t;
  }

  get(idempotencyKey: string): Tracking | undefined {
    return this.tracked.get(idempotencyKey);
  }

  has(idempotencyKey: string): boolean {
    return this.tracked.has(idempotencyKey);
  }

  all(): Tracking[] {
    return [...this.tracked.values()];
  }

  get size(): number {
    return this.tracked.size;
  }

  /** Rows the service accepted and the fill follower follows. */
  submitted(): Tracking[] {
    return this.all().filter((t) => t.intent.status === "submitted");
  }

  /** The first unfinished row of each market side (journal order); only it may act. */
  heads(): Tracking[] {
    const heads = new Map<string, Tracking>();
    for (const t of this.tracked.values()) {
      if (isFinal(t.intent.status)) continue;
      const lane = this.laneKey(t.intent);
      // `tracked` is in seq order (a row's seq is given as it is added): the first is the head.
      if (!heads.has(lane)) heads.set(lane, t);
    }
    return [...heads.values()];
  }

  /** An earlier row of its side waits for a decision (seq is unique: a row is never earlier than itself). */
  blockedByDecision(t: Tracking): boolean {
    const lane = this.laneKey(t.intent);
    for (const o of this.tracked.values())
      if (o.seq < t.seq && this.laneKey(o.intent) === lane && o.intent.status === "needs_decision") return true;
    return false;
  }

  /** Rows not final and not waiting for the user. */
  pending(): RowStatus[] {
    return this.all()
      .filter((t) => !isFinal(t.intent.status) && t.intent.status !== "needs_decision" && !this.blockedByDecision(t))
      .map((t) => rowStatusOf(t.intent));
  }

  /** Market sides whose next row waits on an earlier one. */
  waits(): LaneWait[] {
    const out: LaneWait[] = [];
    for (const head of this.heads()) {
      const lane = this.laneKey(head.intent);
      const behind = this.all().filter((t) => t !== head && !isFinal(t.intent.status) && this.laneKey(t.intent) === lane);
      if (head.intent.status === "needs_decision" || behind.length > 0)
        out.push({
          market: head.intent.market,
          side: head.intent.side,
          row: rowStatusOf(head.intent),
          queued: behind.length,
          next: behind.length > 0 ? rowStatusOf(behind[0].intent) : null,
          reason: head.intent.status === "needs_decision" ? "needs_decision" : "in_progress",
        });
    }
    return out;
  }

  /**
   * Market sides with an unfinished row: blocking (a row needing a decision, or one not taken up: nothing is sent behind
   * it) or not (a row this session is working on: a new row waits its turn), each with the sentence to show.
   */
  busySides(
    journalled: readonly Intent[],
    environment: string,
    account: string | null,
  ): Map<string, { reason: string; blocking: boolean }> {
    const out = new Map<string, { reason: string; blocking: boolean }>();
    for (const intent of [...journalled, ...this.all().map((t) => t.intent)]) {
      if (isFinal(intent.status) || intent.environment !== environment) continue;
      if (!sameAccount(intent.account, account)) continue;
      // A row of the log alone never holds back new rows (they are journalled here): it waits in a lane of its own.
      if (this.logOnly(intent)) continue;
      const lane = laneOf(intent);
      const tracked = this.tracked.has(intent.idempotencyKey);
      const blocking = intent.status === "needs_decision" || !tracked;
      if (out.get(lane)?.blocking) continue;
      if (out.has(lane) && !blocking) continue;
      const what = `the ${intent.action} logged ${when(intent.loggedAt)}`;
      out.set(lane, {
        blocking,
        reason:
          intent.status === "needs_decision"
            ? `${intent.market} ${intent.side} waits for your decision on ${what}: decide it under Unfinished rows first.`
            : !tracked
              ? `${intent.market} ${intent.side} has an unfinished row, ${what}: resume it under Unfinished rows first.`
              : `${intent.market} ${intent.side} is busy with ${what}: this row goes once that one is final.`,
      });
    }
    return out;
  }
}
