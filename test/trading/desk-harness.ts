// The trading tests' own harness over a workbook: a runtime that can be "killed", and a pane reloaded to resume (the sandbox helpers are in test/sandbox/helpers.ts).
import type { HedgingClient } from "../../src/api/client";
import type { Workbook } from "../../src/trading/workbook";
import type { IntentStore } from "../../src/trading/intent-store";
import { createDesk } from "../../src/trading/desk";

/**
 * A workbook as seen from one runtime: after kill() every call from that runtime fails (Excel stopped it), while the
 * workbook itself (the .xlsx) keeps what was written. A new desk gets the underlying workbook again.
 */
export function killable(inner: Workbook): Workbook & { kill(): void } {
  let dead = false;
  const guard =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      if (dead) throw new Error("runtime stopped");
      return fn(...a);
    };
  return {
    readSelection: guard(() => inner.readSelection()),
    ensureLog: guard(() => inner.ensureLog()),
    readLog: guard((query) => inner.readLog(query)),
    readLastLogRecord: guard(() => inner.readLastLogRecord()),
    appendLog: guard((r) => inner.appendLog(r)),
    updateLog: guard((u) => inner.updateLog(u)),
    showLog: guard(() => inner.showLog()),
    identity: guard(() => inner.identity()),
    kill: () => {
      dead = true;
    },
  };
}

/**
 * A "reloaded pane": a fresh desk over the same workbook and this computer's journal lists the unfinished rows, the user
 * presses Resume (claiming rows without an account), and it runs until every row is final. Returns the rows it took up.
 * `account` is the key's account as the pane's connection proved it (GET /account), as the pane passes it to createDesk.
 */
export async function resumeInNewPane(
  client: HedgingClient,
  workbook: Workbook,
  settleMs: number,
  intentStore: IntentStore | undefined,
  account: string | null,
): Promise<number> {
  const desk = await createDesk({ client, workbook, intentStore, account, pollIntervalMs: 1_000, concurrency: 4 });
  try {
    const plan = await desk.inspect();
    const { resumed } = await desk.resume({ claim: plan.items.filter((i) => i.owner === "unclaimed").map((i) => i.row.idempotencyKey) });
    await desk.settled(settleMs);
    return resumed.length;
  } finally {
    desk.stop();
  }
}
