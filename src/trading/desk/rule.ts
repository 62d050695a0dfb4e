// The recovery rule, written once: what to do next with one unfinished row, from what the service shows (its verdict, its answer to a send), what the user said and what this computer knows (the facts). Pure. The first send, its answer, a re-check after doubt, a poll round, a decision, an approved batch's rows done elsewhere and the resume plan all ask it.
import { isHedgingApiError, isRefusal } from "../../api/errors";
import { utcMs } from "../../api/time";
import type { Intent, IntentPatch, Submission } from "../intent";
import { OPEN_LOOKUP_SCOPE } from "../fills";
import { usdText, type Judged } from "../verdict";
import type { Action, Decision } from "../types";
import { when } from "./context";

/** Waits between attempts of a row in doubt (network trouble, 5xx, 429, an answer that could not be read). */
export const BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 15_000];
/**
 * A row is sent again with the same idempotency key only while this young (from its first send) and under the same API
 * key: well inside any plausible key retention (the sandbox keeps keys 24 h; the spec does not say). Older, the service
 * may have forgotten the key, and a re-send could act twice: such a row needs the user's decision.
 */
export const RESEND_WINDOW_MS = 15 * 60_000;
/** Unknown outcomes (an answer that could not be read, a key reused with another body) are re-asked this many times… */
export const DOUBT_MAX_ROUNDS = 6;
/** …within this long, then the row needs a decision. */
export const DOUBT_LIMIT_MS = 10 * 60_000;
/**
 * hedge_not_found, or a hedge that does not match its row: asked again at least MISMATCH_MAX_ROUNDS times over at least
 * MISMATCH_MIN_MS (a service may take a moment to show a new hedge), at most MISMATCH_LIMIT_MS, then a decision.
 */
export const MISMATCH_MAX_ROUNDS = 5;
export const MISMATCH_MIN_MS = 30_000;
export const MISMATCH_LIMIT_MS = 2 * 60_000;

/**
 * What the service was seen to show: a verdict, nothing yet (not asked), no answer (the question failed), or, in a poll
 * round, no hedge with the row's hedge id (hedge_not_found).
 */
export type Shown =
  Judged | { kind: "not_asked" } | { kind: "unreachable"; code: string } | { kind: "not_found"; hedgeId: string | null } | Told;

/**
 * What a row's step is told besides a question to the service: the service's answer to its send (accepted, or refused
 * with a 4xx that says it did nothing), no open hedge on its side just before it left (Add / Reduce / Close; `complete`
 * false: the open hedges could not all be listed), no usable idempotency key to send it with, the user's decision, or (before an approved batch is sent) the row
 * found done by another approval of the batch. A new fact (a hedge settled at maturity, say) is one more member here and
 * one more case of toldStep, a row of the table (test/trading/desk/rule.test.ts), applied by the same executor.
 */
export type Told =
  | ({ kind: "accepted" } & Submission)
  | { kind: "refused"; code: string; says: string }
  | { kind: "no_open_hedge"; complete: boolean }
  | { kind: "no_key" }
  | { kind: "decided"; decision: Decision; verdict: Judged | null; evidence: boolean; at: string }
  | DoneElsewhere;

/**
 * A row of an approved batch that another approval of the batch did (approved-done.ts): an Open by what the service
 * shows of it (its verdict's effect), an Add / Reduce / Close by its side's hedge now at the notional after it (`closes`:
 * no hedge left open). `says`: what the log's Message records.
 */
export type DoneElsewhere = { kind: "done_elsewhere"; says: string } & (
  { by: "effect"; patch: IntentPatch } | { by: "side"; closes: boolean; hedgeId: string | null; notionalBefore: number }
);

/** What this computer knows about the row, beside what the service shows. */
export interface Facts {
  /** This computer's journal holds the row and records no first send (see neverSent). */
  neverSent: boolean;
  /** Journalled by this desk in this session: its first send needs no question to the service. */
  fresh: boolean;
  /** Who sent it: with the API key in use from this computer, with another key, or unknown (another computer, an older version). */
  sentBy: "this_key" | "other_key" | "unknown";
  /** Milliseconds since its first send (Infinity when no Sent at is known). */
  sentAgoMs: number;
  /** Unknown outcomes counted so far, and for how long (null: none). */
  doubt: { rounds: number; forMs: number } | null;
  /** The service will be asked again before anything final: false once the mismatch caps are reached (and in the resume plan of a row not accepted). */
  mayAskAgain: boolean;
}

