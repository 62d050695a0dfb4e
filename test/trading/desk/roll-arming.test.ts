// The desk's armed rolls over a scripted service and desk (desk/roll-arming.ts): which hedges are armed, what is asked and when, each rule step taken as the pane sees it (sent with the derived keys, rolled elsewhere, proposed, disarmed, not sent and why), the side armed again after a roll; the real service's way is armed-rolls.sandbox.test.ts.
import type { HedgingClient } from "../../../src/api/client";
import type { ClosedHedge, Hedge } from "../../../src/api/schemas";
import { RollArming, ARM_REFRESH_MS, NO_ROLL_INSTRUCTIONS, type RollArmingOptions } from "../../../src/trading/desk/roll-arming";
import type { TradingDesk } from "../../../src/trading/desk/contract";
import { rollKey, rollReference } from "../../../src/trading/rolls";
import type { Preview, RowStatus, SendOptions, SendResult, TradeRow } from "../../../src/trading/types";
import { closed, hedge } from "../../support/builders";

const T0 = Date.parse("2026-11-30T16:59:30.000Z"); // 30 s before the maturity: inside one listing (ARM_REFRESH_MS)
const MATURITY = Date.parse("2026-11-30T17:00:00.000Z");
const REF = rollReference(MATURITY, "USDTNGN", "buy", 1);

const open = (over: Partial<Hedge> = {}) =>
  hedge({ id: "h-1", market: "USDTNGN", side: "buy", status: "filled", maturity_at: new Date(MATURITY).toISOString(), ...over });
const row = (n: number, action: TradeRow["action"] = n === 1 ? "open" : "add"): TradeRow => ({
  rowNumber: n,
  action,
  market: "USDTNGN",
  side: "buy",
  notional: 100_000,
  tenor: action === "open" ? 7 : null,
  clientReference: rollReference(MATURITY, "USDTNGN", "buy", n),
});
const sentRow = (status: RowStatus["status"], message: string | null = null) => ({ status, message }) as RowStatus;

/** A scripted service: its hedges (by id, listed newest first, by client reference) and history; every request counted. */
function world(over: Partial<RollArmingOptions> = {}) {
  let nowMs = T0;
  const hedges: Hedge[] = [open()];
  const history: ClosedHedge[] = [];
  const asked: string[] = [];
  let down = false;
  const client = {
    get: async (id: string) => {
      asked.push(`get ${id}`);
      if (down) throw new Error("service_unavailable");
      const found = hedges.find((h) => h.id === id);
      if (!found) throw new Error("hedge_not_found");
      return { data: found };
    },
    list: async (q: { client_reference?: string; limit?: number } = {}) => {
      asked.push(q.client_reference ? `list ${q.client_reference}` : `list ${q.limit}`);
      if (down) throw new Error("service_unavailable");
      const all = [...hedges].reverse();
      return { data: q.client_reference ? all.filter((h) => h.client_reference === q.client_reference) : all.slice(0, q.limit) };
    },
    history: async (q: { limit?: number } = {}) => {
      asked.push(`history ${q.limit}`);
      return { data: history };
    },
  } as unknown as HedgingClient;
  const previews: Array<[string, TradeRow[]]> = [];
  const sends: SendOptions[] = [];
  let answer: () => Promise<SendResult> = async () => {
    // The service takes the Open: a new hedge under its reference.
    hedges.push(
      open({
        id: `h-${hedges.length + 1}`,
        client_reference: REF,
        opened_at: new Date(nowMs).toISOString(),
        maturity_at: new Date(MATURITY + 7 * 86_400_000).toISOString(),
      }),
    );
    return { rows: [sentRow("submitted")], skipped: [] };
  };
  const desk = {
    preview: async (action: string, rows: TradeRow[]) => {
      previews.push([action, rows]);
      return { lines: rows } as unknown as Preview;
    },
    send: async (_: Preview, options: SendOptions = {}) => {
      sends.push(options);
      return answer();
    },
  } as unknown as TradingDesk;
  const views: string[][] = [];
  const proposed: string[] = [];
  const errors: unknown[] = [];
  let plan: TradeRow[] = [row(1)];
  let planned = 0;
  const arming = new RollArming({
    client,
    desk,
    now: () => new Date(nowMs),
    covers: (s) => s.market === "USDTNGN",
    plan: async () => (planned++, plan),
    direct: () => true,
    onChange: (v) => views.push(v.map((x) => `${x.state}: ${x.text}`)),
    onPropose: (s, at) => proposed.push(`${s.market} ${s.side} ${new Date(at).toISOString()}`),
    onError: (e) => errors.push(e),
    ...over,
  });
  return {
    arming,
    hedges,
    history,
    asked,
    previews,
    sends,
    proposed,
    errors,
    views,
    at: (ms: number) => (nowMs = ms),
    down: (d: boolean) => (down = d),
    plan: (rows: TradeRow[]) => (plan = rows),
    answer: (a: () => Promise<SendResult>) => (answer = a),
    state: () => arming.views().map((v) => `${v.state}: ${v.text}`),
    /** How many times the policy was asked for the rows (it reads the positions: asked only when a roll may follow). */
    planned: () => planned,
  };
}

