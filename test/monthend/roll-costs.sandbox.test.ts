// Month end over a program of rolls run on the sandbox's clock, over HTTP (issue 39 item 9): settlements at maturity are no difference, each roll is listed with its cost (fees, carry, exit impact) and its gap, and the side's program cost stands beside what =HEDGE.ROLLCOST quotes for it; the sheet holds them as plain values.
import type { HedgingClient } from "../../src/api/client";
import type { Hedge } from "../../src/api/schemas";
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MemorySheetWriter } from "../../src/excel/recon-sheet";
import { PROGRAM_NOTE } from "../../src/monthend/recon-layout";
import { reconcileMonth } from "../../src/monthend/run-month-end";
import { logRow } from "../support/builders";
import { cents, FILL_MS, HOUR, DAY, programAccount, programSandbox } from "../support/program";
import { rollcostCell } from "../functions/rollcost-cell";

jest.setTimeout(60_000);

const KEY = "svc_test_monthend_rolls_1";
const ADDRESS = "0x00000000000000000000000000000000000000d4";
const NOTIONAL = 200_000;

const program = programSandbox(5, [programAccount(KEY, ADDRESS)]);
let client: HedgingClient;
beforeAll(() => {
  client = program.client(KEY);
});

/** Opens and waits out the fill on the sandbox's clock; the hedge as filled. */
async function open(reference: string, tenor: 1 | 3 | 7): Promise<Hedge> {
  const opened = await client.open({
    market: "USDTNGN",
    side: "buy",
    notional_usd: NOTIONAL,
    tenor_days: tenor,
    client_reference: reference,
  });
  program.sandbox.clock.advance(FILL_MS);
  return (await client.get(opened.data.hedge_id!)).data;
}