/** What this computer knows besides the row itself: the API key in use, the time, and how the row is being worked on. */
export interface Seen {
  keyId: string;
  nowMs: number;
  /** Journalled by this desk in this session (see Facts.fresh). */
  fresh: boolean;
  /** Unknown outcomes or mismatches counted so far, and since when (null: none). */
  doubt: { since: number; rounds: number } | null;
  mayAskAgain: boolean;
}

/** The facts of a row, for the rule (the runner's rows, and the rows the resume plan lists). */
export function factsOf(intent: Intent, seen: Seen): Facts {
  return {
    neverSent: neverSent(intent),
    fresh: seen.fresh,
    sentBy: intent.keyId === seen.keyId ? "this_key" : intent.keyId ? "other_key" : "unknown",
    sentAgoMs: intent.sentAt ? seen.nowMs - utcMs(intent.sentAt) : Infinity,
    doubt: seen.doubt ? { rounds: seen.doubt.rounds, forMs: seen.nowMs - seen.doubt.since } : null,
    mayAskAgain: seen.mayAskAgain,
  };
}

/** Why a row is parked for the user's decision. */
export type ParkWhy =
  "awaiting" | "unreachable" | "unclear" | "not_found" | "other_key" | "too_old" | "doubt_rounds" | "doubt_time" | "log_only" | "no_key";

export type Step =
  /** Record what the service shows (its effect, or "failed": its hedge ended without it). */
  | { kind: "adopt"; patch: IntentPatch }
  /** Never sent: send it now with its own key. */
  | { kind: "send" }
  /** Sent moments ago with this key and not on the service: send it again with the same key (the service acts once). */
  | { kind: "resend" }
  /** Ask the service (again) after a wait; `note`: what the row says meanwhile. */
  | { kind: "wait"; why: "ask_first" | "unreachable" | "unclear"; note?: IntentPatch }
  /** Accepted and not final: the fill follower follows it; `note`: what the row says meanwhile. */
  | { kind: "follow"; note?: IntentPatch }
  /** Only the user can tell: park it for a decision, with the reason shown. */
  | { kind: "park"; why: ParkWhy; reason: string }
  /** The user's word, recorded over the row's parked state (the state machine takes it from needs_decision only). */
  | { kind: "record"; patch: IntentPatch };

/**
 * The rule (src/trading/README.md, "Before anything is sent again, the service is asked"):
 * - a row waiting for a decision stays so;
 * - the service shows the row's effect: adopt it (an accepted row the service still holds is followed);
 * - an accepted row the service does not show yet is followed; one whose hedge ended without it failed;
 * - the service shows something the row cannot be matched to: ask again while the caps allow, then park (at once for
 *   a row this computer never sent); the service does not know the row's hedge (hedge_not_found): the same caps;
 * - not on the service: never sent → send; sent with this key under 15 min ago and doubts within their caps → resend
 *   with the same key; otherwise park (another key or computer, too old, too many doubts);
 * - the service could not be asked: ask again, and park a row sent longer ago than the resend window and the doubt limit;
 * - not asked yet: an accepted row is followed, a row known never sent is sent (a resumed Open asks first), else ask first.
 */
export function nextStep(intent: Intent, shown: Shown, facts: Facts): Step {
  switch (shown.kind) {
    case "accepted":
    case "refused":
    case "no_open_hedge":
    case "no_key":
    case "decided":
    case "done_elsewhere":
      return toldStep(intent, shown);
  }
  if (intent.status === "needs_decision")
    return { kind: "park", why: "awaiting", reason: "The service could not tell whether this row took effect." };
  const accepted = intent.status === "submitted";
  switch (shown.kind) {
    case "not_asked":
      if (accepted) return { kind: "follow" };
      if (facts.neverSent && (facts.fresh || intent.action !== "open")) return { kind: "send" };
      return { kind: "wait", why: "ask_first" };
    case "unreachable":
      if (accepted) return { kind: "follow" };
      if (!facts.neverSent && facts.sentAgoMs >= RESEND_WINDOW_MS + DOUBT_LIMIT_MS)
        return {
          kind: "park",
          why: "unreachable",
          reason: `The service could not be asked (${shown.code}) since the row was sent ${ago(facts.sentAgoMs)} ago.`,
        };
      return { kind: "wait", why: "unreachable" };
    case "effect":
      return typedBefore(intent, shown, facts) ?? { kind: "adopt", patch: shown.patch };
    case "unclear":
      // A row this computer never sent has no request of its own on the way that could still make the picture clear.
      if (facts.mayAskAgain && !facts.neverSent)
        return accepted
          ? { kind: "follow" }
          : { kind: "wait", why: "unclear", note: { message: `Asking the service again: ${shown.says}` } };
      return { kind: "park", why: "unclear", reason: shown.says };
    case "not_found":
      return notFoundStep(accepted, shown.hedgeId, facts);
    case "absent":
      return absentStep(intent, shown, facts);
  }
}

