// The row runner: one step of a market side's head that is not accepted yet — ask the service when in doubt, let the recovery rule say what follows (send, resend with the same key, adopt, wait, park) — its doubt policy (backoff, mismatch and unknown-outcome counts), and the executor (judge): the one place a row's status changes.
import { errorCode, isHedgingApiError } from "../../api/errors";
import type { Hedge } from "../../api/schemas";
import { isFinal, submit, usableKey, type Intent, type IntentPatch } from "../intent";
import { check, laneOf, openHedges } from "../fills";
import type { DeskContext, Tracking } from "./context";
import type { Lanes } from "./lanes";
import type { RowNote } from "./state";
import { BACKOFF_MS, classifyFailure, factsOf, mismatchCapped, nextStep, type Facts, type Shown, type Step } from "./rule";

export class RowRunner {
  constructor(
    private readonly ctx: DeskContext,
    private readonly lanes: Lanes,
  ) {}

  /** What this computer knows about a row, for the rule. */
  private facts(t: Tracking, mayAskAgain: boolean): Facts {
    return factsOf(t.intent, {
      keyId: this.ctx.client.keyId,
      nowMs: this.ctx.now().getTime(),
      fresh: t.fresh,
      doubt: t.doubt,
      mayAskAgain,
    });
  }

  /** One step of a `submitting` head: its first send, or (after any doubt) a question to the service and what the rule says. */
  async step(t: Tracking): Promise<void> {
    const intent = t.intent;
    if (intent.status !== "submitting") return;
    // The previous row of this side is final in the journal (log and per-user store) before this one leaves.
    try {
      await this.ctx.journal.flush();
    } catch {
      this.backoff(t);
      return;
    }
    if (nextStep(intent, { kind: "not_asked" }, this.facts(t, true)).kind === "send") return this.send(t);
    let shown: Shown;
    let failure: unknown = null;
    try {
      shown = (await check(this.ctx.client, intent, this.signalOf(t), () => this.ctx.openedHedges(), this.ctx.state.chain()(intent)))
        .verdict;
    } catch (e) {
      shown = { kind: "unreachable", code: errorCode(e) };
      failure = e;
    }
    await this.judge(t, shown, failure);
  }

  /**
   * The executor: what the service shows about a row, or what the row is told (its send's answer, no open hedge on its
   * side, the user's decision, done by another approval), applied as the recovery rule says. The one place a row's
   * status changes (src/README.md; test/trading/desk/one-writer.test.ts): every other part hands it facts. A mismatch
   * (unclear, hedge_not_found) is counted first, so the rule sees whether its caps are reached. `failure`: the error
   * when the service could not be asked. A step that records (adopt, park, record, follow) is taken at once; only a send
   * or resend returns a promise.
   */
  judge(t: Tracking, shown: Shown, failure: unknown = null): Promise<void> | void {
    const capped = (shown.kind === "unclear" || shown.kind === "not_found") && this.countMismatch(t);
    const step = nextStep(t.intent, shown, this.facts(t, !capped));
    switch (step.kind) {
      case "send":
        return this.send(t);
      case "resend":
        return this.attempt(t);
      case "wait":
        if (step.why === "unreachable") return this.trouble(t, failure, false);
        if (step.note) this.ctx.state.note(t.intent, step.note);
        return this.backoff(t);
      case "follow":
        // Accepted: the fill follower has it. Not there yet is not a doubt (a mismatch count starts again).
        if (shown.kind === "absent") t.doubt = null;
        if (step.note) this.ctx.state.note(t.intent, step.note);
        return;
      default:
        return this.settle(t, step);
    }
  }

  /**
   * The row's new status, as the rule's step says:
   * - adopt: what the service shows (or answered) is recorded; any doubt is over, and what a doubt said (error code) is
   *   taken back. A row still accepted and never in doubt already holds the patch of a poll round: nothing is written;
   * - park: it waits for the user's decision, with why;
   * - record: the user's word, over the parked state (a row not parked yet is parked first).
   */
  private settle(t: Tracking, step: Extract<Step, { kind: "adopt" | "park" | "record" }>): void {
    const intent = t.intent;
    t.answered = true;
    let patch: IntentPatch;
    if (step.kind === "adopt") {
      t.doubt = null;
      t.attempts = 0;
      patch = { errorCode: null, ...step.patch };
    } else if (step.kind === "park")
      patch = {
        status: "needs_decision",
        parkedFor: step.reason,
        message: `Needs your decision: ${step.reason} Choose "It was done" or "It was not done" under Unfinished rows.`,
      };
    else {
      // The state machine takes the user's word from needs_decision only: a row not parked yet is parked first.
      if (intent.status !== "needs_decision") this.ctx.state.changeStatus(intent, { status: "needs_decision" });
      patch = step.patch;
    }
    this.ctx.state.changeStatus(intent, patch);
  }