describe("armed rolls over a scripted service", () => {
  it("arms the open hedges of covered sides, then asks nothing about them before their maturity", async () => {
    const w = world();
    w.hedges.push(open({ id: "h-kes", market: "USDTKES" }), open({ id: "h-none", side: "sell", maturity_at: null }));
    await w.arming.poll();
    expect(w.state()).toEqual([
      "armed: USDTNGN buy armed: matures 2026-11-30 17:00 UTC; the next Open is sent once the service shows it settled.",
    ]);
    expect(w.asked).toEqual(["list 500", "history 100"]);
    w.at(MATURITY - 1);
    await w.arming.poll();
    expect(w.asked).toEqual(["list 500", "history 100"]); // not listed again within ARM_REFRESH_MS, nothing asked of the hedge
  });

  it("the open hedges listed again every ARM_REFRESH_MS; one found rolled under the side's roll reference says when", async () => {
    const w = world();
    await w.arming.poll();
    w.at(T0 + ARM_REFRESH_MS - 1);
    await w.arming.poll();
    expect(w.asked.filter((a) => a === "history 100")).toHaveLength(1);
    // Another computer rolled it before this pane's poll asked: the listing finds the roll's hedge.
    w.hedges[0].status = "closed";
    w.hedges.push(open({ id: "h-b", client_reference: REF, opened_at: "2026-11-30T17:00:01Z", maturity_at: "2026-12-07T17:00:00Z" }));
    w.at(T0 + ARM_REFRESH_MS);
    await w.arming.poll();
    expect(w.asked.filter((a) => a === "history 100")).toHaveLength(2);
    expect(w.state()).toEqual([
      "armed: USDTNGN buy armed: matures 2026-12-07 17:00 UTC; the next Open is sent once the service shows it settled; last rolled at 2026-11-30 17:00 UTC.",
    ]);
    expect(w.arming.views()[0].atMs).toBe(Date.parse("2026-11-30T17:00:01Z"));
    expect(w.sends).toEqual([]);
  });

  it("a listing that fails is told and asked again at the next poll, the armed sides judged meanwhile", async () => {
    const w = world();
    w.down(true);
    await w.arming.poll();
    expect(w.errors).toHaveLength(1);
    expect(w.arming.views()).toEqual([]);
    w.down(false);
    await w.arming.poll();
    expect(w.arming.views()).toHaveLength(1);
  });

  it("at its maturity, while the service still shows it open: asks the hedge only, and waits", async () => {
    const w = world();
    await w.arming.poll();
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.asked.slice(2)).toEqual(["get h-1"]);
    expect(w.state()[0]).toMatch(/^armed: /);
    expect(w.sends).toEqual([]);
  });

  it("the service not answering: waits, tells the error, asks again at the next poll", async () => {
    const w = world();
    await w.arming.poll();
    w.at(MATURITY + 1);
    w.down(true);
    await w.arming.poll();
    expect(w.errors).toHaveLength(1);
    expect(w.state()[0]).toMatch(/^armed: /);
    w.down(false);
    w.hedges[0].status = "closed";
    await w.arming.poll();
    expect(w.sends).toHaveLength(1);
  });

  it("settled: sends the policy's Open through the desk with the key derived from its reference, says rolled at, and arms the new hedge", async () => {
    const w = world();
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.at(MATURITY + 2_000);
    await w.arming.poll();
    expect(w.previews).toEqual([["open", [row(1)]]]);
    expect(w.sends).toEqual([{ idempotencyKeys: [rollKey(REF, 0)] }]);
    // The hedge, its history record (none: a settlement), the roll's reference, the side's newest hedges.
    expect(w.asked.slice(2, 6)).toEqual(["get h-1", "history 100", `list ${REF}`, "list 50"]);
    expect(w.views.flat()).toContain(`rolled: USDTNGN buy rolled at 2026-11-30 17:00:02 UTC: ${REF} sent (matured 2026-11-30 17:00 UTC).`);
    // Armed again at once for the new hedge, saying when it last rolled.
    expect(w.state()).toEqual([
      "armed: USDTNGN buy armed: matures 2026-12-07 17:00 UTC; the next Open is sent once the service shows it settled; last rolled at 2026-11-30 17:00 UTC.",
    ]);
  });

  it("a roll whose new hedge shows no maturity yet (accepted, not filled): the hedges listed again at each poll until it does", async () => {
    const w = world();
    w.answer(async () => {
      w.hedges.push(open({ id: "h-new", client_reference: REF, status: "submitted", maturity_at: null }));
      return { rows: [sentRow("submitted")], skipped: [] };
    });
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.state()[0]).toMatch(/^rolled: /);
    const lists = () => w.asked.filter((a) => a === "history 100").length;
    const before = lists();
    await w.arming.poll();
    expect(lists()).toBe(before + 1);
    Object.assign(w.hedges[1], { status: "filled", maturity_at: "2026-12-07T17:00:00.000Z" });
    await w.arming.poll();
    expect(w.state()[0]).toMatch(/^armed: .*matures 2026-12-07 17:00 UTC.*last rolled at/);
    await w.arming.poll();
    expect(lists()).toBe(before + 2); // armed again: no more listing until ARM_REFRESH_MS
  });

  it("an Open and Max trade's Adds go as one batch of the Action column, each with its own derived key", async () => {
    const w = world();
    w.plan([row(1), row(2), row(3)]);
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.previews.map(([a, r]) => [a, r.length])).toEqual([["column", 3]]);
    expect(w.sends[0].idempotencyKeys).toEqual([1, 2, 3].map((n) => rollKey(rollReference(MATURITY, "USDTNGN", "buy", n), 0)));
  });

  it("an Open under the reference the service failed: sent again with the next attempt's key", async () => {
    const w = world();
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.hedges.push(open({ id: "h-failed", client_reference: REF, status: "failed" }));
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.sends).toEqual([{ idempotencyKeys: [rollKey(REF, 1)] }]);
  });

  it("the roll's reference already on the service: rolled elsewhere at its opening, nothing sent, armed again for it", async () => {
    const w = world();
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.hedges.push(open({ id: "h-other", client_reference: REF, opened_at: "2026-11-30T17:00:01Z", maturity_at: "2026-12-07T17:00:00Z" }));
    w.at(MATURITY + 2_000);
    await w.arming.poll();
    expect(w.sends).toEqual([]);
    expect(w.planned()).toBe(0);
    expect(w.views.flat()).toContain(
      "rolled_elsewhere: USDTNGN buy rolled at 2026-11-30 17:00:01 UTC by another computer or copy (found by its client reference): nothing sent from here.",
    );
    expect(w.state()[0]).toMatch(/matures 2026-12-07 17:00 UTC.*last rolled at 2026-11-30 17:00 UTC/);
  });

  it("another hedge holds the side: disarmed, nothing sent", async () => {
    const w = world();
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.hedges.push(open({ id: "h-hand", client_reference: "DEAL-7", maturity_at: null }));
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.sends).toEqual([]);
    expect(w.state()).toEqual(["disarmed: USDTNGN buy another hedge is open on the side: not rolled (matured 2026-11-30 17:00 UTC)."]);
    expect(w.planned()).toBe(0); // nothing asked of the policy (nor of the positions) for a side that cannot roll
  });

  it("a target of 0: disarmed; a hedge failed rather than settled: closed early, disarmed", async () => {
    const w = world();
    w.plan([]);
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.state()).toEqual(["disarmed: USDTNGN buy its target is 0 now: not rolled (matured 2026-11-30 17:00 UTC)."]);
    const v = world();
    await v.arming.poll();
    v.hedges[0].status = "failed";
    v.at(MATURITY);
    await v.arming.poll();
    expect(v.state()).toEqual(["disarmed: USDTNGN buy closed before its maturity: not rolled (matured 2026-11-30 17:00 UTC)."]);
  });

  it("closed before its maturity (a roll done by hand an hour early) and first seen after it: disarmed, nothing sent", async () => {
    // The history tells when it closed: by hedge id where the service gives one, else by its side and opening time.
    for (const byId of [true, false]) {
      const w = world();
      await w.arming.poll();
      w.hedges[0].status = "closed";
      w.hedges[0].opened_at = "2026-11-23T17:00:00.000Z";
      const early = closed({
        market: "USDTNGN",
        side: "buy",
        opened_at: "2026-11-23T17:00:00.000Z",
        closed_at: new Date(MATURITY - 3_600_000).toISOString(),
        hedge_id: byId ? "h-1" : undefined,
      });
      // Other records first, each closed at the maturity, opened at the same instant: by id, another hedge's (an id match
      // wins over the opening time); without ids, another market's, the other side's and the side's hedge before (market, side and opening time must all match).
      const atMaturity = (over: Partial<ClosedHedge>) =>
        closed({ opened_at: "2026-11-23T17:00:00.000Z", closed_at: new Date(MATURITY).toISOString(), ...over });
      w.history.push(
        ...(byId
          ? [atMaturity({ hedge_id: "h-0" })]
          : [
              atMaturity({ market: "USDKES", hedge_id: undefined }),
              atMaturity({ side: "sell", hedge_id: undefined }),
              atMaturity({ opened_at: "2026-11-16T17:00:00.000Z", hedge_id: undefined }),
            ]),
        early,
      );
      w.at(MATURITY + 3_600_000);
      await w.arming.poll();
      expect(w.sends).toEqual([]);
      expect(w.state()).toEqual(["disarmed: USDTNGN buy closed before its maturity: not rolled (matured 2026-11-30 17:00 UTC)."]);
    }
    // Reduced two days before its maturity (a record of its own), then its record closed at its maturity: the newest is its
    // close, the settlement: rolled.
    const settled = world();
    await settled.arming.poll();
    settled.hedges[0].status = "closed";
    settled.history.push(
      closed({
        market: "USDTNGN",
        side: "buy",
        opened_at: "2026-11-23T17:00:00.000Z",
        closed_at: new Date(MATURITY - 2 * 86_400_000).toISOString(),
        exit_type: "reduce",
        hedge_id: "h-1",
      }),
      closed({
        market: "USDTNGN",
        side: "buy",
        opened_at: "2026-11-23T17:00:00.000Z",
        closed_at: new Date(MATURITY).toISOString(),
        hedge_id: "h-1",
      }),
    );
    settled.at(MATURITY + 1_000);
    await settled.arming.poll();
    expect(settled.sends).toEqual([{ idempotencyKeys: [rollKey(REF, 0)] }]);
  });

  it("four-eyes without an instruction: proposed for approval, the pane told; with one covering it: sent", async () => {
    const w = world({ direct: () => false });
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.sends).toEqual([]);
    expect(w.state()[0]).toMatch(
      /^proposed: USDTNGN buy unhedged since 2026-11-30 17:00 UTC: four-eyes is on and no standing roll instruction covers it/,
    );
    expect(w.proposed).toEqual(["USDTNGN buy 2026-11-30T17:00:00.000Z"]);
    expect(await NO_ROLL_INSTRUCTIONS.coversRoll({ market: "USDTNGN", side: "buy", maturityMs: MATURITY, rows: [] })).toEqual({
      ok: false,
      reason: "no standing roll instruction covers it",
    });
    const asked: unknown[] = [];
    const approval = { batchHash: "ab".repeat(32), preparedBy: "fp-0000000000000001", approvedBy: "fp-0000000000000002" };
    const c = world({
      direct: () => false,
      instructions: { coversRoll: async (r) => (asked.push(r), { ok: true, instruction: "RI-20261128-aaaaaaaaaaaa", approval }) },
    });
    await c.arming.poll();
    c.hedges[0].status = "closed";
    c.at(MATURITY);
    await c.arming.poll();
    expect(asked).toEqual([{ market: "USDTNGN", side: "buy", maturityMs: MATURITY, rows: [row(1)] }]);
    // Sent as approved by the instruction: its hash and fingerprints in the rows, the keys still derived from the references.
    expect(c.sends).toEqual([{ approval: { ...approval, idempotencyKeys: [rollKey(REF, 0)] } }]);
    expect(c.views.flat()).toContainEqual(
      expect.stringMatching(/^rolled: USDTNGN buy rolled at .* sent under standing roll instruction RI-20261128-aaaaaaaaaaaa \(matured/),
    );
  });

  it("four-eyes, an instruction out of its bounds: proposed, the pane says coversRoll's reason; asked only under four-eyes", async () => {
    const asked: unknown[] = [];
    const reason =
      "Roll instruction RI-1 allows at most 50,000.00 USD per hedge, and this roll is 100,000.00 USD: this roll needs a new approval.";
    let direct = false;
    const w = world({ direct: () => direct, instructions: { coversRoll: async (r) => (asked.push(r), { ok: false, reason }) } });
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.sends).toEqual([]);
    expect(w.state()[0]).toBe(
      "proposed: USDTNGN buy unhedged since 2026-11-30 17:00 UTC: four-eyes is on and Roll instruction RI-1 allows at most 50,000.00 USD per hedge, and this roll is 100,000.00 USD: this roll needs a new approval; the roll's Open is proposed for approval (Submit for approval from the Hedge Proposal sheet).",
    );
    expect(asked).toHaveLength(1);
    direct = true;
    const d = world({ direct: () => direct, instructions: { coversRoll: async (r) => (asked.push(r), { ok: false, reason }) } });
    await d.arming.poll();
    d.hedges[0].status = "closed";
    d.at(MATURITY);
    await d.arming.poll();
    expect(d.sends).toEqual([{ idempotencyKeys: [rollKey(REF, 0)] }]);
    expect(asked).toHaveLength(1); // sent directly: no instruction read
  });

  const UNHEDGED = "proposed: USDTNGN buy unhedged since 2026-11-30 17:00 UTC: ";
  const FOUND = "settled while the workbook was closed: the roll's Open is proposed (send it from the Hedge Proposal sheet).";
  it.each<[string, Partial<RollArmingOptions>, "seen settling" | "found settled", string]>([
    [
      "no model: a settled side is proposed, the pane told why",
      { plan: null },
      "seen settling",
      "no proposal yet, so no target: press Propose (exposures, then policy) to roll it; later maturities are then rolled at once.",
    ],
    ["a side the history shows settled when the pane arms (the workbook was closed): unhedged since, proposed", {}, "found settled", FOUND],
    [
      "under four-eyes, a side found settled is proposed for its own reason, not the instructions'",
      { direct: () => false },
      "found settled",
      FOUND,
    ],
  ])("%s; never sent, and proposed once", async (_name, over, how, why) => {
    const w = world(over);
    if (how === "seen settling") await w.arming.poll(); // armed while open, then settled at its maturity
    w.hedges[0].status = "closed";
    if (how === "found settled")
      w.history.push(closed({ market: "USDTNGN", side: "buy", exit_type: "maturity", closed_at: new Date(MATURITY).toISOString() }));
    w.at(how === "seen settling" ? MATURITY : MATURITY + 3_600_000);
    await w.arming.poll();
    expect(w.sends).toEqual([]);
    expect(w.state()).toEqual([UNHEDGED + why]);
    // Its next poll proposes nothing again.
    await w.arming.poll();
    expect(w.proposed).toHaveLength(1);
  });

  it("not sent (refused by the preview or the service): asked again; another computer's roll found is rolled elsewhere, else why", async () => {
    const w = world();
    w.answer(async () => {
      w.hedges.push(open({ id: "h-b", client_reference: REF, opened_at: new Date(MATURITY + 1_000).toISOString() }));
      return { rows: [], skipped: [{ rowNumber: 1, reason: "A hedge is already open on USDTNGN buy." }] };
    });
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.views.flat()).toContain(
      "rolled_elsewhere: USDTNGN buy rolled at 2026-11-30 17:00:01 UTC by another computer or copy (found by its client reference): nothing sent from here.",
    );
    const r = world();
    r.answer(async () => ({ rows: [sentRow("rejected", "Balance too low.")], skipped: [] }));
    await r.arming.poll();
    r.hedges[0].status = "closed";
    r.at(MATURITY);
    await r.arming.poll();
    expect(r.state()).toEqual(["not_rolled: USDTNGN buy unhedged since 2026-11-30 17:00 UTC: the roll was not sent — Balance too low."]);
    const s = world();
    s.answer(async () => ({ rows: [], skipped: [{ rowNumber: 1, reason: "Duplicate of row 4." }] }));
    await s.arming.poll();
    s.hedges[0].status = "closed";
    s.at(MATURITY);
    await s.arming.poll();
    expect(s.state()[0]).toBe("not_rolled: USDTNGN buy unhedged since 2026-11-30 17:00 UTC: the roll was not sent — Duplicate of row 4.");
    const t = world();
    t.answer(async () => {
      throw new Error("The preview has a blocker.");
    });
    await t.arming.poll();
    t.hedges[0].status = "closed";
    t.at(MATURITY);
    await t.arming.poll();
    expect(t.state()[0]).toBe(
      "not_rolled: USDTNGN buy unhedged since 2026-11-30 17:00 UTC: the roll was not sent — The preview has a blocker.",
    );
    expect(t.errors).toHaveLength(1);
  });

  it("a filled row counts as rolled; one poll at a time; rearm lists the hedges at the next poll; a failing listener stops nothing", async () => {
    const w = world({
      onChange: () => {
        throw new Error("listener");
      },
    });
    w.answer(async () => ({ rows: [sentRow("filled")], skipped: [] }));
    await Promise.all([w.arming.poll(), w.arming.poll()]);
    expect(w.asked).toEqual(["list 500", "history 100"]);
    w.arming.rearm();
    await w.arming.poll();
    expect(w.asked.filter((a) => a === "history 100")).toHaveLength(2);
    w.at(T0 + ARM_REFRESH_MS);
    await w.arming.poll();
    expect(w.asked.filter((a) => a === "history 100")).toHaveLength(3);
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.state()[0]).toMatch(/^rolled: /);
  });

  it("what is not the side's, or nothing new, changes nothing", async () => {
    // A hedge typed by hand under the roll's reference on another market is not this side's roll; another market's open
    // hedge does not take the side; a hedge the analyst opened by hand after it is armed again without "last rolled at".
    const w = world();
    await w.arming.poll();
    const told = w.views.length;
    w.at(T0 + ARM_REFRESH_MS);
    await w.arming.poll();
    expect(w.views).toHaveLength(told); // listed again, nothing new: the pane is not told
    w.hedges[0].status = "closed";
    w.hedges.push(
      open({ id: "h-typed", market: "USDTKES", client_reference: REF }),
      open({ id: "h-kes", market: "USDTKES", maturity_at: null }),
    );
    w.at(MATURITY + ARM_REFRESH_MS);
    await w.arming.poll();
    expect(w.sends).toHaveLength(1);
    const x = world();
    await x.arming.poll();
    x.hedges[0].status = "closed";
    x.hedges.push(open({ id: "h-hand", client_reference: "DEAL-9", maturity_at: "2026-12-07T17:00:00Z" }));
    x.arming.rearm();
    x.at(MATURITY);
    await x.arming.poll();
    expect(x.state()).toEqual([
      "armed: USDTNGN buy armed: matures 2026-12-07 17:00 UTC; the next Open is sent once the service shows it settled.",
    ]);
  });

  it("a side taken by a hedge accepted and not filled yet is taken; one listed at the maturity's very instant rolled then", async () => {
    const w = world();
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.hedges.push(open({ id: "h-hand", client_reference: "DEAL-7", status: "submitted", maturity_at: null }));
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.state()[0]).toMatch(/^disarmed: .*another hedge is open on the side/);
    const x = world();
    await x.arming.poll();
    x.hedges[0].status = "closed";
    x.hedges.push(
      open({
        id: "h-b",
        client_reference: REF,
        status: "submitted",
        opened_at: new Date(MATURITY).toISOString(),
        maturity_at: "2026-12-07T17:00:00Z",
      }),
    );
    x.arming.rearm();
    x.at(MATURITY);
    await x.arming.poll();
    expect(x.state()[0]).toMatch(/matures 2026-12-07 17:00 UTC.*last rolled at 2026-11-30 17:00 UTC/);
  });

  it("the history's settlements: of covered sides only, not of a side held by a hedge without a maturity, and proposed once", async () => {
    const w = world({ direct: () => true });
    w.hedges[0].status = "closed";
    w.hedges.push(open({ id: "h-nomat", maturity_at: null }));
    w.history.push(
      closed({ market: "USDTNGN", side: "buy", exit_type: "maturity", closed_at: new Date(MATURITY).toISOString() }),
      closed({ market: "USDTKES", side: "buy", exit_type: "maturity", closed_at: new Date(MATURITY).toISOString() }),
    );
    w.at(MATURITY + 60_000);
    await w.arming.poll();
    expect(w.arming.views()).toEqual([]);
    const x = world();
    x.hedges[0].status = "closed";
    x.history.push(closed({ market: "USDTNGN", side: "buy", exit_type: "maturity", closed_at: new Date(MATURITY).toISOString() }));
    x.at(MATURITY + 60_000);
    await x.arming.poll();
    x.at(MATURITY + 60_000 + ARM_REFRESH_MS);
    await x.arming.poll(); // listed again: the same settlement is not proposed again
    expect(x.proposed).toHaveLength(1);
    expect(x.state()[0]).toMatch(/^proposed: /);
  });

  it("start polls at once and every pollMs until stop", async () => {
    jest.useFakeTimers();
    try {
      const w = world({ pollMs: 1_000 });
      w.arming.start();
      w.arming.start(); // once
      await jest.advanceTimersByTimeAsync(0);
      expect(w.asked).toEqual(["list 500", "history 100"]);
      w.at(MATURITY);
      await jest.advanceTimersByTimeAsync(1_000);
      expect(w.asked).toContain("get h-1");
      w.arming.stop();
      const before = w.asked.length;
      await jest.advanceTimersByTimeAsync(5_000);
      expect(w.asked).toHaveLength(before);
      // Never more often than every 250 ms.
      const f = world({ pollMs: 100 });
      f.at(MATURITY);
      f.arming.start();
      await jest.advanceTimersByTimeAsync(0);
      const first = f.asked.length;
      await jest.advanceTimersByTimeAsync(200);
      expect(f.asked).toHaveLength(first);
      await jest.advanceTimersByTimeAsync(50);
      expect(f.asked.length).toBeGreaterThan(first);
      f.arming.stop();
    } finally {
      jest.useRealTimers();
    }
  });

  it("without a clock given, the arming reads the computer's own (the pane's way)", async () => {
    const w = world({ now: undefined });
    await w.arming.poll();
    expect(w.state()[0]).toMatch(/^armed: USDTNGN buy /);
  });

  it("without an error listener (the pane may give none): a failing listing, a service not answering at the maturity, a send that throws and a listing failing after the roll leave the arming working", async () => {
    const w = world({ onError: undefined });
    w.down(true);
    await expect(w.arming.poll()).resolves.toBeUndefined();
    w.down(false);
    await w.arming.poll();
    w.at(MATURITY + 1);
    w.down(true);
    await expect(w.arming.poll()).resolves.toBeUndefined();
    expect(w.state()[0]).toMatch(/^armed: /);
    w.down(false);
    w.hedges[0].status = "closed";
    w.answer(async () => {
      throw new Error("The preview has a blocker.");
    });
    await expect(w.arming.poll()).resolves.toBeUndefined();
    expect(w.state()[0]).toMatch(/^not_rolled: .*The preview has a blocker\.$/);
    const r = world({ onError: undefined });
    r.answer(async () => {
      r.hedges.push(open({ id: "h-2", client_reference: REF, maturity_at: "2026-12-07T17:00:00Z" }));
      r.down(true); // the listing after the roll fails
      return { rows: [sentRow("submitted")], skipped: [] };
    });
    await r.arming.poll();
    r.hedges[0].status = "closed";
    r.at(MATURITY);
    await expect(r.arming.poll()).resolves.toBeUndefined();
    expect(r.state()[0]).toMatch(/^rolled: /);
  });

  it("a poll started by start() that fails (a pane's listener throwing) is told to onError: the first poll's and the timer's", async () => {
    jest.useFakeTimers();
    try {
      const onPropose = () => {
        throw new Error("the pane's listener");
      };
      const first = world({ plan: null, onPropose });
      first.hedges[0].status = "closed";
      first.history.push(closed({ market: "USDTNGN", side: "buy", exit_type: "maturity", closed_at: new Date(MATURITY).toISOString() }));
      first.at(MATURITY + 3_600_000);
      first.arming.start();
      await jest.advanceTimersByTimeAsync(0);
      first.arming.stop();
      expect(first.errors).toEqual([new Error("the pane's listener")]);
      const later = world({ plan: null, onPropose, pollMs: 1_000 });
      later.arming.start();
      await jest.advanceTimersByTimeAsync(0);
      expect(later.errors).toEqual([]);
      later.hedges[0].status = "closed";
      later.at(MATURITY);
      await jest.advanceTimersByTimeAsync(1_000);
      later.arming.stop();
      expect(later.errors).toEqual([new Error("the pane's listener")]);
    } finally {
      jest.useRealTimers();
    }
  });

  it("each side of a market armed on its own; a hedge of a side the spec does not list is not armed", async () => {
    const w = world();
    w.hedges.push(
      open({ id: "h-sell", side: "sell", maturity_at: "2026-12-01T17:00:00Z" }),
      open({ id: "h-long", market: "USDTNGN", side: "long", maturity_at: "2026-12-02T17:00:00Z" }),
    );
    await w.arming.poll();
    expect(w.arming.views().map((v) => `${v.market} ${v.side} ${v.state} ${new Date(v.maturityMs).toISOString()}`)).toEqual([
      "USDTNGN sell armed 2026-12-01T17:00:00.000Z", // listed newest first
      "USDTNGN buy armed 2026-11-30T17:00:00.000Z",
    ]);
  });

  it("a hedge still being submitted holds the side: disarmed, nothing sent", async () => {
    const w = world();
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.hedges.push(open({ id: "h-hand", client_reference: "DEAL-7", status: "submitting", maturity_at: null }));
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.sends).toEqual([]);
    expect(w.state()[0]).toMatch(/^disarmed: .*another hedge is open on the side/);
  });

  it("the pane is told each change as it happens: armed when listed, rolling while the Open is sent", async () => {
    const w = world();
    await w.arming.poll();
    expect(w.views).toEqual([
      ["armed: USDTNGN buy armed: matures 2026-11-30 17:00 UTC; the next Open is sent once the service shows it settled."],
    ]);
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.views[1]).toEqual(["rolling: USDTNGN buy matured 2026-11-30 17:00 UTC: sending the next Open…"]);
  });

  it("a side the history shows settled is shown unhedged since its maturity before it is judged", async () => {
    const w = world();
    w.hedges[0].status = "closed";
    w.history.push(closed({ market: "USDTNGN", side: "buy", exit_type: "maturity", closed_at: new Date(MATURITY).toISOString() }));
    w.at(MATURITY + 3_600_000);
    await w.arming.poll();
    expect(w.views[0]).toEqual(["armed: USDTNGN buy unhedged since 2026-11-30 17:00 UTC."]);
  });

  it("a side left (target 0) and seen again days later settled at a newer maturity is armed for that one", async () => {
    const w = world();
    w.plan([]);
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.state()[0]).toMatch(/^disarmed: .*its target is 0 now/);
    // Meanwhile (the pane asleep) the side was hedged by hand and that hedge settled a week later.
    const later = MATURITY + 7 * 86_400_000;
    w.history.push(closed({ market: "USDTNGN", side: "buy", exit_type: "maturity", closed_at: new Date(later).toISOString() }));
    w.plan([row(1)]);
    w.at(later + 3_600_000);
    await w.arming.poll();
    expect(w.state()).toEqual([UNHEDGED.replace("2026-11-30", "2026-12-07") + FOUND]);
  });

  it("rolled elsewhere into a hedge that shows no maturity yet: the hedges listed again at each poll, whatever the other sides", async () => {
    const w = world();
    w.hedges.push(open({ id: "h-sell", side: "sell", maturity_at: "2026-12-07T17:00:00Z" }));
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.hedges.push(
      open({
        id: "h-b",
        client_reference: REF,
        status: "submitted",
        opened_at: new Date(MATURITY + 1_000).toISOString(),
        maturity_at: null,
      }),
    );
    w.at(MATURITY + 2_000);
    await w.arming.poll();
    expect(w.state()).toContainEqual(expect.stringMatching(/^rolled_elsewhere: USDTNGN buy /));
    const lists = () => w.asked.filter((a) => a === "history 100").length;
    const before = lists();
    await w.arming.poll();
    await w.arming.poll();
    expect(lists()).toBe(before + 2);
  });

  it("proposed, disarmed or not sent: the hedges are not listed again before ARM_REFRESH_MS (only a roll lists them at once)", async () => {
    const lists = (w: ReturnType<typeof world>) => w.asked.filter((a) => a === "list 500").length;
    const proposed = world({ plan: null });
    const disarmed = world();
    disarmed.plan([]);
    const refused = world();
    refused.answer(async () => ({ rows: [sentRow("rejected", "Balance too low.")], skipped: [] }));
    for (const w of [proposed, disarmed, refused]) {
      await w.arming.poll();
      w.hedges[0].status = "closed";
      w.at(MATURITY);
      await w.arming.poll();
      expect([w.state()[0].split(":")[0], lists(w)]).toEqual([w.state()[0].split(":")[0], 1]);
    }
    expect([proposed, disarmed, refused].map((w) => w.state()[0].split(":")[0])).toEqual(["proposed", "disarmed", "not_rolled"]);
  });

  it("a send that answers with no row and nothing skipped: not rolled, nothing was sent", async () => {
    const w = world();
    w.answer(async () => ({ rows: [], skipped: [] }));
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.state()).toEqual(["not_rolled: USDTNGN buy unhedged since 2026-11-30 17:00 UTC: the roll was not sent — nothing was sent"]);
  });

  it("the other side of the market: a hedge typed by hand under the roll's reference is not this side's roll, and its open hedge does not take this side", async () => {
    const w = world();
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.hedges.push(open({ id: "h-sell", side: "sell", client_reference: REF, maturity_at: null }));
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.sends).toEqual([{ idempotencyKeys: [rollKey(REF, 0)] }]);
  });

  it("a listing failing just after a roll is told to onError, and the new hedge armed at the next listing", async () => {
    const w = world();
    w.answer(async () => {
      w.hedges.push(open({ id: "h-2", client_reference: REF, maturity_at: "2026-12-07T17:00:00Z" }));
      w.down(true);
      return { rows: [sentRow("submitted")], skipped: [] };
    });
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await w.arming.poll();
    expect(w.errors).toEqual([new Error("service_unavailable")]);
    w.down(false);
    w.at(T0 + ARM_REFRESH_MS);
    await w.arming.poll();
    expect(w.state()[0]).toMatch(/^armed: .*matures 2026-12-07 17:00 UTC/);
  });

  it("without a proposal listener, a side proposed is still shown proposed", async () => {
    const w = world({ plan: null, onPropose: undefined });
    await w.arming.poll();
    w.hedges[0].status = "closed";
    w.at(MATURITY);
    await expect(w.arming.poll()).resolves.toBeUndefined();
    expect(w.state()[0]).toMatch(/^proposed: .*no proposal yet/);
  });

  it("without an error listener, a poll started by start() that fails (its first, or the timer's) raises nothing unhandled", async () => {
    const unhandled: unknown[] = [];
    const catcher = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", catcher);
    try {
      const onPropose = () => {
        throw new Error("the pane's listener");
      };
      const first = world({ plan: null, onPropose, onError: undefined });
      first.hedges[0].status = "closed";
      first.history.push(closed({ market: "USDTNGN", side: "buy", exit_type: "maturity", closed_at: new Date(MATURITY).toISOString() }));
      first.at(MATURITY + 3_600_000);
      first.arming.start();
      first.arming.stop();
      const later = world({ plan: null, onPropose, onError: undefined, pollMs: 250 });
      later.arming.start();
      await new Promise((r) => setTimeout(r, 50));
      later.hedges[0].status = "closed";
      later.at(MATURITY);
      await new Promise((r) => setTimeout(r, 400));
      later.arming.stop();
      await new Promise((r) => setTimeout(r, 50));
      expect([first.state()[0].split(":")[0], later.state()[0].split(":")[0], unhandled]).toEqual(["proposed", "proposed", []]);
    } finally {
      process.off("unhandledRejection", catcher);
    }
  });
});
