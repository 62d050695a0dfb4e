// The desk's sending: every row journalled before anything leaves (the hedge an Add acts on found first), and the selection read into rows.
import type { LogRecord } from "../../../src/trading/log/hedge-log";
import { ACCOUNT } from "../../support/fake-service";
import { START, iso, addRow, previewOf, world, advance, useDeskClock } from "../../support/desk-world";

useDeskClock();

describe("journalled before anything leaves", () => {
  it("an Add leaves only once the log says it was sent, with the hedge it acts on and its notional before", async () => {
    const w = world();
    const h = w.service.seed({ notional_usd: 100_000 });
    const seen: LogRecord[] = [];
    w.service.onPost = async () => {
      seen.push(...(await w.log()));
    };
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(25_000)]));
    await advance(100);
    const { rows } = await sending;
    expect(seen).toEqual([
      expect.objectContaining({ status: "submitting", hedgeId: h.id, notionalBefore: 100_000, sentAt: iso(START), account: ACCOUNT }),
    ]);
    expect(rows).toEqual([
      expect.objectContaining({
        status: "submitted",
        hedgeId: h.id,
        message: "Submitted: the service expects the hedge at 125,000.00 USD.",
      }),
    ]);
    expect(w.service.posts.map((p) => [p.op, p.key, p.body])).toEqual([
      ["add", "new-key-1", { market: "USDTNGN", side: "buy", additional_notional_usd: 25_000 }],
    ]);
  });

  it("while the log cannot be written nothing is sent; once it can, the row is sent once", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    const desk = await w.desk();
    const updateLog = w.workbook.updateLog.bind(w.workbook);
    let broken = true;
    w.workbook.updateLog = async (u) => {
      if (broken) throw new Error("Excel is busy");
      return updateLog(u);
    };
    const sending = desk.send(previewOf([addRow(25_000)]));
    await advance(20_000);
    await sending;
    expect(w.service.posts).toEqual([]);
    expect((await w.log())[0]).toMatchObject({ status: "submitting", sentAt: null });
    broken = false;
    await advance(30_000);
    expect(w.service.posts.map((p) => p.key)).toEqual(["new-key-1"]);
    expect((await w.log())[0]).toMatchObject({ status: "filled", notionalBefore: 100_000 });
  });

  it("a pane that died before its row left: the next pane knows from this computer's journal it was never sent, and sends it once", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    // The first pane journals the row, then Excel stops it while it reads the side's hedge.
    const stuck = w.service.client();
    stuck.list = () => new Promise(() => undefined);
    const first = await w.desk({ client: stuck });
    void first.send(previewOf([addRow(25_000)]));
    await advance(100);
    first.stop();
    expect(w.service.posts).toEqual([]);
    const next = await w.desk();
    const plan = await next.inspect();
    expect(plan.items.map((i) => [i.step, i.serviceSays])).toEqual([
      ["send", "Not asked: this computer's journal shows it was never sent."],
    ]);
    await next.resume();
    await advance(100);
    expect(w.service.posts.map((p) => p.key)).toEqual(["new-key-1"]);
    expect((await w.log())[0]).toMatchObject({ status: "filled", notionalBefore: 100_000 });
  });

  it("an Add with no open hedge on its side is rejected before anything is sent", async () => {
    const w = world();
    w.service.seed({ side: "sell" });
    w.service.seed({ market: "USDTXAF" });
    w.service.seed({ status: "closed" });
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(25_000)]));
    await advance(100);
    expect((await sending).rows).toEqual([
      expect.objectContaining({
        status: "rejected",
        errorCode: "no_open_hedge",
        message: "No open hedge on USDTNGN buy (checked just before sending): nothing was sent. Use Open first.",
      }),
    ]);
    expect(w.service.posts).toEqual([]);
  });

  it("the hedge is found past the first page of filled hedges, or among the accepted ones", async () => {
    const w = world();
    // The oldest hedge of 501: the list (newest first, 500 a page) shows it on its second page.
    w.service.seed({ id: "h-mine", notional_usd: 70_000 });
    for (let i = 0; i < 500; i++) w.service.seed({ market: `USDTX${i}` });
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(5_000)]));
    await advance(100);
    await sending;
    expect((await w.log())[0]).toMatchObject({ hedgeId: "h-mine", notionalBefore: 70_000 });

    const w2 = world();
    w2.service.seed({ id: "h-accepted", status: "submitted", side: "sell", notional_usd: 30_000 });
    // (This service refuses an add to a hedge not filled yet: what matters is which hedge the row was journalled against.)
    const desk2 = await w2.desk();
    const s2 = desk2.send(previewOf([addRow(5_000, { side: "sell" })]));
    await advance(100);
    await s2;
    expect((await w2.log())[0]).toMatchObject({ hedgeId: "h-accepted", notionalBefore: 30_000, status: "rejected" });
  });

  it("a side's hedge on the first page of filled hedges is looked for no further: one list request before the Add leaves", async () => {
    const w = world();
    for (let i = 0; i < 600; i++) w.service.seed({ market: `USDTX${i}` });
    w.service.seed({ id: "h-mine", notional_usd: 70_000 });
    let readBeforeSend: string[] = [];
    w.service.onPost = () => void (readBeforeSend = [...w.service.reads]);
    const desk = await w.desk();
    await Promise.all([desk.send(previewOf([addRow(5_000)])), advance(100)]);
    expect(readBeforeSend.filter((r) => r.startsWith("list"))).toEqual(["list status=filled limit=500"]);
    expect((await w.log())[0]).toMatchObject({ hedgeId: "h-mine", notionalBefore: 70_000 });
  });

  it("a side's hedge older than the newest 10,000 filled ones is not looked for further: nothing is sent, and the row says why", async () => {
    const w = world();
    w.service.seed({ id: "h-mine", notional_usd: 70_000 });
    for (let i = 0; i < 10_000; i++) w.service.seed({ market: `USDTX${i}` });
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(5_000)]));
    await advance(100);
    expect((await sending).rows[0]).toMatchObject({
      status: "rejected",
      errorCode: "no_open_hedge",
      message:
        "No open hedge on USDTNGN buy among the newest 10,000 filled and accepted hedges (the service lists more): nothing was sent. Check the hedge on the service.",
    });
    expect(w.service.posts).toEqual([]);
    expect(w.service.reads.filter((r) => r.startsWith("list status=filled"))).toHaveLength(20);
  });
});

describe("reading the selection", () => {
  it("the Hedge Log itself is not a selection of trades; a failed read is shown as a selection problem", async () => {
    const w = world();
    w.workbook.setSheet("Hedge Log", [["x"]]).select("Hedge Log", "A1:A1");
    const desk = await w.desk({ account: ACCOUNT });
    const e = await desk.readRows("open").catch((x: unknown) => x as Error);
    expect(e).toMatchObject({
      code: "selection",
      message: "The selection is on the Hedge Log sheet: select the rows of your exposure sheet instead.",
    });
    w.workbook.readSelection = () => Promise.reject("Excel closed the workbook");
    expect(await desk.readRows("open").catch((x: unknown) => x)).toMatchObject({ code: "selection", message: "Excel closed the workbook" });
  });
});