/**
 * What the row is told, as its patch:
 * - the send accepted: submitted, with the hedge and order it names; refused (a 4xx that says nothing was done): rejected;
 * - no open hedge on the side just before an Add / Reduce / Close left: rejected, nothing sent;
 * - no usable idempotency key: never sent, the user decides;
 * - the user's decision: recorded as decisionPatch says;
 * - done by another approval of its batch: an Open as the service shows it, an Add / Reduce / Close filled (closed when
 *   no hedge is left open) with the notional before it as prepared, never sent.
 */
function toldStep(intent: Intent, told: Told): Step {
  switch (told.kind) {
    case "accepted":
      return {
        kind: "adopt",
        patch: {
          status: "submitted",
          hedgeId: told.hedgeId ?? intent.hedgeId,
          orderTxHash: told.orderTxHash,
          errorCode: null,
          message: submittedMessage(intent.action, told.newNotional),
        },
      };
    case "refused":
      return { kind: "adopt", patch: { status: "rejected", errorCode: told.code, message: told.says } };
    case "no_open_hedge":
      return {
        kind: "adopt",
        patch: {
          status: "rejected",
          errorCode: "no_open_hedge",
          message: told.complete
            ? `No open hedge on ${intent.market} ${intent.side} (checked just before sending): nothing was sent. Use Open first.`
            : `No open hedge on ${intent.market} ${intent.side} ${OPEN_LOOKUP_SCOPE}: nothing was sent. Check the hedge on the service.`,
        },
      };
    case "no_key":
      return { kind: "park", why: "no_key", reason: "The row has no usable idempotency key: it is never sent." };
    case "decided":
      return { kind: "record", patch: decisionPatch(intent, told.decision, told.verdict, told.evidence, told.at) };
    case "done_elsewhere":
      if (told.by === "effect") return { kind: "adopt", patch: { ...told.patch, message: told.says } };
      return {
        kind: "adopt",
        patch: {
          status: told.closes ? "closed" : "filled",
          notionalBefore: told.notionalBefore,
          ...(told.hedgeId && !told.closes ? { hedgeId: told.hedgeId } : {}),
          message: told.says,
        },
      };
  }
}

/** The "submitted" message (informational: the outcome is judged from the hedge, never read back from this text). */
export function submittedMessage(action: Action, newNotional: number | null): string {
  if ((action === "add" || action === "reduce") && newNotional !== null)
    return `Submitted: the service expects the hedge at ${usdText(newNotional)}.`;
  return "Submitted: waiting for the fill.";
}

/**
 * An Add or Reduce only the Hedge Log knows (no journal of this computer holds it, nor the key that sent it), judged
 * done from its Notional before: that cell proves nothing (anyone can type the value that makes the hedge look like its
 * effect), so the user says, with what the service shows. A failed hedge (nothing happened) needs no question.
 */
function typedBefore(intent: Intent, shown: Extract<Judged, { kind: "effect" }>, facts: Facts): Step | null {
  if (facts.sentBy !== "unknown" || intent.notionalBefore === null || shown.patch.status === "failed") return null;
  if (intent.action !== "add" && intent.action !== "reduce") return null;
  return {
    kind: "park",
    why: "log_only",
    reason: `${shown.says} It looks done only against its Notional before (USD) ${usdText(intent.notionalBefore)}, which only the Hedge Log holds (no journal on this computer wrote it; it may have been typed): say whether it was done.`,
  };
}

/** The service does not know the row's hedge: a new hedge may take a moment to show, so asked again within the mismatch caps. */
function notFoundStep(accepted: boolean, hedgeId: string | null, facts: Facts): Step {
  if (!facts.mayAskAgain)
    return {
      kind: "park",
      why: "not_found",
      reason: `The service does not know hedge ${hedgeId} (hedge_not_found), asked ${facts.doubt?.rounds} times.`,
    };
  const note: IntentPatch = { errorCode: "hedge_not_found", message: `The service does not know hedge ${hedgeId} yet: asking again.` };
  return accepted ? { kind: "follow", note } : { kind: "wait", why: "unclear", note };
}

