// The payload meter in npm test: Microsoft's own Excel request serializer (excel-web, in a Node vm) runs the real adapters over each scenario of issue 10 and issue 25's long text at a reduced scale; every context.sync must stay within 1 MiB each way.
import { EXCEL_WEB_LIMIT_BYTES, OfficeMeter } from "./wire/office-vm";
import { MiB, allScenarios, kib, TEST_SCALE, type StepResult } from "./wire/scenarios";

let results: StepResult[] = [];

beforeAll(async () => {
  results = await allScenarios(TEST_SCALE);
}, 120_000);

const find = (scenario: RegExp, step: RegExp) => {
  const r = results.find((x) => scenario.test(x.scenario) && step.test(x.step));
  if (!r) throw new Error(`no step ${String(scenario)} / ${String(step)}`);
  return { ...r, ...OfficeMeter.largest(r.syncs) };
};

describe("every context.sync stays within 1 MiB, measured with Microsoft's serializer", () => {
  it("for every step of every scenario", () => {
    const over = results
      .map((r) => ({ step: `${r.scenario} / ${r.step}`, ...OfficeMeter.largest(r.syncs) }))
      .filter((m) => m.request > MiB || m.response > MiB)
      .map((m) => `${m.step}: request ${kib(m.request)}, response ${kib(m.response)}`);
    expect(over).toEqual([]);
  });

  it.each([
    [/log of/, /read \(month end\)/],
    [/batch of/, /journal/],
    [/resume of/, /update every row/],
    [/selection of/, /read selection/],
    [/snapshot of/, /snapshot/],
    [/recon sheet/, /write sheet/],
    [/long text: selection of/, /read selection/],
    [/long text: log of/, /^read \(month end\)$/],
    [/long text: log of/, /archive/],
    [/long text: log of/, /archive and log/],
    [/long text: snapshot/, /snapshot/],
  ])("%s %s carries more than 1 MiB in all, so only chunking keeps each sync under it", (scenario, step) => {
    const m = find(scenario, step);
    expect(m.total).toBeGreaterThan(MiB);
    expect(m.syncs).toBeGreaterThan(2);
  });

  it("a row wider than 1 MiB (40 cells of Excel's longest text) is read in column ranges, each within 1 MiB", () => {
    const m = find(/long text: .* rows × 40/, /read selection/);
    const rows = TEST_SCALE.wideRows;
    expect(m.total).toBeGreaterThan(rows * MiB);
    const heavy = results.find((r) => /rows × 40/.test(r.scenario))!.syncs.filter((s) => s.responseBytes > 64 * 1024);
    expect(heavy.length).toBeGreaterThanOrEqual(2 * rows);
    expect(m.response).toBeLessThanOrEqual(MiB);
  });

  it("no answer is refused by Excel (over 5 MB), but where light rows are followed by long text: that chunk is read again from the first chunk's size", () => {
    const refused = results.filter((r) => r.syncs.some((s) => s.refusedBytes > 0)).map((r) => r.scenario);
    expect(refused).toEqual([expect.stringMatching(/short comments, then/)]);
    const syncs = results.find((r) => /short comments, then/.test(r.scenario))!.syncs;
    const at = syncs.findIndex((s) => s.refusedBytes > 0);
    expect(syncs.filter((s) => s.refusedBytes > 0)).toHaveLength(1);
    expect(syncs[at].refusedBytes).toBeGreaterThan(EXCEL_WEB_LIMIT_BYTES);
    // The next chunk is small again (the first chunk's 15 cells), then grows with what the rows weigh.
    expect(syncs[at + 1].responseBytes).toBeLessThan(32 * 1024);
  });

  it("reading the last row, appending one row and updating four (with their seals) cost the same whatever the log's size (bounded by the work)", () => {
    for (const step of [/read the last row/, /append one/, /^update four$/]) {
      const m = find(/log of/, step);
      expect({ step: String(step), small: m.total < 32 * 1024 }).toEqual({ step: String(step), small: true });
    }
  });

  it("log batches wait for cell-edit mode to end (delayForCellEdit, request flag 64), and release their range proxies", () => {
    for (const r of results.filter((x) => /log of|batch of|resume of|selection of/.test(x.scenario))) {
      expect(r.syncs.every((s) => (s.flags & 64) === 64)).toBe(true);
      expect(r.maxRefs).toBeLessThan(20);
    }
  });
});
