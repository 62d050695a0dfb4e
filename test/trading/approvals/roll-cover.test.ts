// The armed rolls' port over standing roll instructions (approvals/roll-cover.ts): instructions submitted, approved and revoked through the real flow on a memory workbook (control rows by a real desk), then asked as the arming asks at a maturity: covered (with the hash, preparer and approver its rows carry), or each bound broken proposed with coversRoll's reason; the sheet and the log read once per roll.
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../../src/excel/intent-store";
import { createDesk } from "../../../src/trading/desk";
import type { HedgingClient } from "../../../src/api/client";
import { publicKeyFingerprint } from "../../../src/api/environment";
import { WORKBOOK_ID_PROPERTY } from "../../../src/trading/workbook";
import { RollInstructions } from "../../../src/trading/approvals/roll-instructions";
import { instructionCover } from "../../../src/trading/approvals/roll-cover";
import { rollReference } from "../../../src/trading/rolls";
import type { TradeRow } from "../../../src/trading/types";

const PREPARER = publicKeyFingerprint("svc_test_preparer_key_0001");
const APPROVER = publicKeyFingerprint("svc_test_approver_key_0001");
const ACCOUNT = "0x00000000000000000000000000000000000000aa";
const T0 = Date.parse("2026-11-28T09:00:00.000Z");
const MATURITY = Date.parse("2026-11-30T17:00:00.000Z");
const HOUR = 3_600_000;
const PLACE = { environment: "sandbox" as const, account: ACCOUNT };

/** The roll's rows as rollRowsAt gives them: the Open (tenor 7) and, with `adds`, Max trade's Adds onto the same hedge. */
function rows(open: number, tenor = 7, ...adds: number[]): TradeRow[] {
  return [open, ...adds].map((notional, i) => ({
    rowNumber: i + 1,
    action: i === 0 ? "open" : "add",
    market: "USDTNGN",
    side: "buy",
    notional,
    tenor: i === 0 ? (tenor as TradeRow["tenor"]) : null,
    clientReference: rollReference(MATURITY, "USDTNGN", "buy", i + 1),
  }));
}

/** A workbook, the flow over it (a real desk's control rows), a clock, and the port as the pane builds it. */
async function world(options: { readOnly?: () => boolean; place?: () => typeof PLACE | null } = {}) {
  let clock = T0;
  const now = () => new Date(clock);
  const workbook = new MemoryWorkbook({ customProperties: { [WORKBOOK_ID_PROPERTY]: "wb-cover" } });
  const client = { environment: "sandbox" } as unknown as HedgingClient;
  const desk = await createDesk({ client, workbook, intentStore: new MemoryIntentStore(), account: ACCOUNT, now });
  const flow = new RollInstructions({ sheet: workbook, recordControl: (c) => desk.recordControl(c), now });
  const port = instructionCover({
    sheet: workbook,
    place: options.place ?? (() => PLACE),
    refusal: () => (options.readOnly?.() ? "this key is read only" : null),
    now,
  });
  /** Submitted by the preparer, approved by a second key an hour later. */
  const approvedOne = async (
    terms: Partial<{ market: string; side: string; until: string; maxPerHedgeUsd: number; maxTenor: number }> = {},
  ) => {
    const base = { market: "USDTNGN", side: "buy", until: "2026-12-05T00:00:00Z", maxPerHedgeUsd: 1_000_000, maxTenor: 7 };
    const submitted = await flow.submit({ ...base, ...terms }, PREPARER, PLACE);
    clock += HOUR;
    return flow.approve(submitted.id, APPROVER, PLACE);
  };
  const ask = (r: TradeRow[], side: "buy" | "sell" = "buy", market = "USDTNGN") =>
    port.coversRoll({ market, side, maturityMs: MATURITY, rows: r.map((x) => ({ ...x, side, market })) });
  return { workbook, flow, approvedOne, ask, at: (ms: number) => (clock = ms) };
}

