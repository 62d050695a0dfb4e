// A hedging program held to each maturity against the sandbox and its clock (issue 32): Propose opens each hedge of one dated exposure, the clock is advanced to its maturity, and the fees and carry the service realized equal =HEDGE.ROLLCOST's to the cent; 90 days run in seconds.
import { rollcostCell } from "./rollcost-cell";
import type { HedgingClient } from "../../src/api/client";
import type { Position } from "../../src/api/schemas";
import { readExposures, readHoldings, readPolicy } from "../../src/policy/inputs";
import { propose, utcDay } from "../../src/policy/target";
import { cents, DAY, FILL_MS, programAccount, programSandbox } from "../support/program";

const KEY = "svc_test_program_key_0001";
const program = programSandbox(11, [
  programAccount(KEY, "0x00000000000000000000000000000000000000a1", { balance_usdc: 1_000_000, max_exposure_usd: 2_000_000 }),
]);

const POLICY = [
  ["Market", "Hedge ratio (%)", "Tenor (days)", "Round to (USD)", "Min trade (USD)", "Max trade (USD)", "Net sides"],
  ["*", 100, 7, 1_000, 10_000, 1_000_000, "no"],
];

/** What the pane's Propose does (src/policy/proposal.ts): the model, the policy and the live positions at the instant now. */
function proposal(notional: number, valueDateMs: number, positions: readonly Position[], nowMs: number) {
  return propose({
    exposures: readExposures({
      values: [
        ["Market", "Side", "Amount (USD)", "Value date"],
        ["USDTNGN", "buy", notional, new Date(valueDateMs).toISOString()],
      ],
    }),
    policy: readPolicy({ values: POLICY }),
    holdings: readHoldings({
      values: [["Market", "Side", "Size", "Maturity"], ...positions.map((p) => [p.market, p.side, p.size_usd, p.maturity_at])],
    }),
    day: utcDay(new Date(nowMs)),
    asOfMs: nowMs,
  });
}

/** Runs the program: Propose, open what it says, fill, advance the clock to the maturity; until Propose says nothing. */
async function holdToEachMaturity(client: HedgingClient, notional: number, days: number) {
  const start = program.sandbox.clock.now();
  const valueDate = start + days * DAY;
  const tenors: number[] = [];
  for (let round = 0; round < 100; round++) {
    const now = program.sandbox.clock.now();
    const rows = proposal(notional, valueDate, (await client.positions()).data, now);
    if (rows.length === 0) break;
    expect(rows.map((r) => r.action)).toEqual(["open"]);
    const [row] = rows;
    const opened = await client.open({
      market: row.market,
      side: row.side,
      notional_usd: row.amountUsd as number,
      tenor_days: row.tenor as 1 | 3 | 7,
      client_reference: row.clientReference,
    });
    tenors.push(row.tenor as number);
    program.sandbox.clock.advance(FILL_MS);
    expect((await client.get(opened.data.hedge_id as string)).data.status).toBe("filled");
    // To the maturity: the sandbox settles it there, at its own time.
    program.sandbox.clock.advance(Date.parse(String(opened.data.maturity_at)) - program.sandbox.clock.now());
    expect((await client.positions()).data).toEqual([]);
  }
  return { tenors, start };
}

test.each([
  [1_000_000, 30, [7, 7, 7, 7, 1, 1]],
  [1_000_000, 90, [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 3, 3]],
])(
  "%d USD for %d days held to each maturity: the tenors Propose chose are ROLLCOST's, and the realized fees and carry equal its fees and carry to the cent",
  async (notional, days, expectedTenors) => {
    const client = program.client(KEY);
    const began = Date.now();
    const { tenors, start } = await holdToEachMaturity(client, notional, days);
    const tookMs = Date.now() - began;
    expect(tenors).toEqual(expectedTenors);

    const history = (await client.history({ limit: 500 })).data;
    expect(history).toHaveLength(expectedTenors.length);
    expect(history.every((r) => r.exit_type === "maturity")).toBe(true);
    // Each hedge opened at the maturity of the one before: the last matures on the value date.
    expect(Math.max(...history.map((r) => Date.parse(r.closed_at)))).toBe(start + days * DAY);

    const cost = await rollcostCell({ apiKey: KEY, baseUrl: program.sandbox.baseUrl }, notional, days);
    expect(cost.hedges).toBe(expectedTenors.length);
    const realizedFees = history.reduce((s, r) => s + cents(r.fees_usd), 0);
    const realizedCarry = history.reduce((s, r) => s + cents(r.carry_usd), 0);
    expect(realizedFees).toBeGreaterThan(0);
    expect(realizedCarry).toBeLessThan(0);
    expect(realizedFees).toBe(cents(cost.fees_usdc as number));
    // The history's carry is P&L (negative when paid); ROLLCOST's is the quote's, positive when paid.
    expect(realizedCarry).toBe(-cents(cost.carry_usdc as number));
    // A 90-day program runs in seconds on the sandbox's clock.
    expect(tookMs).toBeLessThan(20_000);
  },
);
