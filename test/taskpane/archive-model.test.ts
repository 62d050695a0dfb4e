// The Hedge Log archive control's model over the memory workbook: counts first and asks, moves only on the user's word with progress, says what stayed.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { ArchiveController, archiveCutoff, type ArchiveView } from "../../src/taskpane/archive-model";
import { journalled } from "../support/builders";

const NOW = Date.parse("2026-11-15T09:00:00Z");

async function setUp() {
  const workbook = new MemoryWorkbook();
  await workbook.appendLog([
    journalled("a", { loggedAt: "2025-12-31T23:00:00.000Z", status: "filled" }),
    journalled("b", { loggedAt: "2026-03-01T00:00:00.000Z", status: "closed" }),
    journalled("c", { loggedAt: "2026-04-01T00:00:00.000Z", status: "submitted" }),
    journalled("d", { loggedAt: "2026-10-20T00:00:00.000Z", status: "filled" }),
  ]);
  const views: ArchiveView[] = [];
  const controller = new ArchiveController({ archiveLog: (r) => workbook.archiveLog(r), now: () => NOW });
  controller.subscribe((v) => views.push(v));
  return { workbook, controller, views };
}

describe("ArchiveController", () => {
  it("keeps the previous month in the log: the cut-off is its first day (UTC)", () => {
    expect(archiveCutoff(NOW)).toBe("2026-10-01T00:00:00.000Z");
    expect(archiveCutoff(Date.parse("2026-01-05T00:00:00Z"))).toBe("2025-12-01T00:00:00.000Z");
  });

  it("counts, asks, and moves nothing until confirmed; Cancel leaves the log as it was", async () => {
    const { workbook, controller } = await setUp();
    await controller.ask();
    expect(controller.view.confirming).toEqual({
      total: 2,
      byYear: { 2025: 1, 2026: 1 },
      kept: 1,
      sheets: ["Hedge Log 2025", "Hedge Log 2026"],
    });
    expect(workbook.sheetNames()).toEqual(["Hedge Log"]);
    controller.cancel();
    expect(controller.view.confirming).toBeNull();
    expect(workbook.sheetNames()).toEqual(["Hedge Log"]);
  });

  it("moves on confirmation with progress, and says where the rows went and what stayed", async () => {
    const { workbook, controller, views } = await setUp();
    await controller.ask();
    await controller.confirm();
    expect(views.some((v) => v.busy === "moving" && v.progress !== null)).toBe(true);
    expect(controller.view.message).toEqual({
      kind: "success",
      text: "Moved 2 rows to Hedge Log 2025 and Hedge Log 2026. 1 row logged before then stays in the log, unfinished.",
      details: [],
    });
    expect((await workbook.readLog({ statusNotIn: [] })).map((r) => r.idempotencyKey)).toEqual(["c", "d"]);
    expect((await workbook.readLog()).map((r) => r.idempotencyKey)).toEqual(["a", "b", "c", "d"]);
    await controller.ask();
    expect(controller.view.message?.text).toBe(
      "No finished rows logged before 2026-10-01 (UTC) (1 row before then is unfinished and stays): nothing to archive.",
    );
  });

  it("takes the cut-off when it counts: a pane left open into the next month archives up to that month's previous one", async () => {
    const workbook = new MemoryWorkbook();
    await workbook.appendLog([journalled("oct", { loggedAt: "2026-10-20T00:00:00.000Z", status: "filled" })]);
    let now = NOW; // opened in November: October stays
    const controller = new ArchiveController({ archiveLog: (r) => workbook.archiveLog(r), now: () => now });
    now = Date.parse("2026-12-03T09:00:00Z"); // still open in December: October may move
    await controller.ask();
    expect(controller.view.cutoffDay).toBe("2026-11-01");
    expect(controller.view.confirming).toMatchObject({ total: 1, sheets: ["Hedge Log 2026"] });
    await controller.confirm();
    expect(await workbook.readLog({ statusNotIn: [] })).toEqual([]);
  });
});
