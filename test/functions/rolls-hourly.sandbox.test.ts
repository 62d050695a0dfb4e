// The analyst's way against the sandbox on its clock (issue 39): HEDGE.TARGET's rule (live positions and closed hedges, as the function reads them) evaluated every hour and its rows traded in order, each final before the next, for a 30- and a 90-day program: at maturity no early close, no more hedges than =HEDGE.ROLLCOST counts and fees + carry within 0.5 % of it; early, the realized cost with its exit impact within 1 % of ROLLCOST(…, "early", w).
import { rollcostCell } from "./rollcost-cell";
import type { HedgingClient } from "../../src/api/client";
import { serviceHoldings, serviceMatured } from "../../src/policy/inputs";
import { proposalAt } from "../../src/policy/proposal";
import { DAY, FILL_MS, HOUR, programAccount, programModel, programSandbox, realized, toNextHour } from "../support/program";

jest.setTimeout(240_000);

const KEY = "svc_test_rolls_key_0001";
const program = programSandbox(7, [programAccount(KEY, "0x00000000000000000000000000000000000000b2")]);

/** Runs the program hour by hour; returns what the service realized. */
async function runHourly(client: HedgingClient, notional: number, days: number, roll: string, rollWithin: number) {
  const { sandbox } = program;
  const start = toNextHour(sandbox.clock);
  const { exposures, policy } = programModel(notional, start + days * DAY, { roll, rollWithinHours: rollWithin });
  let opens = 0;
  let entryImpact = 0;
  let exitImpact = 0;
  for (let hour = 0; hour <= days * 24 + 48; hour++) {
    sandbox.clock.advance(start + hour * HOUR - sandbox.clock.now()); // the sandbox settles what matured on the way
    const [positions, history] = await Promise.all([client.positions(), client.history()]);
    const { rows } = proposalAt(
      { exposures, policy, holdings: serviceHoldings(positions.data), matured: serviceMatured(history.data) },
      sandbox.clock.now(),
    );
    for (const row of rows) {
      // One row at a time, each final before the next (the pane's order: the Close before the Open).
      if (row.action === "open") {
        const opened = await client.open({
          market: row.market,
          side: row.side,
          notional_usd: row.amountUsd as number,
          tenor_days: row.tenor as 1 | 3 | 7,
          client_reference: row.clientReference,
        });
        entryImpact += -opened.data.quote.pricing.price_impact_usd;
        opens++;
      } else if (row.action === "close") {
        const mid = (await client.quote({ market: row.market, side: row.side, notional_usd: row.currentUsd, tenor_days: 1 })).data;
        await client.close({ market: row.market, side: row.side });
        sandbox.clock.advance(FILL_MS);
        const closed = (await client.history({ limit: 1 })).data[0];
        // The exit's price impact: the close's price against the mid of its second, as a cost in USD.
        exitImpact += (Math.abs(closed.exit_price - mid.pricing.market_price) / mid.pricing.market_price) * closed.size_usd;
        continue;
      } else throw new Error(`unexpected ${row.action} in a one-exposure program: ${row.reason}`);
      sandbox.clock.advance(FILL_MS);
    }
  }
  const history = (await client.history({ limit: 500 })).data;
  const { feesUsd, carryUsd } = realized(history);
  return {
    opens,
    history,
    fees: feesUsd,
    carry: carryUsd, // positive: paid
    entryImpact,
    exitImpact,
    open: (await client.positions()).data,
  };
}

test.each([
  [1_000_000, 30, 24],
  [1_000_000, 90, 24],
  [1_000_000, 30, 2],
])(
  "at maturity, %d USD for %d days, Roll within %d, looked at every hour: no early close, no more hedges than ROLLCOST counts, fees + carry ≤ ROLLCOST × 1.005",
  async (notional, days, w) => {
    const client = program.client(KEY);
    const cost = await rollcostCell({ apiKey: KEY, baseUrl: program.sandbox.baseUrl }, notional, days, "at maturity", w);
    const run = await runHourly(client, notional, days, "at maturity", w);
    expect(run.open).toEqual([]);
    expect(run.history.map((r) => r.exit_type).filter((t) => t !== "maturity")).toEqual([]); // never closed early
    expect(run.opens).toBeLessThanOrEqual(cost.hedges as number);
    expect(run.fees + run.carry).toBeLessThanOrEqual(((cost.fees_usdc as number) + (cost.carry_usdc as number)) * 1.005);
    expect(run.exitImpact).toBe(0);
  },
);

test.each([
  [1_000_000, 30, 2],
  [1_000_000, 30, 24],
  [1_000_000, 90, 12],
])(
  'early, %d USD for %d days, Roll within %d, looked at every hour: ROLLCOST(…, "early", w) within 1 %% of the realized cost with its exit impact; no churn',
  async (notional, days, w) => {
    const client = program.client(KEY);
    const cost = await rollcostCell({ apiKey: KEY, baseUrl: program.sandbox.baseUrl }, notional, days, "early", w);
    const run = await runHourly(client, notional, days, "early", w);
    expect(run.open).toEqual([]);
    expect(run.opens).toBe(cost.hedges);
    const realized = run.fees + run.carry + run.entryImpact + run.exitImpact;
    expect(Math.abs(realized - (cost.total_usd as number))).toBeLessThanOrEqual(Math.abs(cost.total_usd as number) * 0.01);
    expect(run.history.filter((r) => r.exit_type === "close")).toHaveLength(cost.early_closes as number);
  },
);
