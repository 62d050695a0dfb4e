// The trading simulation (FoundationDB / TigerBeetle VOPR style): one seeded world of desk + sandbox engine (through the real client and router, in process) + memory workbook + per-user journal + virtual clock, built here from its parts: workload (workload.ts, chain.ts), faults (faults.ts) and checker (checker.ts).
import type { Clock } from "@sinonjs/fake-timers";
import { Checker } from "./checker";
import { installClock, Scheduler } from "./clock";
import { FaultPlan } from "./faults";
import { Files, SIM_WORKBOOK_ID } from "./files";
import { chainHeadOf } from "../../../src/trading/chain-head";
import { KeyMaker, type PaneWorld } from "./pane";
import { Rng } from "./rng";
import { Service } from "./service";
import { play } from "./workload";

export interface SimResult {
  seed: number;
  violations: string[];
  stats: Record<string, number>;
  trace: string[];
}

/** Everything of one world the workload reaches (the checker sees it all; the faults only what they break). */
export interface World extends PaneWorld {
  service: Service;
  time: Scheduler;
  stats: Record<string, number>;
  /** Log rows whose notional the user changed by hand. */
  editedKeys: Set<string>;
  /** Client references made so far. */
  refs: { n: number };
}

/** Runs one seeded world; the same seed replays every draw, timer and request exactly. */
export async function runSeed(seed: number, options: { trace?: boolean } = {}): Promise<SimResult> {
  const trace: string[] = [];
  const stats: Record<string, number> = { sessions: 0, kills: 0, rows: 0, mutations: 0, resumes: 0, decisions: 0, edits: 0, dontSave: 0 };
  const clock: Clock = installClock();
  const log = (text: string) => {
    const line = `${new Date(Date.now()).toISOString().slice(5, 23)} ${text}`;
    if (options.trace) trace.push(line);
    if (process.env.SIM_LIVE) process.stderr.write(`${line}\n`);
  };
  let checker: Checker | null = null;
  let service: Service | null = null;
  const crashed: string[] = [];
  try {
    const world = buildWorld(seed, clock, log, stats);
    checker = world.checker;
    service = world.service;
    await play(world);
    await endOfWorld(world);
  } catch (e) {
    crashed.push(`crashed: ${(e as Error).stack ?? String(e)}`);
  } finally {
    service?.dispose();
    clock.uninstall();
  }
  return { seed, violations: [...(checker?.violations ?? []), ...crashed], stats, trace };
}

function buildWorld(seed: number, clock: Clock, log: (text: string) => void, stats: Record<string, number>): World {
  const rng = new Rng(seed * 2654435761 + 1);
  const files = new Files();
  let service: Service | null = null;
  const checker = new Checker(() => service!, files, stats);
  service = new Service(seed, rng, log, checker);
  const faults = new FaultPlan(rng, service, log, stats);
  const time = new Scheduler(clock, rng, stats, () => checker.afterStep());
  return { seed, rng, files, faults, checker, keys: new KeyMaker(seed), log, service, time, stats, editedKeys: new Set(), refs: { n: 0 } };
}

/** The world ends: the final log is read, counted, traced, and held to the end invariants. */
async function endOfWorld(world: World): Promise<void> {
  const finalLog = (await world.files.open.readLog()).filter((r) => r.idempotencyKey !== "");
  for (const r of finalLog) {
    world.stats[`${r.action}:${r.status}`] = (world.stats[`${r.action}:${r.status}`] ?? 0) + 1;
    if (r.decision) world.stats.decided = (world.stats.decided ?? 0) + 1;
    world.log(
      `final: ${r.idempotencyKey} ${r.action} ${r.market} ${r.side} ${r.notional ?? ""} ${r.status} ${r.hedgeId ?? ""} before=${r.notionalBefore ?? ""} ${r.message ?? ""}`,
    );
  }
  world.checker.afterStep();
  const head = await chainHeadOf(world.files.store, SIM_WORKBOOK_ID);
  world.checker.end({ finalLog, keysMade: world.keys.all(), editedKeys: world.editedKeys, head });
}
