// The recovery rule as a table, one line per case, each named as src/trading/README.md states it: what the desk does next with an unfinished row, from what the service shows and what this computer knows.
import {
  decisionPatch,
  DOUBT_LIMIT_MS,
  DOUBT_MAX_ROUNDS,
  factsOf,
  nextStep,
  RESEND_WINDOW_MS,
  type Facts,
  type Shown,
} from "../../../src/trading/desk/rule";
import { intentFromRow, type Intent } from "../../../src/trading/intent";
import type { IntentStatus } from "../../../src/trading/types";

function add(status: IntentStatus): Intent {
  const i = intentFromRow(
    { rowNumber: 2, action: "add", market: "USDTNGN", side: "buy", notional: 25_000, tenor: null, clientReference: null },
    "k-1",
    "sandbox",
    "2026-11-25T10:00:00.000Z",
  );
  return Object.assign(i, { status, errorCode: "service_unavailable" });
}
const open = (status: IntentStatus): Intent => Object.assign(add(status), { action: "open" as const });

const SENT = { neverSent: false, fresh: false, sentBy: "this_key", sentAgoMs: 60_000, doubt: null, mayAskAgain: true } satisfies Facts;
const NEVER = { ...SENT, neverSent: true, sentAgoMs: Infinity };
const filled: Shown = { kind: "effect", patch: { status: "filled", message: "Filled." }, says: "Hedge h-1 is filled at 125,000.00 USD." };
const held: Shown = { kind: "effect", patch: { status: "submitted", message: "Submitted." }, says: "Hedge h-1 is accepted." };
const absent: Shown = { kind: "absent", settled: false, says: "Its notional is the one before this row." };
const ended: Shown = { kind: "absent", settled: true, says: "It closed without this row." };
const unclear: Shown = { kind: "unclear", says: "The change does not match the row." };
const down: Shown = { kind: "unreachable", code: "service_unavailable" };
const notAsked: Shown = { kind: "not_asked" };
const unknownHedge: Shown = { kind: "not_found", hedgeId: "h-9" };
const COUNTED = { ...SENT, doubt: { rounds: 3, forMs: 10_000 } };
const closeRow = (status: IntentStatus): Intent => Object.assign(add(status), { action: "close" as const, notional: null });
const accepted: Shown = { kind: "accepted", hedgeId: "h-1", orderTxHash: "0xo", newNotional: 125_000 };
const refused: Shown = { kind: "refused", code: "hedge_exists", says: "A hedge is open on this side. Use Add." };
const noHedge: Shown = { kind: "no_open_hedge", complete: true };
const decided = (decision: "done" | "not_done", verdict: Shown): Shown => ({
  kind: "decided",
  decision,
  verdict: verdict as Extract<Shown, { kind: "effect" | "absent" | "unclear" }>,
  evidence: true,
  at: "2026-11-25T10:30:00.000Z",
});
const doneOpen: Shown = { kind: "done_elsewhere", by: "effect", patch: { status: "filled", message: "Filled." }, says: "Done already." };
const doneSide = (closes: boolean): Shown => ({
  kind: "done_elsewhere",
  by: "side",
  closes,
  hedgeId: closes ? null : "h-1",
  notionalBefore: 100_000,
  says: "Done already by another approval of this batch.",
});

