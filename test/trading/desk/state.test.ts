// The desk state (desk/state.ts): a row changed only through it — a note never carries a status, a status change reaches the journal and the listeners, an accepted row is handed to the fill follower (a stopped desk started again) — the chain's index kept until a row changes, progress told with the counts, and the waits on its changes.
import { DeskState, type RowNote } from "../../../src/trading/desk/state";
import { intentFromRow, type Intent, type IntentPatch } from "../../../src/trading/intent";
import type { Journal } from "../../../src/trading/journal";
import type { Progress } from "../../../src/trading/types";

function row(key: string, market = "USDTNGN"): Intent {
  return intentFromRow(
    { rowNumber: 2, action: "open", market, side: "buy", notional: 1_000, tenor: 7, clientReference: `R-${key}` },
    key,
    "sandbox",
    "2026-11-27T10:00:00.000Z",
  );
}

/** A desk state over a journal that applies patches (as the real one does, without its writes) and rows being worked on. */
function world(rows: Intent[] = []) {
  const moved: Array<[string, IntentPatch]> = [];
  let alls = 0;
  const journal = {
    update: (intent: Intent, patch: IntentPatch) => {
      const changed: IntentPatch = {};
      for (const [k, v] of Object.entries(patch))
        if ((intent as unknown as Record<string, unknown>)[k] !== v) {
          (intent as unknown as Record<string, unknown>)[k] = v;
          (changed as Record<string, unknown>)[k] = v;
        }
      if (Object.keys(changed).length > 0) moved.push([intent.idempotencyKey, changed]);
      return changed;
    },
    all: () => (alls++, rows),
    flush: async () => undefined,
  } as unknown as Journal;
  const worked = rows.map((intent) => ({ intent }));
  const pending = () => worked.filter((t) => t.intent.status === "submitting" || t.intent.status === "submitted");
  const told: Progress[] = [];
  const state = new DeskState(journal, { all: () => worked, size: worked.length, pending }, (p) => told.push(p));
  const follower = {
    starts: 0,
    start() {
      this.starts++;
    },
  };
  state.followWith(follower);
  return { state, moved, told, follower, chainBuilds: () => alls };
}

describe("the desk state", () => {
  it("a note changes any field but the status; one with a status is refused, changing nothing", () => {
    const intent = row("k-1");
    const { state, moved } = world([intent]);
    expect(() => state.note(intent, { status: "filled" } as RowNote)).toThrow(/status is changed by the row runner's judge alone/);
    state.note(intent, { sentAt: "2026-11-27T10:00:01.000Z" });
    expect(moved).toEqual([["k-1", { sentAt: "2026-11-27T10:00:01.000Z" }]]);
    expect(intent.status).toBe("submitting");
  });

  it("a row accepted is handed to the fill follower, and a stopped desk starts again; other states are not followed", () => {
    const intent = row("k-1");
    const { state, follower } = world([intent]);
    state.stop();
    expect(state.stopped).toBe(true);
    state.changeStatus(intent, { status: "submitted" });
    expect(follower.starts).toBe(1);
    expect(state.stopped).toBe(false);
    state.changeStatus(intent, { status: "filled" });
    expect(follower.starts).toBe(1);
  });

  it("a change tells the pane the row with the counts of the rows worked on; a patch that changes nothing tells nothing", () => {
    const [a, b] = [row("k-1"), row("k-2", "USDTKES")];
    const { state, told } = world([a, b]);
    state.changeStatus(a, { status: "submitted" });
    state.changeStatus(a, { status: "submitted" });
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ row: { idempotencyKey: "k-1", status: "submitted" }, total: 2, done: 0 });
    expect(told[0].counts).toMatchObject({ submitting: 1, submitted: 1, filled: 0 });
    state.changeStatus(a, { status: "filled" });
    expect(told[1]).toMatchObject({ total: 2, done: 1 });
  });

  it("the chain's index is built once until a row changes or rows are added", () => {
    const intent = row("k-1");
    const { state, chainBuilds } = world([intent]);
    const first = state.chain();
    expect(state.chain()).toBe(first);
    expect(chainBuilds()).toBe(1);
    state.note(intent, { message: "Asking again." });
    expect(state.chain()).not.toBe(first);
    const second = state.chain();
    state.note(intent, { message: "Asking again." }); // nothing changed: the index stays
    expect(state.chain()).toBe(second);
    state.rowsChanged();
    expect(state.chain()).not.toBe(second);
  });

  it("until resolves on the change that makes its condition hold, and settled once no row is pending", async () => {
    const intent = row("k-1");
    const { state } = world([intent]);
    let filled = false;
    const waiting = state.until(() => intent.status === "filled").then(() => (filled = true));
    let idle = false;
    const settled = state.settled(60_000).then(() => (idle = true));
    state.changeStatus(intent, { status: "submitted" });
    await Promise.resolve();
    expect([filled, idle]).toEqual([false, false]);
    state.changeStatus(intent, { status: "filled" });
    await Promise.all([waiting, settled]);
    expect([filled, idle]).toEqual([true, true]);
  });

  it("settled gives up after its time, saying how many rows are not final", async () => {
    jest.useFakeTimers();
    try {
      const { state } = world([row("k-1")]);
      const settled = state.settled(1_000);
      jest.advanceTimersByTime(1_000);
      await expect(settled).rejects.toThrow("1 row(s) still not final after 1000 ms; they stay in the log and are listed next time.");
    } finally {
      jest.useRealTimers();
    }
  });

  it("stop wakes whoever waits on a change", async () => {
    const { state } = world([row("k-1")]);
    const waiting = state.until(() => state.stopped);
    state.stop();
    await expect(waiting).resolves.toBeUndefined();
  });
});