  /** A row never sent: records the side's hedge and its notional (Add / Reduce / Close) and the send time, then sends. */
  private async send(t: Tracking): Promise<void> {
    const intent = t.intent;
    try {
      const patch: RowNote = { sentAt: this.ctx.now().toISOString() };
      if (intent.action !== "open") {
        const found = await this.sideHedge(intent, this.signalOf(t));
        // No hedge to act on: rejected, nothing sent.
        if (!found.hedge) return this.judge(t, { kind: "no_open_hedge", complete: found.complete });
        patch.hedgeId = found.hedge.id;
        patch.notionalBefore = found.hedge.notional_usd;
      }
      intent.keyId = this.ctx.client.keyId;
      this.ctx.state.note(intent, patch);
      // Durable in both journals before the request leaves; if not, it does not leave now.
      await this.ctx.journal.flush();
    } catch (e) {
      this.trouble(t, e, false);
      return;
    }
    await this.attempt(t);
  }

  /**
   * The open hedge on the row's market side: the one the side's earlier rows acted on, read by id, when it is still open;
   * else from status-filtered list pages (openHedges). `complete` false: the lists were too long to read to their end.
   */
  private async sideHedge(intent: Intent, signal: AbortSignal): Promise<{ hedge: Hedge } | { hedge: null; complete: boolean }> {
    // The row itself is not final (it is being sent): only earlier rows of its side can name the hedge.
    const known = this.lanes
      .all()
      .filter((t) => laneOf(t.intent) === laneOf(intent) && t.intent.hedgeId && isFinal(t.intent.status))
      .sort((a, b) => b.seq - a.seq)[0]?.intent.hedgeId;
    if (known) {
      try {
        const { data } = await this.ctx.client.get(known, signal);
        // The id came from a row of this side: still open, it is the side's hedge.
        if (data.status === "filled" || data.status === "submitted") return { hedge: data };
      } catch (e) {
        if (!isHedgingApiError(e) || e.code !== "hedge_not_found") throw e;
      }
    }
    const { bySide, complete } = await openHedges(this.ctx.client, signal, (open) => open.has(laneOf(intent)));
    return { hedge: bySide.get(laneOf(intent)) ?? null, complete };
  }

  /** Sends the row's request with its own key. */
  private async attempt(t: Tracking): Promise<void> {
    const intent = t.intent;
    if (!usableKey(intent.idempotencyKey)) return this.judge(t, { kind: "no_key" });
    let submission;
    try {
      submission = await submit(this.ctx.client, intent, this.signalOf(t));
    } catch (e) {
      const outcome = classifyFailure(e);
      if (outcome === "refused" && isHedgingApiError(e))
        return this.judge(t, { kind: "refused", code: e.code, says: `${e.message}${e.advice ? ` ${e.advice}` : ""}` });
      return this.trouble(t, e, outcome === "unknown");
    }
    return this.judge(t, { kind: "accepted", ...submission });
  }

  /** Counts a mismatching round (hedge_not_found, a hedge that does not match); true when the caps are reached. */
  private countMismatch(t: Tracking): boolean {
    const now = this.ctx.now().getTime();
    t.doubt ??= { since: now, rounds: 0 };
    t.doubt.rounds++;
    return mismatchCapped(t.doubt, now);
  }

  /** Trouble while sending or asking: the row stays `submitting`, in doubt, and is asked again after a wait. */
  private trouble(t: Tracking, e: unknown, unknownOutcome: boolean): void {
    const code = errorCode(e);
    t.answered = true;
    if (unknownOutcome) {
      t.doubt ??= { since: this.ctx.now().getTime(), rounds: 0 };
      t.doubt.rounds++;
      this.ctx.state.note(t.intent, { errorCode: code, message: unknownOutcomeMessage(code, e) });
    } else {
      this.ctx.state.note(t.intent, {
        errorCode: code,
        message: `Not confirmed yet (${code}): the add-in asks the service before sending again with the same idempotency key.`,
      });
    }
    // A send that may have left is asked about before anything is sent again.
    this.backoff(t);
  }

  private backoff(t: Tracking): void {
    t.wakeAt = this.ctx.now().getTime() + BACKOFF_MS[Math.min(t.attempts, BACKOFF_MS.length - 1)];
    t.attempts++;
  }

  /** The signal a row's requests carry: the desk's, and its send's when it has one. */
  private signalOf(t: Tracking): AbortSignal {
    const life = this.ctx.state.life();
    if (!t.signal) return life;
    if (t.both?.life !== life) t.both = { life, signal: anySignal([life, t.signal]) };
    return t.both.signal;
  }
}

/** Aborted when any of `signals` is (AbortSignal.any where the host has it). */
function anySignal(signals: AbortSignal[]): AbortSignal {
  const any = (AbortSignal as unknown as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (typeof any === "function") return any.call(AbortSignal, signals);
  const both = new AbortController();
  for (const s of signals) {
    if (s.aborted) both.abort(s.reason);
    else s.addEventListener("abort", () => both.abort(s.reason), { once: true });
  }
  return both.signal;
}

function unknownOutcomeMessage(code: string, e: unknown): string {
  const detail = e instanceof Error && e.message ? ` ${e.message.replace(/\s+$/, "")}` : "";
  return (
    `Outcome unknown (${code}):${detail} The service may have acted on this row; do not send it again yourself. ` +
    `The add-in asks the service what it did (a few times, then it asks for your decision).`
  );
}