describe("instructionCover: the armed rolls' question at a maturity", () => {
  it("an approved, unexpired, unrevoked instruction of the side covers the roll: its id, and its hash, preparer and approver for the rows", async () => {
    const w = await world();
    const instruction = await w.approvedOne();
    const readApprovals = jest.spyOn(w.workbook, "readApprovals");
    const readLog = jest.spyOn(w.workbook, "readLog");
    expect(await w.ask(rows(500_000))).toEqual({
      ok: true,
      instruction: instruction.id,
      approval: { batchHash: instruction.hash, preparedBy: PREPARER, approvedBy: APPROVER },
    });
    // Bounded: one read of the Approvals sheet and one query of the log's control rows per roll asked about.
    expect([readApprovals.mock.calls.length, readLog.mock.calls.length]).toEqual([1, 1]);
  });

  it("no instruction at all, or none of the roll's side (another side, another market): not covered, naming the side", async () => {
    const w = await world();
    expect(await w.ask(rows(500_000))).toEqual({ ok: false, reason: "no standing roll instruction keeps USDTNGN buy hedged" });
    await w.approvedOne();
    expect(await w.ask(rows(500_000), "sell")).toEqual({ ok: false, reason: "no standing roll instruction keeps USDTNGN sell hedged" });
    expect(await w.ask(rows(500_000), "buy", "USDTKES")).toEqual({
      ok: false,
      reason: "no standing roll instruction keeps USDTKES buy hedged",
    });
  });

  it.each<[string, Partial<{ until: string; maxPerHedgeUsd: number; maxTenor: number }>, TradeRow[], RegExp]>([
    [
      "the notional over its most per hedge",
      { maxPerHedgeUsd: 400_000 },
      rows(500_000),
      /allows at most 400,000\.00 USD per hedge, and this roll is 500,000\.00 USD/,
    ],
    [
      "the hedge's notional summed over the Open and Max trade's Adds",
      { maxPerHedgeUsd: 400_000 },
      rows(250_000, 7, 250_000),
      /allows at most 400,000\.00 USD per hedge, and this roll is 500,000\.00 USD/,
    ],
    ["a tenor over its most", { maxTenor: 3 }, rows(100_000, 7), /allows tenors of at most 3 days, and this roll's is 7/],
  ])("out of its bounds, %s: proposed with coversRoll's reason", async (_, terms, r, reason) => {
    const w = await world();
    const instruction = await w.approvedOne(terms);
    const cover = await w.ask(r);
    expect(cover).toEqual({ ok: false, reason: expect.stringMatching(reason) });
    expect((cover as { reason: string }).reason).toMatch(
      new RegExp(`^Roll instruction ${instruction.id} .*: this roll needs a new approval\\.$`),
    );
  });

  it("within its bounds at a cent of its most and at its most tenor: covered", async () => {
    const w = await world();
    await w.approvedOne({ maxPerHedgeUsd: 500_000, maxTenor: 7 });
    expect((await w.ask(rows(250_000, 7, 250_000))).ok).toBe(true);
    expect((await w.ask(rows(250_000, 7, 250_000.01))).ok).toBe(false);
  });

  it("a tenor shorter than 7 that the rule gave, within its most: covered; an Add of no known amount, or the market typed in lower case over its amount: not covered, the instruction named", async () => {
    const w = await world();
    const instruction = await w.approvedOne({ maxPerHedgeUsd: 400_000, maxTenor: 3 });
    expect(await w.ask(rows(100_000, 3))).toMatchObject({ ok: true, instruction: instruction.id });
    const unknownAdd = rows(100_000, 3, 1);
    unknownAdd[1].notional = null;
    expect(await w.ask(unknownAdd)).toEqual({ ok: false, reason: expect.stringMatching(/cannot cover a notional of NaN/) });
    expect(await w.ask(rows(500_000, 3), "buy", "usdtngn")).toEqual({
      ok: false,
      reason: expect.stringMatching(new RegExp(`^Roll instruction ${instruction.id} allows at most 400,000.00 USD per hedge`)),
    });
  });

  it("after its Until: proposed, it ended", async () => {
    const w = await world();
    await w.approvedOne({ until: "2026-11-30T17:00:00Z" });
    w.at(MATURITY - 1);
    expect((await w.ask(rows(100_000))).ok).toBe(true);
    w.at(MATURITY);
    expect(await w.ask(rows(100_000))).toEqual({ ok: false, reason: expect.stringMatching(/ended at 2026-11-30T17:00:00.000Z/) });
  });

  it("revoked (logged): proposed, naming who revoked it, and an older approved one of the side still covers", async () => {
    const w = await world();
    const older = await w.approvedOne({ maxPerHedgeUsd: 200_000 });
    const newer = await w.approvedOne();
    expect(await w.ask(rows(500_000))).toMatchObject({ ok: true, instruction: newer.id });
    await w.flow.revoke(newer.id, PREPARER, "desk closed");
    // The approved older one names the bound (its amount), not the revoked newer one.
    expect(await w.ask(rows(500_000))).toEqual({
      ok: false,
      reason: expect.stringMatching(new RegExp(`^Roll instruction ${older.id} allows at most 200,000.00`)),
    });
    expect(await w.ask(rows(150_000))).toMatchObject({ ok: true, instruction: older.id });
    await w.flow.revoke(older.id, APPROVER);
    expect(await w.ask(rows(150_000))).toEqual({
      ok: false,
      reason: expect.stringMatching(new RegExp(`^Roll instruction (${older.id}|${newer.id}) was revoked by fp-[0-9a-f]{16} at `)),
    });
  });

  it("pending (not approved by a second key): proposed, saying so", async () => {
    const w = await world();
    const submitted = await w.flow.submit(
      { market: "USDTNGN", side: "buy", until: "2026-12-05T00:00:00Z", maxPerHedgeUsd: 1_000_000, maxTenor: 7 },
      PREPARER,
      PLACE,
    );
    expect(await w.ask(rows(100_000))).toEqual({
      ok: false,
      reason: `Roll instruction ${submitted.id} is pending, not approved by a second key: this roll needs a new approval.`,
    });
  });

  it("another environment or account than the desk's, a read-only key, no connection: not covered, with the reason", async () => {
    let place: typeof PLACE | null = { ...PLACE, account: "0x00000000000000000000000000000000000000bb" };
    let readOnly = false;
    const w = await world({ place: () => place, readOnly: () => readOnly });
    await w.approvedOne();
    expect(await w.ask(rows(100_000))).toEqual({ ok: false, reason: expect.stringMatching(/was approved for sandbox account 0x0+aa/) });
    place = PLACE;
    expect((await w.ask(rows(100_000))).ok).toBe(true);
    readOnly = true;
    expect(await w.ask(rows(100_000))).toEqual({ ok: false, reason: "this key is read only" });
    readOnly = false;
    place = null;
    expect(await w.ask(rows(100_000))).toEqual({ ok: false, reason: "the pane is not connected" });
  });
});
