// The chain states of the workload: one market side's rows (Open, Adds and Reduces, maybe a Close, one at a time) left in the Hedge Log as a crash after any prefix leaves them, the later rows executed on the service or not, this computer's journal kept (it never lags the log) or gone (the log is all the next pane has).
import { SIM_WORKBOOK_ID } from "./files";
import { intentFromRow, intentToLogRecord, submit, type Intent } from "../../../src/trading/intent";
import { intentScope, type StoredIntent } from "../../../src/trading/intent-store";
import type { Action, TradeRow } from "../../../src/trading/types";
import type { HedgingClient } from "../../../src/api/client";
import { newLife, type Life } from "./faults";
import { paneClient } from "./pane";
import { ADDRESS, MARKETS, SIDES } from "./service";
import type { Rng } from "./rng";
import type { World } from "./world";
import { FINAL } from "./explained";

/** What the crash leaves: rows [0, final) final in the log; rows [0, effect) executed on the service; row `effect` sent and lost when `lost`. */
interface ChainPlan {
  market: string;
  side: (typeof SIDES)[number];
  rows: TradeRow[];
  effect: number;
  final: number;
  lost: boolean;
  /** This computer's journal survived the crash (else the log is all the next pane has). */
  journal: boolean;
}

const iso = () => new Date(Date.now()).toISOString();

/** Plays one side's chain up to the crash, writes the log (and maybe the journal) as it stands, and tells the checker the window it left. */
export async function leaveCrashWindow(world: World): Promise<void> {
  const plan = planChain(world.rng, world.seed);
  const ghost = newLife(0);
  const client = paneClient(world, ghost);
  const engine = world.service.engine;
  const failRate = engine.failRate;
  engine.failRate = 0; // the chain's orders fill: a failed Open would end the chain before it starts
  const logged: Intent[] = [];
  const known: Intent[] = [];
  const lastSent = plan.lost ? plan.effect : plan.effect - 1;
  for (const [i, row] of plan.rows.entries()) {
    await world.time.run(() => false, world.rng.int(1_000, 20_000));
    const intent = intentFromRow(row, world.keys.next(ghost), "sandbox", iso(), ADDRESS);
    if (i <= lastSent) markSent(world, intent);
    const states = i < plan.effect ? await execute(world, client, intent) : { final: {}, answered: {} };
    // The log lags: final before `final`, then as the crash caught each row. The journal knew every row before the last sent one final.
    logged.push({ ...intent, ...(i < plan.final ? states.final : world.rng.chance(0.5) ? states.answered : {}) });
    known.push(i < lastSent ? { ...intent, ...states.final } : logged[i]);
  }
  engine.failRate = failRate;
  if (world.rng.chance(0.2)) await outsideChange(world, ghost, client, plan);
  const records = logged.map(intentToLogRecord);
  await world.files.open.ensureLog();
  await world.files.open.appendLog(records);
  world.files.save();
  world.files.reopen();
  if (plan.journal) await journal(world, known, client.keyId);
  world.log(
    `crash window on ${plan.market} ${plan.side}: ${records.map((r) => `${r.idempotencyKey}:${r.action}:${r.status}${r.sentAt ? "+sent" : ""}`).join(" ")} (${plan.effect} executed${plan.lost ? ", the next lost" : ""}; ${plan.journal ? "this computer's journal" : "no journal"})`,
  );
  world.checker.crashWindow({ market: plan.market, side: plan.side, rows: records, journal: plan.journal });
}

/** This computer's journal as the crashed pane left it (it writes there before the log, so it never lags the log). */
async function journal(world: World, known: Intent[], keyId: string): Promise<void> {
  const entries: StoredIntent[] = known.map((intent, i) => ({
    record: intentToLogRecord(intent),
    keyId: intent.sentAt ? keyId : null,
    anchor: i > 0 ? known[i - 1].idempotencyKey : null,
    finalAt: FINAL.has(intent.status) ? iso() : null,
    workbookId: SIM_WORKBOOK_ID,
  }));
  await world.files.store.put(intentScope("sandbox", ADDRESS), entries);
  for (const e of entries) world.files.journalled.add(e.record.idempotencyKey);
  world.stats["chain:journal"] = (world.stats["chain:journal"] ?? 0) + 1;
}