const cases: Array<[string, Intent, Shown, Facts, string]> = [
  ["a row waiting for your decision stays so", add("needs_decision"), filled, SENT, "park:awaiting"],
  [
    "a row only the log knows that looks done only against its Notional before needs your decision",
    Object.assign(add("submitting"), { notionalBefore: 100_000 }),
    filled,
    { ...SENT, sentBy: "unknown" },
    "park:log_only",
  ],
  [
    "a Reduce only the log knows that looks done only against its Notional before needs your decision too",
    Object.assign(add("submitting"), { action: "reduce" as const, notionalBefore: 100_000 }),
    filled,
    { ...SENT, sentBy: "unknown" },
    "park:log_only",
  ],
  [
    "a Close only the log knows is recorded as the service shows it: its hedge closed needs no Notional before",
    Object.assign(add("submitting"), { action: "close" as const, notional: null, notionalBefore: 100_000 }),
    { kind: "effect", patch: { status: "closed", message: "Closed." }, says: "Hedge h-1 is closed." },
    { ...SENT, sentBy: "unknown" },
    "adopt:closed",
  ],
  [
    "a row only the log knows without a Notional before is recorded as the service shows it: no typed cell made it look done",
    add("submitting"),
    filled,
    { ...SENT, sentBy: "unknown" },
    "adopt:filled",
  ],
  [
    "the same row journalled here (its Notional before written by this computer) is recorded",
    Object.assign(add("submitting"), { notionalBefore: 100_000 }),
    filled,
    SENT,
    "adopt:filled",
  ],
  [
    "a row only the log knows whose hedge failed is recorded failed: nothing happened",
    Object.assign(add("submitting"), { notionalBefore: 100_000 }),
    { kind: "effect", patch: { status: "failed", message: "The hedge failed." }, says: "Hedge h-1 failed." },
    { ...SENT, sentBy: "unknown" },
    "adopt:failed",
  ],
  ["the service shows the row took effect: it is recorded, nothing is sent", add("submitting"), filled, SENT, "adopt:filled"],
  ["the service shows an accepted row's fill: it is recorded", add("submitted"), filled, SENT, "adopt:filled"],
  ["an accepted row the service still holds is recorded as it shows (then followed)", add("submitted"), held, SENT, "adopt:submitted"],
  ["an accepted row not there yet is followed to its fill", add("submitted"), absent, SENT, "follow"],
  ["an accepted row whose hedge ended without it failed: nothing happened", add("submitted"), ended, SENT, "adopt:failed"],
  ["a hedge that does not match its row is asked again while the caps allow", add("submitting"), unclear, SENT, "wait:unclear"],
  ["an accepted row that does not match is followed while the caps allow", add("submitted"), unclear, SENT, "follow"],
  [
    "a hedge that does not match its row, asked to the caps, needs your decision",
    add("submitting"),
    unclear,
    { ...SENT, mayAskAgain: false },
    "park:unclear",
  ],
  ["a row never sent that the service cannot match needs your decision at once", open("submitting"), unclear, NEVER, "park:unclear"],
  ["never sent (this computer's journal says so): sent now with its own key", add("submitting"), notAsked, NEVER, "send"],
  ["a row journalled by this session is sent without asking first", open("submitting"), notAsked, { ...NEVER, fresh: true }, "send"],
  ["a resumed Open never sent is looked for on the service first", open("submitting"), notAsked, NEVER, "wait:ask_first"],
  ["a resumed Open never sent and not on the service is sent", open("submitting"), absent, NEVER, "send"],
  ["a row sent before is never sent again without asking the service first", add("submitting"), notAsked, SENT, "wait:ask_first"],
  ["not on the service, sent under 15 min ago with this key: sent again with the same key", add("submitting"), absent, SENT, "resend"],
  [
    "not on the service, sent 15 min ago or more: a re-send could act twice, your decision",
    add("submitting"),
    absent,
    { ...SENT, sentAgoMs: RESEND_WINDOW_MS },
    "park:too_old",
  ],
  [
    "not on the service, sent with another API key: your decision",
    add("submitting"),
    absent,
    { ...SENT, sentBy: "other_key" },
    "park:other_key",
  ],
  [
    "not on the service, sent from another computer or an older version: your decision",
    add("submitting"),
    absent,
    { ...SENT, sentBy: "unknown" },
    "park:other_key",
  ],
  [
    "unknown outcomes are re-asked at most 6 times",
    add("submitting"),
    absent,
    { ...SENT, doubt: { rounds: DOUBT_MAX_ROUNDS, forMs: 1_000 } },
    "park:doubt_rounds",
  ],
  [
    "unknown outcomes are re-asked within 10 minutes",
    add("submitting"),
    absent,
    { ...SENT, doubt: { rounds: 2, forMs: DOUBT_LIMIT_MS + 1 } },
    "park:doubt_time",
  ],
  [
    "unknown outcomes within their caps: sent again with the same key",
    add("submitting"),
    absent,
    { ...SENT, doubt: { rounds: DOUBT_MAX_ROUNDS - 1, forMs: DOUBT_LIMIT_MS } },
    "resend",
  ],
  ["the service could not be asked: asked again after a wait", add("submitting"), down, SENT, "wait:unreachable"],
  ["the service could not be asked about a row never sent: asked again", open("submitting"), down, NEVER, "wait:unreachable"],
  [
    "the service could not be asked since the resend window and the doubt limit: your decision",
    add("submitting"),
    down,
    { ...SENT, sentAgoMs: RESEND_WINDOW_MS + DOUBT_LIMIT_MS },
    "park:unreachable",
  ],
  ["an accepted row the service could not be asked about is followed", add("submitted"), down, SENT, "follow"],
  [
    "an accepted row whose hedge the service does not know (hedge_not_found) is followed while the caps allow",
    add("submitted"),
    unknownHedge,
    COUNTED,
    "follow",
  ],
  [
    "hedge_not_found asked to the caps: your decision",
    add("submitted"),
    unknownHedge,
    { ...COUNTED, mayAskAgain: false },
    "park:not_found",
  ],
  [
    "a row being sent whose hedge the service does not know is asked again after a wait",
    add("submitting"),
    unknownHedge,
    COUNTED,
    "wait:unclear",
  ],
  // What a row is told (issue 38): its send's answer, no hedge to act on, the user's word, done by another approval.
  ["a send the service accepted is recorded submitted", add("submitting"), accepted, SENT, "adopt:submitted"],
  ["a send the service refused (a 4xx that says it did nothing) is rejected", add("submitting"), refused, SENT, "adopt:rejected"],
  ["no open hedge on the side just before an Add left: rejected, nothing sent", add("submitting"), noHedge, NEVER, "adopt:rejected"],
  ["a row without a usable idempotency key is never sent: your decision", add("submitting"), { kind: "no_key" }, NEVER, "park:no_key"],
  ["It was not done: recorded not sent", add("needs_decision"), decided("not_done", filled), SENT, "record:not_sent"],
  ["It was done, and the service shows it: recorded as it shows", add("needs_decision"), decided("done", filled), SENT, "record:filled"],
  [
    "It was done on a row not parked (only the log knew it): recorded all the same",
    add("submitted"),
    decided("done", filled),
    SENT,
    "record:filled",
  ],
  ["It was done, and its hedge ended without it: recorded failed", add("needs_decision"), decided("done", ended), SENT, "record:failed"],
  [
    "It was done on a Close the service cannot match: the user's word, closed",
    closeRow("needs_decision"),
    decided("done", unclear),
    SENT,
    "record:closed",
  ],
  ["an approved Open another approval did is recorded as the service shows it", open("submitting"), doneOpen, NEVER, "adopt:filled"],
  ["an approved Add another approval did is recorded filled, never sent", add("submitting"), doneSide(false), NEVER, "adopt:filled"],
  [
    "an approved Reduce another approval did that left no hedge open is recorded closed",
    add("submitting"),
    doneSide(true),
    NEVER,
    "adopt:closed",
  ],
];

