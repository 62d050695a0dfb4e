// The resume planner: on opening, the unfinished rows of the log and this computer's journal, what the service shows about each (judged in its side's chain) and what Resume would do, as the recovery rule says. Reads only; sends and writes nothing.
import { utcMs } from "../../api/time";
import { errorCode } from "../../api/errors";
import { isFinal, rowStatusOf, type Intent } from "../intent";
import { check } from "../fills";
import { chainGaps } from "../verdict";
import { sameAccount } from "../duplicates";
import type { ResumeItem, ResumePlan, ResumeStep } from "../types";
import type { DeskContext } from "./context";
import { ago, factsOf, neverSent, nextStep, type Facts, type ParkWhy, type Shown, type Step } from "./rule";
import { mapLimited } from "../map-limited";

/** On opening, the service is asked about this many unfinished rows (the newest); the others are asked on Resume. */
export const INSPECT_ASK_MAX = 100;

type Planned = Pick<ResumeItem, "serviceSays" | "step" | "detail">;

/** The plan of every unfinished row of this environment and account (the journal is loaded). */
export async function planResume(ctx: DeskContext): Promise<ResumePlan> {
  const journal = ctx.journal;
  const plan: ResumePlan = {
    items: [],
    unusable: [],
    otherAccounts: 0,
    missing: journal.orphaned().map(rowStatusOf),
    otherWorkbooks: journal.otherWorkbookRows().map((i) => ({ row: rowStatusOf(i), workbookName: i.workbookName })),
    copied: await copiedRows(journal),
  };
  const rows: Array<{ intent: Intent; owner: ResumeItem["owner"] }> = [];
  for (const intent of journal.all()) {
    if (isFinal(intent.status)) continue;
    if (intent.environment !== ctx.environment || (intent.account && !sameAccount(intent.account, ctx.account))) {
      plan.otherAccounts++;
      continue;
    }
    rows.push({ intent, owner: intent.account ? "mine" : "unclaimed" });
  }
  // The service is asked about the newest INSPECT_ASK_MAX rows (a list to read, not a batch to price); Resume asks about
  // every row before it acts anyway. Of rows logged together, the later in the log is the newer (reversed, then a stable
  // sort by time).
  const newestFirst = [...rows].reverse().sort((a, b) => utcMs(b.intent.loggedAt) - utcMs(a.intent.loggedAt));
  const asked = new Set(newestFirst.slice(0, INSPECT_ASK_MAX).map((r) => r.intent));
  const chain = ctx.state.chain();
  const gaps = chainGaps(journal.all(), (i) => isFinal(i.status));
  plan.items = await mapLimited(rows, ctx.concurrency, async ({ intent, owner }) => {
    const planned = asked.has(intent) ? await planRow(ctx, intent, chain(intent)) : notAsked(ctx, intent);
    // The side's chain: a change of the hedge before its first unfinished row that no row of this log explains.
    const gap = gaps.get(intent.idempotencyKey);
    return { row: rowStatusOf(intent), owner, ...planned, serviceSays: gap ? `${planned.serviceSays} ${gap}` : planned.serviceSays };
  });
  for (const { record, reason } of journal.unusable()) {
    if (isFinal(record.status) || (record.environment && record.environment !== ctx.environment)) continue;
    if (record.account && !sameAccount(record.account, ctx.account)) continue;
    plan.unusable.push({
      loggedAt: record.loggedAt,
      action: record.action,
      market: record.market,
      side: record.side,
      idempotencyKey: record.idempotencyKey,
      status: record.status,
      reason: `Never sent by the add-in: ${reason}. Check it on the service, then correct or delete the row.`,
    });
  }
  return plan;
}

/** This workbook id's rows journalled under another file name (journal-merge.ts's ownerOf "copy"), and this file's name. */
async function copiedRows(journal: DeskContext["journal"]): Promise<ResumePlan["copied"]> {
  const rows = journal.copiedRows();
  if (rows.length === 0) return null;
  const fileName = (await journal.identity()).name ?? "";
  return { fileName, rows: rows.map((i) => ({ row: rowStatusOf(i), workbookName: i.workbookName ?? "" })) };
}