test("a month of rolls: maturities are no difference; each end with its cost and gap; the program beside ROLLCOST's quote", async () => {
  // A 7-day hedge held to maturity, the next opened an hour later; that one closed early after 3 days and rolled at once
  // into a 1-day hedge, held to its maturity; generated an hour after it.
  const h1 = await open("P-1", 7);
  program.sandbox.clock.advance(7 * DAY + HOUR - FILL_MS); // h1 settles at its maturity on the way
  const h2 = await open("P-2", 7);
  program.sandbox.clock.advance(3 * DAY);
  await client.close({ market: "USDTNGN", side: "buy" });
  program.sandbox.clock.advance(FILL_MS);
  const h3 = await open("P-3", 1);
  program.sandbox.clock.advance(DAY + HOUR);
  const generatedAt = program.sandbox.clock.now();
  const history = (await client.history({ limit: 50 })).data;
  expect(history.map((r) => [r.hedge_id, r.exit_type])).toEqual([
    [h3.id, "maturity"],
    [h2.id, "close"],
    [h1.id, "maturity"],
  ]);

  // The Hedge Log as the desk wrote it: the three Opens filled and h2's Close; nothing records a settlement at maturity.
  const row = (h: Hedge, over = {}) =>
    logRow({
      environment: "sandbox",
      account: ADDRESS,
      hedgeId: h.id,
      clientReference: h.client_reference,
      notional: NOTIONAL,
      tenor: h.tenor_days,
      loggedAt: h.opened_at ?? undefined,
      sentAt: h.opened_at,
      filledAt: h.filled_at,
      fillTxHash: h.fill_tx_hash,
      orderTxHash: h.order_tx_hash,
      struckRate: h.struck_rate,
      ...over,
    });
  const closedAt = history[1].closed_at;
  const log = [row(h1), row(h2), row(h2, { action: "close", notional: null, tenor: null, status: "closed", loggedAt: closedAt }), row(h3)];
  const workbook = new MemoryWorkbook();
  const { reconciliation: recon, sheet } = await reconcileMonth(
    { client, readLog: async () => log, writer: new MemorySheetWriter(workbook), now: () => generatedAt },
    "2026-11",
  );

  // Two settlements at maturity the log never records: no difference (each was "Status disagrees" before).
  expect(recon.differences).toEqual([]);

  // Each end with its gap: an hour (and the next Open's fill) after h1's maturity, the Close's seconds, then flat.
  const ms = (iso: string | null | undefined) => Date.parse(iso as string);
  expect(recon.sideTime.map((e) => [e.hedgeId, e.endedBy, e.kind, e.next?.hedgeId ?? null, e.gapMs])).toEqual([
    [h1.id, "maturity", "roll", h2.id, ms(h2.filled_at) - ms(h1.maturity_at)],
    [h2.id, "close", "roll", h3.id, ms(h3.filled_at) - ms(closedAt)],
    [h3.id, "maturity", "unhedged", null, generatedAt - ms(h3.maturity_at)],
  ]);
  expect(recon.sideTime[0].gapMs).toBe(HOUR + FILL_MS);

  // Each end's cost: its record's fees and carry (paid: positive), the early close's exit impact as the sandbox quotes
  // it for that size now, 0 at maturity (settled at mid); the cost their sum.
  const exit = (await client.quote({ market: "USDTNGN", side: "buy", notional_usd: NOTIONAL, tenor_days: 7 })).data;
  const recordOf = (id: string) => history.find((r) => r.hedge_id === id)!;
  const expected = [h1, h2, h3].map((h) => {
    const r = recordOf(h.id);
    const exitImpact = h === h2 ? -exit.pricing.price_impact_usd : 0;
    return { sizeUsd: NOTIONAL, feesUsd: r.fees_usd, carryUsd: -r.carry_usd, exitImpactUsd: exitImpact };
  });
  expect(recon.sideTime.map((e) => e.cost && { ...e.cost, costUsd: undefined })).toEqual(
    expected.map((c) => ({ ...c, costUsd: undefined })),
  );
  expect(expected[1].exitImpactUsd).toBeGreaterThan(0);
  expect(expected.every((c) => c.feesUsd > 0 && c.carryUsd !== 0)).toBe(true);
  recon.sideTime.forEach((e, i) => {
    const c = expected[i];
    expect(cents(e.cost!.costUsd!)).toBe(cents(c.feesUsd) + cents(c.carryUsd) + cents(c.exitImpactUsd));
  });

  // The program: buy, 3 hedges, from h1's fill to h3's maturity (11 days), the first size, tenor 7, early (h2 closed
  // early and rolled); realized the three costs; beside it =HEDGE.ROLLCOST("USDTNGN","buy",200000,11,7,"early",24) as
  // a cell shows it now: its fees + carry + exit impact (its entry impact left out, as in the realized).
  const cell = await rollcostCell({ apiKey: KEY, baseUrl: program.sandbox.baseUrl }, NOTIONAL, 11, "early", 24);
  expect(recon.programs).toEqual([
    {
      market: "USDTNGN",
      side: "buy",
      hedges: 3,
      fromMs: ms(h1.filled_at),
      toMs: ms(h3.maturity_at),
      days: 11,
      notionalUsd: NOTIONAL,
      tenor: 7,
      mode: "early",
      realizedUsd: expect.any(Number),
      quotedUsd: expect.any(Number),
      quotedHedges: cell.hedges,
    },
  ]);
  const [side] = recon.programs;
  expect(cents(side.realizedUsd!)).toBe(recon.sideTime.reduce((s, e) => s + cents(e.cost!.costUsd!), 0));
  expect(cents(side.quotedUsd!)).toBe(
    cents(cell.fees_usdc as number) + cents(cell.carry_usdc as number) - cents(cell.exit_impact_usd as number),
  );

  // On the sheet: the cost columns of each end, the program line beside ROLLCOST's, the note saying what is compared.
  const grid = workbook.cells(sheet.name);
  const head = grid.findIndex((r) => r[0] === "Market" && r.includes("Cost (USD)"));
  const cost = grid[head].indexOf("Cost (USD)");
  expect(grid.slice(head + 1, head + 4).map((r) => cents(r[cost] as number))).toEqual(recon.sideTime.map((e) => cents(e.cost!.costUsd!)));
  const programHead = grid.findIndex((r) => r[0] === "Program cost");
  expect(grid[programHead + 1].slice(0, 3)).toEqual(["USDTNGN", "buy", 3]);
  expect(grid[programHead + 1][grid[programHead].indexOf("ROLLCOST quotes (USD)")]).toBe(side.quotedUsd);
  expect(grid[programHead + 2].slice(0, 2)).toEqual(["Note", PROGRAM_NOTE]);
  for (const r of grid) for (const v of r) expect(String(v).startsWith("=")).toBe(false);
});

test("without quotes (a client that cannot quote, or refuses), the costs that need one read 'not known'; the rest stand", async () => {
  await open("Q-1", 3);
  program.sandbox.clock.advance(HOUR);
  await client.close({ market: "USDTNGN", side: "buy" });
  program.sandbox.clock.advance(FILL_MS);
  const now = program.sandbox.clock.now();
  const history = (await client.history({ limit: 5 })).data;
  const refusing = Object.assign(Object.create(client) as HedgingClient, {
    quote: async () => {
      throw new Error("quotes down");
    },
  });
  const workbook = new MemoryWorkbook();
  const { reconciliation: recon, sheet } = await reconcileMonth(
    { client: refusing, readLog: async () => [], writer: new MemorySheetWriter(workbook), now: () => now },
    "2026-11",
  );
  expect(recon.sideTime.map((e) => e.cost)).toEqual([
    { sizeUsd: NOTIONAL, feesUsd: history[0].fees_usd, carryUsd: -history[0].carry_usd, exitImpactUsd: null, costUsd: null },
  ]);
  expect(recon.programs.map((p) => [p.mode, p.realizedUsd, p.quotedUsd])).toEqual([["at maturity", null, null]]);
  const grid = workbook.cells(sheet.name);
  const head = grid.findIndex((r) => r[0] === "Market" && r.includes("Cost (USD)"));
  expect(grid[head + 1][grid[head].indexOf("Exit impact (USD)")]).toBe("not known");
  const programHead = grid.findIndex((r) => r[0] === "Program cost");
  expect(grid[programHead + 1][grid[programHead].indexOf("Realized − quoted (USD)")]).toBe("not known");
});