describe("the recovery rule", () => {
  test.each(cases)("%s", (_rule, intent, shown, facts, expected) => {
    const step = nextStep(intent, shown, facts);
    const why =
      step.kind === "adopt" || step.kind === "record" ? step.patch.status : step.kind === "wait" || step.kind === "park" ? step.why : null;
    expect(why ? `${step.kind}:${why}` : step.kind).toBe(expected);
  });

  it("a parked row says why in words the pane shows: what the service showed, and what stops a re-send", () => {
    expect(nextStep(add("needs_decision"), filled, SENT)).toEqual({
      kind: "park",
      why: "awaiting",
      reason: "The service could not tell whether this row took effect.",
    });
    const step = nextStep(add("submitting"), absent, { ...SENT, sentAgoMs: 20 * 60_000 });
    expect(step).toEqual({
      kind: "park",
      why: "too_old",
      reason:
        "Its notional is the one before this row. It was sent 20 min ago: the service may have forgotten its idempotency key, so a re-send could act a second time.",
    });
    expect(nextStep(add("submitting"), absent, { ...SENT, doubt: { rounds: 6, forMs: 0 } })).toMatchObject({
      reason: expect.stringContaining("Asked 6 times without a clear answer (last: service_unavailable)."),
    });
    // A row asked about after a reload has no error of its own: the reason says no answer came.
    const quiet = Object.assign(add("submitting"), { errorCode: null });
    expect(nextStep(quiet, absent, { ...SENT, doubt: { rounds: 6, forMs: 0 } })).toMatchObject({
      reason: expect.stringContaining("Asked 6 times without a clear answer (last: no answer)."),
    });
  });

  it("a row whose hedge the service does not know says so while it is asked again, and how often it was asked once parked", () => {
    const note = { errorCode: "hedge_not_found", message: "The service does not know hedge h-9 yet: asking again." };
    expect(nextStep(add("submitted"), unknownHedge, COUNTED)).toEqual({ kind: "follow", note });
    expect(nextStep(add("submitting"), unknownHedge, COUNTED)).toEqual({ kind: "wait", why: "unclear", note });
    expect(nextStep(add("submitted"), unknownHedge, { ...COUNTED, mayAskAgain: false })).toEqual({
      kind: "park",
      why: "not_found",
      reason: "The service does not know hedge h-9 (hedge_not_found), asked 3 times.",
    });
    // A mismatch asked again says what the service showed; an accepted one is followed quietly.
    expect(nextStep(add("submitting"), unclear, SENT)).toEqual({
      kind: "wait",
      why: "unclear",
      note: { message: "Asking the service again: The change does not match the row." },
    });
    expect(nextStep(add("submitted"), unclear, SENT)).toEqual({ kind: "follow" });
  });
});

