// Bounded concurrency for the preview's quotes and the resume plan's questions: never more than the limit in flight, results in the input's order, nothing new started once cancelled.
import { mapLimited } from "../../src/trading/map-limited";

/** A call per item that the test finishes by hand, counting how many are out at once. */
function gate() {
  let inFlight = 0;
  let most = 0;
  const started: number[] = [];
  const finish = new Map<number, () => void>();
  const fn = (item: number, index: number) =>
    new Promise<string>((resolve) => {
      inFlight++;
      most = Math.max(most, inFlight);
      started.push(index);
      finish.set(index, () => {
        inFlight--;
        resolve(`r${item}`);
      });
    });
  const settle = () => new Promise((r) => setImmediate(r));
  return { fn, started, finish, settle, most: () => most };
}

describe("mapLimited", () => {
  it("keeps at most the limit in flight, starts the next as one finishes, and returns results in the input's order", async () => {
    const g = gate();
    const done = mapLimited([10, 11, 12, 13, 14], 2, g.fn);
    await g.settle();
    expect(g.started).toEqual([0, 1]);
    g.finish.get(1)!();
    await g.settle();
    expect(g.started).toEqual([0, 1, 2]);
    for (const i of [2, 0, 3, 4]) {
      await g.settle();
      g.finish.get(i)!();
    }
    expect(await done).toEqual(["r10", "r11", "r12", "r13", "r14"]);
    expect(g.most()).toBe(2);
  });

  it("runs every item once with a limit above the count, and still runs them with a limit of 0", async () => {
    const seen: number[] = [];
    expect(await mapLimited([1, 2, 3], 10, async (x, i) => (seen.push(i), x * 2))).toEqual([2, 4, 6]);
    expect(seen).toEqual([0, 1, 2]);
    expect(await mapLimited([1, 2], 0, async (x) => x + 1)).toEqual([2, 3]);
    expect(await mapLimited([], 4, async (x: number) => x)).toEqual([]);
  });

  it("starts nothing more once cancelled: calls out finish, the rest stay undefined", async () => {
    const g = gate();
    const abort = new AbortController();
    const done = mapLimited([1, 2, 3, 4], 2, g.fn, abort.signal);
    await g.settle();
    abort.abort();
    g.finish.get(0)!();
    g.finish.get(1)!();
    const results = await done;
    expect(results).toEqual(["r1", "r2", undefined, undefined]);
    // One slot per item (toEqual alone does not see a shorter array): result i still answers item i.
    expect(results).toHaveLength(4);
    expect(g.started).toEqual([0, 1]);
  });
});