/** Not on the service (yet). */
function absentStep(intent: Intent, shown: Extract<Judged, { kind: "absent" }>, facts: Facts): Step {
  if (intent.status === "submitted") {
    if (!shown.settled) return { kind: "follow" };
    return {
      kind: "adopt",
      patch: {
        status: "failed",
        message: `The hedge ended before this ${intent.action} took effect: it was dropped (nothing happened). ${shown.says}`,
      },
    };
  }
  if (facts.neverSent) return { kind: "send" };
  if (facts.sentBy !== "this_key")
    return {
      kind: "park",
      why: "other_key",
      reason: `${shown.says} It was sent ${facts.sentBy === "other_key" ? "with another API key" : "from another computer (or before this version)"}: a re-send with this key could act a second time.`,
    };
  // Sent with this key by this computer, which records when before a request leaves: the age is known (were it not,
  // Infinity fails the comparison and the row waits for the user).
  if (!(facts.sentAgoMs < RESEND_WINDOW_MS))
    return {
      kind: "park",
      why: "too_old",
      reason: `${shown.says} It was sent ${ago(facts.sentAgoMs)} ago: the service may have forgotten its idempotency key, so a re-send could act a second time.`,
    };
  const last = intent.errorCode ?? "no answer";
  if (facts.doubt && facts.doubt.rounds >= DOUBT_MAX_ROUNDS)
    return {
      kind: "park",
      why: "doubt_rounds",
      reason: `${shown.says} Asked ${facts.doubt.rounds} times without a clear answer (last: ${last}).`,
    };
  if (facts.doubt && facts.doubt.forMs > DOUBT_LIMIT_MS)
    return { kind: "park", why: "doubt_time", reason: `${shown.says} No clear answer for ${ago(facts.doubt.forMs)} (last: ${last}).` };
  return { kind: "resend" };
}

/**
 * The user's decision as the row's patch. "It was not done": not sent. "It was done": adopt what the service shows — its
 * effect; "no effect, and none can come any more" when its hedge ended without it; otherwise the user's word stands (the
 * service shows something the add-in cannot match). `shown` null: the service could not be asked. `evidence`: the service
 * shows the row's effect or something of its hedge, or this computer journalled it; without it the user confirmed that
 * nothing shows, and the log says so. `at`: when the user decided (ISO 8601 UTC).
 */
export function decisionPatch(intent: Intent, decision: Decision, shown: Judged | null, evidence: boolean, at: string): IntentPatch {
  if (decision === "not_done")
    return {
      status: "not_sent",
      decision: "not done",
      decidedAt: at,
      errorCode: null,
      message: `Marked not sent by the user (${when(at)}): nothing is sent for this row.`,
    };
  return { errorCode: null, ...donePatch(intent, shown, evidence), decidedAt: at };
}

function donePatch(intent: Intent, v: Judged | null, evidence: boolean): IntentPatch {
  const shown = v ? v.says : "The service could not be asked.";
  if (!evidence)
    return {
      status: intent.action === "close" ? "closed" : "filled",
      message: `Recorded as done by the user although neither the service nor this computer's journal shows anything of it; the service showed: ${shown}`,
      decision: "done (nothing on the service)",
    };
  const patch: IntentPatch =
    v?.kind === "effect"
      ? { ...v.patch }
      : v?.kind === "absent" && v.settled
        ? { status: "failed", message: `The service shows it had no effect: ${shown}` }
        : { status: intent.action === "close" ? "closed" : "filled", message: `Marked done by the user; the service showed: ${shown}` };
  return { ...patch, decision: `done: ${shown}`.slice(0, 250) };
}

/** Counts a mismatching round (hedge_not_found, a hedge that does not match); true when the caps are reached. */
export function mismatchCapped(doubt: { since: number; rounds: number }, nowMs: number): boolean {
  const elapsed = nowMs - doubt.since;
  return (doubt.rounds >= MISMATCH_MAX_ROUNDS && elapsed >= MISMATCH_MIN_MS) || elapsed >= MISMATCH_LIMIT_MS;
}

/**
 * What a failed send means for the row:
 *  - transient: nothing known yet (network, timeout, 5xx, 429, in flight): ask the service, then maybe re-send;
 *  - refused: a 4xx the service sent that says it did nothing (e.g. hedge_exists, validation_error: isRefusal in
 *    src/api/errors.ts, which the sender asks too): final `rejected`;
 *  - unknown: anything else (invalid_response — a 200 we could not read —, idempotency_key_reuse, unexpected errors):
 *    the service may have acted; asked again a capped number of times, then the user decides.
 */
