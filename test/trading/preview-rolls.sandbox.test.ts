// A roll's preview against the sandbox over HTTP (issue 39 item 4): the Close's exit impact is the sandbox's quote of the position at its tenor, the fee pair is the position's closing fee and the Open's quoted platform fee, "this roll costs" their sum to the cent, Total notional counts the roll once; the Close then made realizes that exit impact.
import type { HedgingClient } from "../../src/api/client";
import { buildPreview, type PreviewContext } from "../../src/trading/preview";
import type { TradeRow } from "../../src/trading/types";
import { rollNotes, sendPlan } from "../../src/taskpane/trade-model";
import { FILL_MS, programAccount, programSandbox } from "../support/program";

jest.setTimeout(60_000);

const KEY = "svc_test_preview_rolls_01";
const ADDRESS = "0x00000000000000000000000000000000000000c3";
const program = programSandbox(11, [programAccount(KEY, ADDRESS)]);
let client: HedgingClient;
beforeAll(() => {
  client = program.client(KEY);
});

const ctx = (): PreviewContext => ({
  client,
  environment: "sandbox",
  account: ADDRESS,
  readLog: async () => [],
  known: () => [],
  busySides: () => new Map(),
  concurrency: 2,
  now: () => new Date(program.sandbox.clock.now()),
});
const row = (rowNumber: number, over: Partial<TradeRow>): TradeRow => ({
  rowNumber,
  action: "open",
  market: "USDTNGN",
  side: "buy",
  notional: null,
  tenor: null,
  clientReference: null,
  ...over,
});
const cents = (x: number) => Math.round(x * 100) / 100;

test("a roll's preview: exit impact from the sandbox's quote, the fee pair, one cost to the cent, the notional counted once; the Close realizes that impact", async () => {
  await client.open({ market: "USDTNGN", side: "buy", notional_usd: 200_000, tenor_days: 1, client_reference: "OLD-1" });
  program.sandbox.clock.advance(FILL_MS);
  const rows = [
    row(2, { action: "close" }),
    row(3, { notional: 250_000, tenor: 7, clientReference: "ROLL-1" }),
    row(4, { action: "add", notional: 100_000 }),
  ];
  const preview = await buildPreview(ctx(), "column", rows);
  expect(preview.lines.map((l) => l.blockers)).toEqual([[], [], []]);

  // What the sandbox quotes at the same instant (its clock stands still): the exit of the whole position at its tenor, the Open.
  const exit = (await client.quote({ market: "USDTNGN", side: "buy", notional_usd: 200_000, tenor_days: 1 })).data;
  const open = (await client.quote({ market: "USDTNGN", side: "buy", notional_usd: 250_000, tenor_days: 7 })).data;
  const position = (await client.positions()).data[0];
  expect(exit.pricing.price_impact_usd).toBeLessThan(0);
  const expected = {
    market: "USDTNGN",
    side: "buy",
    closeRow: 2,
    openRow: 3,
    exitImpactUsd: cents(-exit.pricing.price_impact_usd),
    closeFeeUsd: cents(position.closing_fee_usd),
    openFeeUsdc: cents(open.upfront.platform_fee_usdc),
    costUsd: cents(-exit.pricing.price_impact_usd + position.closing_fee_usd + open.upfront.platform_fee_usdc),
  };
  expect(preview.rolls).toEqual([expected]);
  expect(expected.closeFeeUsd).toBeGreaterThan(0);
  expect(expected.openFeeUsdc).toBeGreaterThan(0);
  // The pane's lines for it: the exit impact, the fee pair, one cost.
  const usd = (x: number) => x.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  expect(rollNotes(preview)).toEqual([
    {
      title: "Roll USDTNGN buy: Close (row 2), then Open (row 3)",
      lines: [
        `Exit impact of the Close: ${usd(expected.exitImpactUsd)} USD`,
        `Fees: ${usd(expected.closeFeeUsd)} USD (Close) + ${usd(expected.openFeeUsdc)} USDC (Open)`,
      ],
      cost: `This roll costs ${usd(expected.costUsd)} USD.`,
    },
  ]);
  // Total notional: the roll once (the Open and its Add), not the closed hedge's 200,000 beside it; the same in the send plan.
  expect(preview.totals.notionalUsd).toBe(350_000);
  expect(sendPlan(preview, new Set()).notional).toBe(350_000);
  expect(preview.quoteRequests).toBe(3); // the Open, the Add, the roll's exit

  // Made: the Close's fill pays that impact against the mid of its instant, to a few cents (the quote's impact is
  // measured from the execution price back to mid, the exit from mid down to the execution price).
  await client.close({ market: "USDTNGN", side: "buy" });
  program.sandbox.clock.advance(FILL_MS);
  const closed = (await client.history({ limit: 1 })).data[0];
  const mid = program.sandbox.engine.midAt("USDTNGN", Date.parse(closed.closed_at));
  const realized = ((mid - closed.exit_price) / mid) * closed.size_usd;
  expect(Math.abs(realized - (expected.exitImpactUsd as number))).toBeLessThanOrEqual(0.05);
});

test("a Close alone, or a Close and an Open of the other side, is no roll: no roll lines, every notional counted", async () => {
  await client.open({ market: "USDTNGN", side: "buy", notional_usd: 200_000, tenor_days: 3, client_reference: "OLD-2" });
  program.sandbox.clock.advance(FILL_MS);
  const alone = await buildPreview(ctx(), "close", [row(2, { action: "close" })]);
  expect(alone.rolls).toEqual([]);
  expect(alone.totals.notionalUsd).toBe(200_000);
  const other = await buildPreview(ctx(), "column", [
    row(2, { action: "close" }),
    row(3, { side: "sell", notional: 50_000, tenor: 7, clientReference: "S-1" }),
  ]);
  expect(other.rolls).toEqual([]);
  expect(other.totals.notionalUsd).toBe(250_000);
  expect(other.quoteRequests).toBe(1);
});
