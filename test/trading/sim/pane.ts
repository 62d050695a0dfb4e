// One pane as the world builds it: its ports to the open workbook and this computer's journal (each call a kill point), its client on the faulty network, and the ONE place the simulation builds a desk (openDesk).
import { HedgingClient } from "../../../src/api/client";
import { createDesk } from "../../../src/trading/desk";
import type { Workbook } from "../../../src/trading/workbook";
import type { IntentStore } from "../../../src/trading/intent-store";
import type { TradingDesk } from "../../../src/trading/desk/contract";
import type { Checker } from "./checker";
import type { FaultPlan, Life } from "./faults";
import type { Files } from "./files";
import type { Rng } from "./rng";
import { ADDRESS, API_KEY, BASE_URL } from "./service";

/** What a pane reaches: the files, the faults between it and them, the checker that watches what leaves, the key counter. */
export interface PaneWorld {
  seed: number;
  rng: Rng;
  files: Files;
  faults: FaultPlan;
  checker: Checker;
  keys: KeyMaker;
  log: (text: string) => void;
}

/** Idempotency keys `k<seed>-<n>`, n counting up across the whole world (so n is the order rows were made in). */
export class KeyMaker {
  made = 0;
  constructor(private readonly seed: number) {}
  next(life: Life): string {
    const key = `k${this.seed}-${++this.made}`;
    life.createdKeys.add(key);
    return key;
  }
  all(): string[] {
    return Array.from({ length: this.made }, (_, i) => `k${this.seed}-${i + 1}`);
  }
}

/** The pane's client: the real HedgingClient and request sender over this pane's network. */
export function paneClient(world: PaneWorld, life: Life): HedgingClient {
  const transport = world.faults.transport(life, (m) => world.checker.leaving(m));
  return new HedgingClient({ apiKey: API_KEY, baseUrl: BASE_URL, transport, random: () => world.rng.next() });
}

/** Builds the pane's desk for the account its connection proved (as the pane passes it): the only place the simulation calls createDesk. */
export async function openDesk(world: PaneWorld, life: Life): Promise<TradingDesk> {
  return await createDesk({
    client: paneClient(world, life),
    workbook: workbookPort(world, life),
    intentStore: journalPort(world, life),
    account: ADDRESS,
    pollIntervalMs: 5_000,
    concurrency: 3,
    newKey: () => world.keys.next(life),
    onError: (e) => world.log(`pane error: ${e.message.slice(0, 120)}`),
  });
}

function workbookPort(world: PaneWorld, life: Life): Workbook {
  const { faults, files } = world;
  return {
    readSelection: faults.living(life, "readSelection", () => files.open.readSelection()),
    ensureLog: faults.living(life, "ensureLog", () => files.open.ensureLog()),
    readLog: faults.living(life, "readLog", (q) => files.open.readLog(q)),
    readLastLogRecord: faults.living(life, "readLastLogRecord", () => files.open.readLastLogRecord()),
    appendLog: faults.living(life, "appendLog", (r) => files.open.appendLog(r).finally(() => files.logVersion++)),
    updateLog: faults.living(life, "updateLog", (u) => files.open.updateLog(u).finally(() => files.logVersion++)),
    showLog: faults.living(life, "showLog", () => files.open.showLog()),
    identity: faults.living(life, "identity", () => files.open.identity()),
  };
}

function journalPort(world: PaneWorld, life: Life): IntentStore {
  const { faults, files } = world;
  return {
    load: faults.living(life, "store.load", (s) => files.store.load(s), false),
    put: faults.living(
      life,
      "store.put",
      async (s, e) => {
        await files.store.put(s, e);
        for (const x of e) files.journalled.add(x.record.idempotencyKey);
      },
      false,
    ),
    remove: faults.living(life, "store.remove", (s, k) => files.store.remove(s, k), false),
    loadHead: faults.living(life, "store.loadHead", (w) => files.store.loadHead(w), false),
    putHead: faults.living(life, "store.putHead", (h) => files.store.putHead(h), false),
  };
}