/** The facts of a row Resume would take up (a fresh start: no doubts counted; an accepted row is followed, so asked again). */
function factsFor(ctx: DeskContext, intent: Intent): Facts {
  const mayAskAgain = intent.status === "submitted";
  return factsOf(intent, { keyId: ctx.client.keyId, nowMs: ctx.now().getTime(), fresh: false, doubt: null, mayAskAgain });
}

/** A row past the newest INSPECT_ASK_MAX: what the rule says without asking. */
function notAsked(ctx: DeskContext, intent: Intent): Planned {
  const step = nextStep(intent, { kind: "not_asked" }, factsFor(ctx, intent));
  return {
    serviceSays: `Not asked yet (the newest ${INSPECT_ASK_MAX} rows are).`,
    // A row known never sent is sent (a resumed Open after asking first): listed as "send".
    step: step.kind === "follow" ? "follow" : step.kind === "park" ? "decide" : neverSent(intent) ? "send" : "ask",
    detail: "Resume asks the service about it before doing anything.",
  };
}

/** What Resume would do with one row, and what the service shows now. Reads only. */
async function planRow(ctx: DeskContext, intent: Intent, next: Intent | null): Promise<Planned> {
  const facts = factsFor(ctx, intent);
  // Only a row being sent can be "send" unasked (an accepted row is followed, one waiting for a decision stays so).
  if (nextStep(intent, { kind: "not_asked" }, facts).kind === "send")
    return {
      serviceSays: "Not asked: this computer's journal shows it was never sent.",
      step: "send",
      detail: "Never sent: Resume sends it.",
    };
  let shown: Shown;
  try {
    shown = (await check(ctx.client, intent, undefined, () => ctx.openedHedges(), next)).verdict;
  } catch (e) {
    shown = { kind: "unreachable", code: errorCode(e) };
  }
  const serviceSays = shown.kind === "unreachable" ? `Could not ask the service (${shown.code}).` : shown.says;
  return { serviceSays, ...presented(intent, nextStep(intent, shown, facts), facts) };
}

/** The rule's step as the pane lists it: the ResumeStep and why, in a sentence. */
function presented(intent: Intent, step: Step, facts: Facts): { step: ResumeStep; detail: string } {
  switch (step.kind) {
    case "adopt":
      if (intent.status !== "submitted")
        return { step: "record", detail: `It took effect: Resume records it as ${step.patch.status}, without sending anything.` };
      if (step.patch.status === "submitted") return { step: "follow", detail: "Accepted by the service: Resume follows it to its fill." };
      return { step: "record", detail: `Resume records it as ${step.patch.status}.` };
    case "follow":
      return { step: "follow", detail: "Accepted by the service: Resume follows it to its fill." };
    case "send":
      return { step: "send", detail: "Never sent: Resume sends it." };
    case "resend":
      return {
        step: "resend",
        detail: `Sent ${ago(facts.sentAgoMs)} ago: Resume sends it again with the same idempotency key (the service acts once).`,
      };
    case "wait":
      return { step: "ask", detail: "Resume asks the service again first." };
    case "park":
      return { step: "decide", detail: parkedDetail(step.why, facts) };
    case "record": // a decision: the plan is told none, so never
      return { step: "decide", detail: "Your decision is recorded." };
  }
}

/** Why Resume would leave the row for the user's decision. */
function parkedDetail(why: ParkWhy, facts: Facts): string {
  switch (why) {
    case "awaiting":
      return "The service could not tell whether this row took effect: your decision.";
    case "other_key":
      return "Not on the service, and sent with another API key or from another computer: a re-send could act twice.";
    case "too_old":
      return `Not on the service, and sent ${ago(facts.sentAgoMs)} ago: the service may have forgotten its key, so a re-send could act twice.`;
    case "unreachable":
      return `The service could not be asked, and the row was sent ${ago(facts.sentAgoMs)} ago: your decision.`;
    case "log_only":
      return "Only the Hedge Log knows this row, and it looks done only against its Notional before, a cell anyone can type: your decision.";
    default: // unclear (the plan counts no doubts: never doubt_rounds or doubt_time; it is told nothing: never no_key)
      return "The service shows something this row does not match: your decision.";
  }
}
