// The workload: what the user does in one world (sessions of a pane, batches of all four actions, decisions, edits, Save or Don't Save, days away), kept apart from the faults and the invariants.
import type { Action, ResumePlan } from "../../../src/trading/types";
import type { TradingDesk } from "../../../src/trading/desk/contract";
import type { CellValue } from "../../../src/trading/cells";
import { LOG_SHEET_NAME } from "../../../src/trading/log/hedge-log";
import { leaveCrashWindow } from "./chain";
import { newLife, type Life } from "./faults";
import { KEY_COLUMN, NOTIONAL_COLUMN } from "./files";
import { openDesk } from "./pane";
import { MARKETS, SIDES } from "./service";
import type { World } from "./world";

/** The calm last session must finish every row within this much simulated time. */
const BOUND_MS = 2 * 3_600_000;
/** Worlds that start from a crash window on one market side (the chain states). */
const CHAIN_WORLDS = 0.3;

/** One world from start to end: maybe a crash window and a calm pane on it first, then sessions with faults, then a calm one that must finish every row. */
export async function play(world: World): Promise<void> {
  let id = 0;
  const chain = world.rng.chance(CHAIN_WORLDS);
  if (chain) {
    await leaveCrashWindow(world);
    // The first pane after the crash: no faults; the user resumes, and what the desk could not resolve alone is counted.
    const life = newLife(++id);
    await calmPane(world, life, (desk) =>
      world.log(`crash window resolved: ${world.checker.chainRecovered(desk.needsDecision().map((r) => r.idempotencyKey))}`),
    );
    await closeExcel(world, life);
  }
  // 2–5 sessions; a chain world's first pane is one of them (the run time stays where it was).
  const sessions = world.rng.int(chain ? 1 : 2, chain ? 4 : 5);
  // Some worlds stall fills for hours from one session on (orders accepted, not filled): an accepted Add is then invisible.
  const longStallFrom = world.rng.chance(0.2) ? world.rng.int(0, sessions - 1) : -1;
  const killy = world.rng.chance(0.8);
  for (let s = 0; s < sessions; s++) {
    const life = newLife(++id);
    world.faults.killRate = killy ? world.rng.pick([0.002, 0.01, 0.03]) : 0;
    if (s === longStallFrom) world.faults.stallForHours();
    if (world.rng.chance(0.6)) world.faults.toggle();
    await faultySession(world, life);
    await closeExcel(world, life);
  }
  // The calm last session: no faults, no kills; the user resumes and decides; every row must end.
  world.faults.calm();
  await calmPane(world, newLife(id + 1));
}

/** A session with faults: the pane opens, the user does a few batches, the pane stays a while, then Excel closes (or the pane dies first). */
async function faultySession(world: World, life: Life): Promise<void> {
  world.stats.sessions++;
  let finished = false;
  let desk: TradingDesk | null = null;
  void session(world, life)
    .then((d) => (desk = d))
    .catch((e: unknown) => world.log(`session ${life.id} error: ${(e as Error).message}`))
    .finally(() => (finished = true));
  await world.time.run(() => life.dead || finished, 15 * 60_000);
  if (life.dead) return;
  await world.time.run(() => life.dead, world.rng.int(1_000, 120_000));
  if (!life.dead) {
    (desk as TradingDesk | null)?.stop();
    life.dead = true;
  }
}

/** What the user does with one pane: restore, resume (mostly), then batches with decisions, edits, saves and fault changes between. */
async function session(world: World, life: Life): Promise<TradingDesk> {
  const { rng, time } = world;
  const desk = await opened(world, life, false);
  const batches = rng.int(0, 3);
  for (let b = 0; b < batches; b++) {
    await time.think(life, 500, 40_000);
    if (rng.chance(0.5)) await userDecides(world, desk, life);
    if (rng.chance(0.04)) userEdits(world);
    if (rng.chance(0.3)) world.files.save();
    if (rng.chance(0.3)) world.faults.toggle();
    await batch(world, desk, life);
  }
  await time.think(life, 1_000, 120_000);
  if (rng.chance(0.5)) await userDecides(world, desk, life);
  return desk;
}

