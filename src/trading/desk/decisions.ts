// Decisions: the user's word on an unfinished row — which rows may be decided, what the service shows first for "It was done" (and the confirmation when nothing shows) — handed to the row runner's judge, which records it as the recovery rule says.
import type { Decision, DecideOptions, RowStatus } from "../types";
import { isFinal, rowStatusOf } from "../intent";
import { check } from "../fills";
import { sameAccount } from "../duplicates";
import { LOG_SHEET_NAME } from "../log/hedge-log";
import type { Judged } from "../verdict";
import type { DeskContext } from "./context";
import type { Lanes } from "./lanes";
import type { RowRunner } from "./runner";

/** What a decision needs of the desk beyond its context: the rows it tracks, the executor, and its scheduler run. */
export interface DecisionParts {
  lanes: Lanes;
  runner: RowRunner;
  kick(): void;
}

/** The user's decision on a row that needs one ("done" adopts what the service shows, "not_done" marks it not sent), logged with the time. */
export async function decide(
  ctx: DeskContext,
  { lanes, runner, kick }: DecisionParts,
  idempotencyKey: string,
  decision: Decision,
  options: DecideOptions = {},
): Promise<RowStatus> {
  const intent = lanes.get(idempotencyKey)?.intent ?? ctx.journal.get(idempotencyKey);
  if (!intent) throw new Error(`No unfinished row with idempotency key ${idempotencyKey} in the ${LOG_SHEET_NAME}.`);
  if (isFinal(intent.status)) throw new Error(`That row is already final (${intent.status}): nothing to decide.`);
  if (intent.environment !== ctx.environment || (intent.account && !sameAccount(intent.account, ctx.account)))
    throw new Error("That row belongs to another account or environment: decide it with that account's key.");
  if (lanes.has(idempotencyKey) && intent.status !== "needs_decision")
    throw new Error("The add-in is still working on that row (it needs no decision): wait for its outcome.");
  // "It was done" reads what the service shows first: with no trace there and none in this computer's journal, the
  // user confirms it (options.nothingShown) before anything changes, and the log says so.
  const v: Judged | null =
    decision === "done"
      ? await check(ctx.client, intent, ctx.state.life(), () => ctx.openedHedges(), ctx.state.chain()(intent)).then(
          (c) => c.verdict,
          () => null,
        )
      : null;
  // Evidence: the service shows the row's effect, or something of its hedge it cannot match; or this computer journalled it.
  const evidence = (v !== null && v.kind !== "absent") || ctx.journal.journalledHere(idempotencyKey);
  if (decision === "done" && !evidence && !options.nothingShown) throw new NothingShownError(v === null);
  const at = ctx.now().toISOString();
  ctx.state.restart();
  const t = lanes.track(intent, false);
  if (!intent.account) ctx.state.note(intent, { account: ctx.account });
  void runner.judge(t, { kind: "decided", decision, verdict: v, evidence, at });
  await ctx.journal.flush();
  kick();
  return rowStatusOf(intent);
}

/**
 * "It was done" on a row that neither the service nor this computer's journal shows: nothing was changed; the pane asks
 * the user to confirm (decide again with `nothingShown`), and the log then records "done (nothing on the service)".
 */
export class NothingShownError extends Error {
  readonly code = "confirm_nothing_shown";
  constructor(couldNotAsk: boolean) {
    super(
      couldNotAsk
        ? "The service could not be asked, and this computer's journal has nothing of this row. Record it as done anyway?"
        : "The service shows nothing of this row. Record it as done anyway?",
    );
    this.name = "NothingShownError";
  }
}
