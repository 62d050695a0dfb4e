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
  let flushes = 0;
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
    flush: async () => void flushes++,
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
  return { state, moved, told, follower, chainBuilds: () => alls, flushes: () => flushes };
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

  /** "now" when `p` settles within a few event-loop turns, else "waiting". */
  const soon = (p: Promise<unknown>) => Promise.race([p.then(() => "now"), new Promise((r) => setTimeout(() => r("waiting"), 20))]);

  it("until and settled resolve at once when their condition already holds, with no change to wait for", async () => {
    const { state, flushes } = world([]);
    expect(await soon(state.until(() => true))).toBe("now");
    expect(await soon(state.settled(60_000))).toBe("now");
    expect(flushes()).toBe(1);
  });

  it("settled waits for every row worked on, not the first to end; its wait ends with it (no timer left, asked once)", async () => {
    jest.useFakeTimers();
    try {
      const [a, b] = [row("k-1"), row("k-2", "USDTKES")];
      const { state, flushes } = world([a, b]);
      let idle = false;
      const settled = state.settled(60_000).then(() => (idle = true));
      state.changeStatus(a, { status: "filled" });
      await Promise.resolve();
      expect(idle).toBe(false);
      expect(flushes()).toBe(0); // not asked to write the journal yet: a row is still pending
      state.changeStatus(b, { status: "filled" });
      await settled;
      expect(jest.getTimerCount()).toBe(0);
      state.changed(); // nothing pending still: the settled wait is over and asks nothing more
      expect(flushes()).toBe(1);
    } finally {
      jest.useRealTimers();
    }
  });

  it("a settled wait that gave up is over: the rows ending later ask nothing of it", async () => {
    jest.useFakeTimers();
    try {
      const intent = row("k-1");
      const { state, flushes } = world([intent]);
      const settled = state.settled(1_000);
      jest.advanceTimersByTime(1_000);
      await expect(settled).rejects.toThrow("still not final");
      state.changeStatus(intent, { status: "filled" });
      expect(flushes()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it("a wait that ended is not asked again on later changes", async () => {
    const intent = row("k-1");
    const { state } = world([intent]);
    let asked = 0;
    const waiting = state.until(() => (asked++, intent.status === "submitted"));
    state.changeStatus(intent, { status: "submitted" });
    await waiting;
    const before = asked;
    state.changeStatus(intent, { status: "filled" });
    expect(asked).toBe(before);
  });

  it("a desk that runs keeps its life when started again; stop ends that life, saying why", () => {
    const { state } = world([row("k-1")]);
    const life = state.life();
    state.restart();
    expect(state.life()).toBe(life);
    state.stop();
    expect(life.aborted).toBe(true);
    expect((life.reason as Error).message).toBe("The desk was stopped: nothing more is sent.");
    state.restart();
    expect(state.life()).not.toBe(life);
    expect(state.life().aborted).toBe(false);
  });

  it("stop wakes whoever waits on a change", async () => {
    const { state } = world([row("k-1")]);
    const waiting = state.until(() => state.stopped);
    state.stop();
    await expect(waiting).resolves.toBeUndefined();
  });
});