/** A side's chain (Open, one to three Adds or Reduces, sometimes a Close) and where the crash falls in it. */
function planChain(rng: Rng, seed: number): ChainPlan {
  const market = rng.pick(MARKETS).symbol;
  const side = rng.pick(SIDES);
  let held = rng.int(50, 200) * 1_000;
  const row = (action: Action, notional: number | null, i: number): TradeRow => ({
    action,
    market,
    side,
    notional,
    tenor: action === "open" ? 7 : null,
    clientReference: action === "open" ? `C${seed}` : null,
    rowNumber: i + 2,
  });
  const rows = [row("open", held, 0)];
  for (let i = rng.int(1, 3); i > 0; i--) {
    const action = rng.chance(0.5) ? "add" : "reduce";
    const amount = action === "add" ? rng.int(5, 100) * 1_000 : Math.round(held * rng.pick([0.1, 0.25, 0.3, 0.5]) * 100) / 100;
    held += action === "add" ? amount : -amount;
    rows.push(row(action, amount, rows.length));
  }
  if (rng.chance(0.5)) rows.push(row("close", null, rows.length));
  const effect = rng.int(0, rows.length);
  const lost = effect < rows.length && rng.chance(0.5);
  // Half the time the log lags by two rows or more (issue 22's window: a row that took effect, then another that left after it).
  const final = rng.chance(0.5) ? rng.int(0, effect) : Math.max(0, effect - rng.int(2, 3));
  return { market, side, rows, effect, lost, final, journal: rng.chance(0.5) };
}

/** Written before a request leaves: Sent at, and for Add / Reduce / Close the side's hedge and its notional then. */
function markSent(world: World, intent: Intent): void {
  intent.sentAt = iso();
  if (intent.action === "open") return;
  const h = world.service.sideHedge(intent.market, intent.side)!;
  intent.hedgeId = h.id;
  intent.notionalBefore = h.notional / 1_000_000;
}

/** The row's request executes and its order fills: the row as the desk records it once final, and as its answer left it. */
async function execute(
  world: World,
  client: HedgingClient,
  intent: Intent,
): Promise<{ final: Partial<Intent>; answered: Partial<Intent> }> {
  const submission = await world.time.runUntilDone(submit(client, intent), 60_000);
  if (!submission) throw new Error(`the chain's ${intent.action} ${intent.idempotencyKey} was not answered`);
  await world.time.run(() => world.service.outcomeOf(intent.idempotencyKey) !== undefined, 10 * 60_000);
  const answered = { status: "submitted" as const, hedgeId: submission.hedgeId ?? intent.hedgeId, orderTxHash: submission.orderTxHash };
  const h = world.service.hedges().find((x) => x.id === answered.hedgeId);
  const closed = intent.action === "close" || h?.status === "closed";
  const final: Partial<Intent> = { ...answered, status: closed ? "closed" : "filled", message: closed ? "Closed." : "Filled." };
  if (intent.action === "open" && h)
    Object.assign(final, { fillTxHash: h.fillTx, filledAt: h.filledAt ? new Date(h.filledAt).toISOString() : null });
  return { final, answered };
}

/** Another workbook (or a person) adds to the side after the crash: no row of this log explains it. */
async function outsideChange(world: World, ghost: Life, client: HedgingClient, plan: ChainPlan): Promise<void> {
  const h = world.service.sideHedge(plan.market, plan.side);
  if (!h || h.status !== "filled") return;
  const key = `x${world.seed}-1`;
  ghost.createdKeys.add(key);
  world.checker.outside.add(key);
  const body = { market: plan.market, side: plan.side, additional_notional_usd: 7_777 + world.rng.int(1, 99) / 100 };
  await world.time.runUntilDone(client.add(body, { idempotencyKey: key }), 60_000);
  await world.time.run(() => world.service.outcomeOf(key) !== undefined, 10 * 60_000);
  world.stats["chain:outside"] = (world.stats["chain:outside"] ?? 0) + 1;
  world.log(`another workbook adds ${body.additional_notional_usd} to ${plan.market} ${plan.side}`);
}