/** The pane opens on the workbook: the plan is shown, missing rows restored (mostly), Resume pressed (mostly; always when calm). */
async function opened(world: World, life: Life, calm: boolean): Promise<TradingDesk> {
  const desk = await openDesk(world, life);
  const plan: ResumePlan = await desk.inspect();
  world.log(
    `pane ${life.id} opened: ${plan.items.length} unfinished (${plan.items.map((i) => `${i.row.idempotencyKey}:${i.step}`).join(" ")}), ${plan.missing.length} missing`,
  );
  // A log holding none of this computer's rows of the workbook (saved before its first row, then Don't Save) cannot be
  // told from a copy (issue 40): its rows are asked about, and the user says, truthfully, that they belong here.
  if (plan.copied) await desk.restore(plan.copied.rows.map((c) => c.row.idempotencyKey));
  // The journal's rows this log lacks are this workbook's (the simulation has one): the user adds them back, mostly.
  if (plan.missing.length > 0 && (calm || world.rng.chance(0.8))) await desk.restore(plan.missing.map((r) => r.idempotencyKey));
  if (calm || world.rng.chance(0.85)) {
    await world.time.think(life, 0, 20_000);
    life.resumedAt = Date.now();
    world.stats.resumes++;
    await desk.resume();
  }
  return desk;
}

/**
 * A calm pane: opened and resumed with no faults; once its rows settle (`settled` sees the desk then, before any
 * decision), the user decides, up to three rounds; every row must be final within BOUND_MS.
 */
async function calmPane(world: World, life: Life, settled?: (desk: TradingDesk) => void): Promise<void> {
  const { time, checker } = world;
  world.stats.sessions++;
  const started = Date.now();
  const desk = await time.runUntilDone(opened(world, life, true), BOUND_MS);
  if (!desk) return void checker.fail("a calm pane did not open within the time bound");
  // Settled: nothing pending but rows behind a decision on their side.
  const still = () => {
    const waiting = new Set(
      desk
        .waits()
        .filter((w) => w.reason === "needs_decision")
        .map((w) => `${w.market} ${w.side}`),
    );
    return desk.pending().filter((r) => !waiting.has(`${r.market} ${r.side}`));
  };
  await time.run(() => still().length === 0, BOUND_MS);
  settled?.(desk);
  for (let round = 0; round < 3 && desk.needsDecision().length > 0; round++) {
    await time.runUntilDone(userDecides(world, desk, life), BOUND_MS);
    await time.run(() => desk.pending().length === 0, BOUND_MS);
  }
  if (Date.now() - started > BOUND_MS)
    checker.fail(
      `rows not final within ${BOUND_MS / 60_000} simulated minutes: ${desk
        .pending()
        .map((r) => r.idempotencyKey)
        .join(", ")}`,
    );
  await time.run(() => false, 5_000);
  desk.stop();
  life.dead = true;
  await time.run(() => false, 1_000);
}

/** Excel closes: Save or Don't Save, sometimes a row deleted from the file; it opens again after a while (sometimes a day). */
async function closeExcel(world: World, life: Life): Promise<void> {
  const { rng, files } = world;
  life.dead = true;
  if (rng.chance(0.25)) {
    world.stats.dontSave++;
    world.log("user closes WITHOUT saving");
    // Rows appended since the last save are lost with it: the chain shows where (the journal writes them back after the head).
    const rows = (grid: CellValue[][] | null) => (grid ?? []).filter((r) => r[KEY_COLUMN]).length;
    if (rows(files.open.sheetNames().includes(LOG_SHEET_NAME) ? files.open.cells(LOG_SHEET_NAME) : null) > rows(files.saved))
      files.logTampered ??= "Don't Save lost rows appended since the last save";
  } else files.save();
  if (rng.chance(0.05) && files.saved && files.saved.length > 2) {
    const r = rng.int(1, files.saved.length - 1);
    // Only a row this computer's journal knows: a row only the log knows, deleted, is gone for good (the user's doing).
    if (files.journalled.has(String(files.saved[r][KEY_COLUMN]))) {
      world.log(`user deletes log row ${r + 1} (${files.deleteSavedRow(r)})`);
      files.logTampered ??= "a log row deleted";
      world.stats.edits++;
    }
  }
  files.reopen();
  const gap = rng.chance(world.faults.longStall ? 0.6 : 0.3)
    ? rng.pick([25 * 3_600_000, 2 * 3_600_000, 50 * 60_000, 20 * 60_000])
    : rng.int(1_000, 120_000);
  await world.time.run(() => false, gap);
}