export function classifyFailure(e: unknown): "transient" | "refused" | "unknown" {
  if (!isHedgingApiError(e)) return "unknown";
  if (e.retryable) return "transient";
  if (isRefusal(e)) return "refused";
  return "unknown";
}

/**
 * Known never sent: this computer's journal holds the row (it is written there before anything else) and no first send
 * is recorded (it is recorded there before the request leaves). A row only the log knows (another computer, an older
 * version) may have been sent whatever its Sent at says: the service is asked, and a re-send is never made blindly.
 */
export function neverSent(intent: Intent): boolean {
  return intent.sentAt === null && intent.keyId !== null;
}

/** "40 s", "15 min", "3 h", "2 days". */
export function ago(ms: number): string {
  if (ms < 90_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (ms < 90 * 60_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 48 * 3_600_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} days`;
}

/**
 * What is known of an armed side (roll-arming.ts) at a poll: the maturing hedge as the service shows it, whether this pane
 * saw it open before its maturity, what the service shows under the roll's client reference, whether another hedge holds
 * the side, how many rows the policy gives the side once settled, and whether a row may be sent without a person's click.
 */
export interface RollFacts {
  /** The maturing hedge: still open (or its maturity not reached), settled at its maturity, closed before it, or the service could not be asked. */
  hedge: "open" | "settled" | "closed_early" | "unreachable";
  /** This pane armed the side while its hedge was open: false for a side found settled when the pane opened (or armed). */
  armedBefore: boolean;
  /** Hedges (not failed) the service shows with the roll's Open's client reference: another computer or copy rolled it. */
  rolledOnService: boolean;
  /** Another hedge is open on the side (someone hedged it otherwise). */
  sideTaken: boolean;
  /** Rows the policy gives the side once settled (the Open and Max trade's Adds); 0: its target is 0; null: no model known (no proposal yet). */
  rows: number | null;
  /** Sent without a click ("direct"), or four-eyes asked by the workbook or the key and a standing roll instruction covers the roll, or it does not. */
  approval: "direct" | "covered" | "needed";
}

/** What the armed side's poll does next. */
export type RollStep =
  /** Nothing yet: the hedge has not settled (or the service could not be asked): asked again at the next poll. */
  | { kind: "wait" }
  /** Send the armed Open (and its Adds) through the desk's own send path, keys derived from the references. */
  | { kind: "send" }
  /** The roll is on the service already (another computer, another copy): nothing is sent; the side is rolled. */
  | { kind: "rolled_elsewhere" }
  /** Not sent without a person: the Open is proposed (the overview says so, Propose beside the side writes it). */
  | { kind: "propose"; why: "no_model" | "opened_after" | "four_eyes" }
  /** Nothing to roll: the side is left as it is, with why. */
  | { kind: "disarm"; why: "closed_early" | "side_taken" | "target_zero" };

/**
 * The armed roll's rule (src/trading/README.md, "Armed rolls"), a row of the same table as nextStep's
 * (test/trading/desk/roll-rule.test.ts):
 * - the hedge not settled yet, or the service not answering: wait for the next poll;
 * - closed before its maturity (a Close, a Reduce to nothing): not a roll, disarmed;
 * - settled: the roll's reference on the service → rolled elsewhere (asked before anything is sent); another hedge open
 *   on the side → disarmed; no model known (no proposal yet) → proposed; the policy's target 0 → disarmed (nothing to roll); settled before this pane armed it (the
 *   workbook was closed at the maturity) → proposed, never sent without a click; four-eyes without a standing roll
 *   instruction covering it → proposed for approval; otherwise sent at once.
 */
export function rollStep(f: RollFacts): RollStep {
  if (f.hedge === "open" || f.hedge === "unreachable") return { kind: "wait" };
  if (f.hedge === "closed_early") return { kind: "disarm", why: "closed_early" };
  if (f.rolledOnService) return { kind: "rolled_elsewhere" };
  if (f.sideTaken) return { kind: "disarm", why: "side_taken" };
  if (f.rows === null) return { kind: "propose", why: "no_model" };
  if (f.rows === 0) return { kind: "disarm", why: "target_zero" };
  if (!f.armedBefore) return { kind: "propose", why: "opened_after" };
  if (f.approval === "needed") return { kind: "propose", why: "four_eyes" };
  return { kind: "send" };
}