describe("what a row is told, as its patch (issue 38: the executor applies it, nothing else writes a status)", () => {
  it("a send's answer: submitted with the hedge and order it names (the row's own hedge when it names none), or rejected with the service's words", () => {
    expect(nextStep(add("submitting"), accepted, SENT)).toEqual({
      kind: "adopt",
      patch: {
        status: "submitted",
        hedgeId: "h-1",
        orderTxHash: "0xo",
        errorCode: null,
        message: "Submitted: the service expects the hedge at 125,000.00 USD.",
      },
    });
    const acting = Object.assign(open("submitting"), { hedgeId: "h-0" });
    expect(nextStep(acting, { ...accepted, hedgeId: null } as Shown, SENT)).toMatchObject({
      patch: { hedgeId: "h-0", message: "Submitted: waiting for the fill." },
    });
    expect(nextStep(add("submitting"), refused, SENT)).toEqual({
      kind: "adopt",
      patch: { status: "rejected", errorCode: "hedge_exists", message: "A hedge is open on this side. Use Add." },
    });
    // A Reduce's answer names the notional the service expects too; an Open's (no such figure) waits for the fill.
    const reduce = Object.assign(add("submitting"), { action: "reduce" as const });
    expect(nextStep(reduce, { ...accepted, newNotional: 75_000 } as Shown, SENT)).toMatchObject({
      patch: { message: "Submitted: the service expects the hedge at 75,000.00 USD." },
    });
    expect(nextStep(open("submitting"), accepted, SENT)).toMatchObject({ patch: { message: "Submitted: waiting for the fill." } });
  });

  it("no usable idempotency key: parked, saying it is never sent", () => {
    expect(nextStep(add("submitting"), { kind: "no_key" }, NEVER)).toEqual({
      kind: "park",
      why: "no_key",
      reason: "The row has no usable idempotency key: it is never sent.",
    });
  });

  it("no open hedge just before an Add left: rejected, saying whether every open hedge was listed", () => {
    expect(nextStep(add("submitting"), noHedge, NEVER)).toEqual({
      kind: "adopt",
      patch: {
        status: "rejected",
        errorCode: "no_open_hedge",
        message: "No open hedge on USDTNGN buy (checked just before sending): nothing was sent. Use Open first.",
      },
    });
    expect(nextStep(add("submitting"), { kind: "no_open_hedge", complete: false }, NEVER)).toMatchObject({
      patch: { message: expect.stringMatching(/^No open hedge on USDTNGN buy among the newest .* Check the hedge on the service\.$/) },
    });
  });

  it("the user's word is decisionPatch's, whatever the row's state", () => {
    const told = decided("done", filled) as Extract<Shown, { kind: "decided" }>;
    for (const status of ["needs_decision", "submitting", "submitted"] as const)
      expect(nextStep(add(status), told, SENT)).toEqual({
        kind: "record",
        patch: decisionPatch(add(status), "done", told.verdict, true, told.at),
      });
  });

  it("done by another approval: an Open as the service shows it, an Add, Reduce or Close with its notional before and the hedge left open, if any", () => {
    expect(nextStep(open("submitting"), doneOpen, NEVER)).toEqual({ kind: "adopt", patch: { status: "filled", message: "Done already." } });
    // An Open the service still holds (accepted, not filled yet) is recorded accepted, with the hedge and order it shows.
    const heldOpen = { ...doneOpen, patch: { status: "submitted", hedgeId: "h-7", orderTxHash: "0xo-7", message: "Submitted." } } as Shown;
    expect(nextStep(open("submitting"), heldOpen, NEVER)).toEqual({
      kind: "adopt",
      patch: { status: "submitted", hedgeId: "h-7", orderTxHash: "0xo-7", message: "Done already." },
    });
    expect(nextStep(add("submitting"), doneSide(false), NEVER)).toEqual({
      kind: "adopt",
      patch: { status: "filled", notionalBefore: 100_000, hedgeId: "h-1", message: "Done already by another approval of this batch." },
    });
    expect(nextStep(add("submitting"), doneSide(true), NEVER)).toEqual({
      kind: "adopt",
      patch: { status: "closed", notionalBefore: 100_000, message: "Done already by another approval of this batch." },
    });
    // A side with no hedge open now (a row below closed it) names no hedge: the row keeps the one it has.
    expect(nextStep(add("submitting"), { ...doneSide(false), hedgeId: null } as Shown, NEVER)).toEqual({
      kind: "adopt",
      patch: { status: "filled", notionalBefore: 100_000, message: "Done already by another approval of this batch." },
    });
  });
});