/** The user decides each row that needs it, truthfully: "done" when its order took effect (or, for an Open, went through to its end). */
async function userDecides(world: World, desk: TradingDesk, life: Life): Promise<void> {
  for (const row of desk.needsDecision()) {
    if (life.dead) return;
    // An order accepted but not filled yet is waited for (nobody can tell yet).
    const outcome = world.service.outcomeOf(row.idempotencyKey);
    if (world.service.truth.has(row.idempotencyKey) && outcome === undefined) continue;
    const decision = outcome === "filled" || (row.action === "open" && outcome === "failed") ? "done" : "not_done";
    world.log(`user decides ${row.idempotencyKey} ${row.action} ${row.market} ${row.side}: ${decision}`);
    world.stats.decisions++;
    await desk.decide(row.idempotencyKey, decision).catch((e: unknown) => world.log(`decide refused: ${(e as Error).message}`));
  }
}

/** One batch: rows typed on the Exposures sheet (mostly sensible, sometimes not: the preview stops those), previewed, sent. */
async function batch(world: World, desk: TradingDesk, life: Life): Promise<void> {
  const { rng, time, files } = world;
  const grid = batchRows(world);
  files.open.setSheet("Exposures", grid.rows).select("Exposures", `A2:E${grid.rows.length}`);
  const read = await desk.readRows(grid.action);
  const preview = await desk.preview(grid.action, read.rows);
  if (preview.blockers.length > 0) return;
  const sendAgain = rng.chance(0.3);
  world.log(`user sends ${grid.action} × ${read.rows.length}${sendAgain ? " (send again)" : ""}`);
  // The user watches the rows go for a while; the pane stays usable meanwhile (a side may wait on a fill).
  const sending = desk.send(preview, { sendAgain }).then(
    (sent) => (world.stats.rows += sent.rows.length),
    (e: unknown) => world.log(`send refused: ${(e as Error).message}`),
  );
  // Sometimes the user presses "Check again" while the rows go: the log and the journal are read again meanwhile.
  if (rng.chance(0.3))
    void time
      .think(life, 0, 3_000)
      .then(() => desk.inspect())
      .then(
        (plan) => world.log(`user checks again: ${plan.items.length} unfinished`),
        (e: unknown) => world.log(`check again failed: ${(e as Error).message}`),
      );
  await Promise.race([sending, time.think(life, 5_000, 60_000)]);
}

/** The rows of a batch: one action, 1–4 rows, on the sides the user's positions suggest (90 %) or any side. */
function batchRows(world: World): { action: Action; rows: CellValue[][] } {
  const { rng } = world;
  const sides = MARKETS.flatMap((m) =>
    SIDES.map((side) => {
      const h = world.service.sideHedge(m.symbol, side);
      return { market: m.symbol, side, held: h ? h.notional / 1_000_000 : null };
    }),
  );
  const free = sides.filter((x) => x.held === null);
  const held = sides.filter((x) => x.held !== null);
  const action: Action =
    free.length > 0 && (held.length === 0 || rng.chance(world.faults.longStall ? 0.15 : 0.35))
      ? "open"
      : rng.pick<Action>(["add", "add", "reduce", "reduce", "close"]);
  const pool = action === "open" ? free : held;
  const rows: CellValue[][] = [["Market", "Side", "Notional", "Tenor", "Client reference"]];
  for (let i = rng.int(1, 4); i > 0; i--) {
    const target = pool.length > 0 && rng.chance(0.9) ? rng.pick(pool) : rng.pick(sides);
    const base = target.held ?? 50_000;
    const amount =
      action === "reduce"
        ? Math.max(1_000, Math.round(base * rng.pick([0.1, 0.25, 0.3, 1]) * 100) / 100)
        : rng.int(5, 200) * 1_000 + rng.pick([0, 0.5, 0.25, 33.33]);
    rows.push([
      target.market,
      target.side,
      action === "close" ? "" : amount,
      rng.pick([1, 3, 7]),
      action === "open" ? `S${world.seed}-${++world.refs.n}` : "",
    ]);
  }
  return { action, rows };
}

/** The user changes the notional of one log row by hand (the journal keeps what was sent; the row is noted edited). */
function userEdits(world: World): void {
  const cells = world.files.open.cells(LOG_SHEET_NAME);
  if (cells.length < 2) return;
  const r = world.rng.int(1, cells.length - 1);
  if (typeof cells[r][NOTIONAL_COLUMN] !== "number") return;
  cells[r][NOTIONAL_COLUMN] = (cells[r][NOTIONAL_COLUMN] as number) + 1_000;
  world.editedKeys.add(String(cells[r][KEY_COLUMN]));
  world.files.open.setSheet(LOG_SHEET_NAME, cells);
  world.files.logVersion++;
  world.files.logTampered ??= "a notional edited by hand";
  world.stats.edits++;
  world.log(`user edits the notional of log row ${r + 1}`);
}