describe("the facts of a row (factsOf)", () => {
  const NOW = Date.parse("2026-11-25T10:05:00.000Z");
  const seen = { keyId: "fp-this", nowMs: NOW, fresh: false, doubt: null, mayAskAgain: true };
  const sent = (keyId: string | null, sentAt: string | null) => Object.assign(add("submitting"), { keyId, sentAt });

  it("who sent it, how long ago, and whether this computer knows it never left", () => {
    expect(factsOf(sent("fp-this", "2026-11-25T10:00:00.000Z"), seen)).toEqual({
      neverSent: false,
      fresh: false,
      sentBy: "this_key",
      sentAgoMs: 5 * 60_000,
      doubt: null,
      mayAskAgain: true,
    });
    expect(factsOf(sent("fp-other", "2026-11-25T10:00:00.000Z"), seen).sentBy).toBe("other_key");
    // Only the log knows it (no key fingerprint): another computer or an older version; never known unsent.
    expect(factsOf(sent(null, null), seen)).toMatchObject({ sentBy: "unknown", neverSent: false, sentAgoMs: Infinity });
    // This computer journalled it and recorded no send.
    expect(factsOf(sent("fp-this", null), { ...seen, fresh: true, mayAskAgain: false })).toMatchObject({
      neverSent: true,
      fresh: true,
      sentAgoMs: Infinity,
      mayAskAgain: false,
    });
  });

  it("doubts counted: how many, and for how long", () => {
    const doubt = { since: NOW - 90_000, rounds: 4 };
    expect(factsOf(sent("fp-this", "2026-11-25T10:00:00.000Z"), { ...seen, doubt }).doubt).toEqual({ rounds: 4, forMs: 90_000 });
  });
});

describe("the user's decision as the row's patch (decisionPatch)", () => {
  const AT = "2026-11-25T10:30:00.000Z";

  it("It was not done: not sent, with the time, and what a doubt said taken back", () => {
    expect(decisionPatch(add("needs_decision"), "not_done", filled as never, true, AT)).toEqual({
      status: "not_sent",
      decision: "not done",
      decidedAt: AT,
      errorCode: null,
      message: "Marked not sent by the user (2026-11-25 10:30:00 UTC): nothing is sent for this row.",
    });
  });

  it("It was done: what the service shows is adopted; a hedge that ended without it failed; else the user's word stands", () => {
    const effect = filled as Extract<Shown, { kind: "effect" }>;
    expect(decisionPatch(add("needs_decision"), "done", effect, true, AT)).toEqual({
      errorCode: null,
      status: "filled",
      message: "Filled.",
      decision: "done: Hedge h-1 is filled at 125,000.00 USD.",
      decidedAt: AT,
    });
    expect(decisionPatch(add("needs_decision"), "done", ended as never, true, AT)).toMatchObject({
      status: "failed",
      message: "The service shows it had no effect: It closed without this row.",
    });
    expect(decisionPatch(add("needs_decision"), "done", absent as never, true, AT)).toMatchObject({
      status: "filled",
      message: "Marked done by the user; the service showed: Its notional is the one before this row.",
    });
    const close = Object.assign(add("needs_decision"), { action: "close" as const });
    expect(decisionPatch(close, "done", unclear as never, true, AT)).toMatchObject({ status: "closed" });
    expect(decisionPatch(close, "done", null, true, AT)).toMatchObject({
      status: "closed",
      message: "Marked done by the user; the service showed: The service could not be asked.",
      decision: "done: The service could not be asked.",
    });
  });

  it("It was done with nothing anywhere (confirmed by the user): recorded done, and the log says nothing was on the service", () => {
    expect(decisionPatch(add("needs_decision"), "done", absent as never, false, AT)).toEqual({
      errorCode: null,
      status: "filled",
      message:
        "Recorded as done by the user although neither the service nor this computer's journal shows anything of it; the service showed: Its notional is the one before this row.",
      decision: "done (nothing on the service)",
      decidedAt: AT,
    });
    const close = Object.assign(add("needs_decision"), { action: "close" as const });
    expect(decisionPatch(close, "done", null, false, AT)).toMatchObject({
      status: "closed",
      message: expect.stringMatching(/the service showed: The service could not be asked\.$/),
    });
  });

  it("the decision cell is cut to 250 characters", () => {
    const long = { kind: "unclear", says: "x".repeat(400) } as const;
    expect(decisionPatch(add("needs_decision"), "done", long, true, AT).decision).toHaveLength(250);
  });
});
