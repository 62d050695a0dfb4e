// Properties of the extended hedge-to-target rule: without value dates and without a maturity inside the window it gives exactly the rows of the rule before (a frozen copy); applying a proposal at as_of and proposing again at the same as_of gives nothing; the rows are in trading order.
import fc from "fast-check";
import { readExposures, readHoldings, readPolicy, type InputCell } from "../../src/policy/inputs";
import { propose, type ProposalRow } from "../../src/policy/target";
import { propose as legacyPropose } from "./legacy-target";
import { POLICY_HEADER } from "./policy-header";

const H = 3_600_000;
const D = 24 * H;
const MARKETS = ["USDTAAA", "USDTBBB", "USDTCCC"];
const side = fc.constantFrom("buy", "sell");
const money = fc.integer({ min: 0, max: 300_000_000 }).map((c) => c / 100);
const asOfArb = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) });
const policyArb = fc.record({
  // 0, or 1 % to 100 %: a number between 0 and 1 is refused (a percentage-formatted cell's 0.75 is not 0.75 %).
  ratio: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 100, max: 10_000 }).map((x) => x / 100),
  ),
  tenor: fc.constantFrom(1, 3, 7),
  round: fc.constantFrom(0.01, 1, 1000, 25_000),
  min: fc.constantFrom(0, 500, 10_000, 100_000),
  max: fc.constantFrom("", 100_000, 777_777.77),
  net: fc.constantFrom("yes", "no"),
  roll: fc.constantFrom("", 0, 2, 12.5, 24),
  mode: fc.constantFrom("", "at maturity", "early"),
  days: fc.constantFrom("", "Mon-Fri", "Sun-Thu", "Wed"),
});
type Policy = {
  ratio: number;
  tenor: number;
  round: number;
  min: number;
  max: number | string;
  net: string;
  roll: number | string;
  mode: string;
  days: string;
};
const iso = (ms: number | null) => (ms === null ? "" : new Date(ms).toISOString());

function inputs(
  exposures: [string, string, number, number | null][],
  policy: Policy,
  positions: [string, string, number, number | null][],
) {
  return {
    exposures: readExposures({
      values: [["Market", "Side", "Amount (USD)", "Value date"], ...exposures.map(([m, s, a, d]) => [m, s, a, iso(d)])],
    }),
    policy: readPolicy({
      values: [
        POLICY_HEADER,
        [
          "*",
          policy.ratio,
          policy.tenor,
          policy.round,
          policy.min,
          policy.max,
          policy.net,
          policy.roll,
          policy.mode,
          policy.days,
        ] as InputCell[],
      ],
    }),
    holdings: readHoldings({
      values: [["Market", "Side", "Size (USD)", "Maturity"], ...positions.map(([m, s, a, d]) => [m, s, a, iso(d)])],
    }),
  };
}
const hoursOf = (roll: number | string) => (roll === "" ? 24 : Number(roll));

test("without value dates and without a maturity inside the window: exactly the rows of the rule before", () => {
  const arb = fc.record({
    asOf: asOfArb,
    policy: policyArb.map((p) => ({ ...p, days: "" })), // working days are new: every day is the rule before
    exposures: fc.array(fc.tuple(fc.constantFrom(...MARKETS), side, money), { maxLength: 12 }),
    positions: fc.uniqueArray(
      fc.tuple(fc.constantFrom(...MARKETS), side, money, fc.option(fc.integer({ min: 0, max: 10 * D }), { nil: null })),
      { maxLength: 6, selector: ([m, s]) => `${m}|${s}` },
    ),
  });
  fc.assert(
    fc.property(arb, ({ asOf, policy, exposures, positions }) => {
      const window = hoursOf(policy.roll) * H;
      // Maturities at or after as_of + Roll within: outside the window.
      const held = positions.map(([m, s, a, later]): [string, string, number, number | null] => [
        m,
        s,
        a,
        later === null ? null : asOf + window + later,
      ]);
      const read = inputs(
        exposures.map(([m, s, a]) => [m, s, a, null]),
        policy,
        held,
      );
      const day = iso(asOf).slice(0, 10);
      expect(propose({ ...read, day, asOfMs: asOf })).toEqual(legacyPropose({ ...read, day }));
    }),
    { numRuns: 500 },
  );
});

describe("property: applying a proposal at as_of and proposing again at the same as_of gives nothing, in both roll modes", () => {
  const arb = fc.record({
    asOf: asOfArb,
    policy: policyArb,
    exposures: fc.array(
      fc.tuple(fc.constantFrom(...MARKETS), side, money, fc.option(fc.integer({ min: -2 * D, max: 20 * D }), { nil: null })),
      { maxLength: 12 },
    ),
    positions: fc.uniqueArray(
      fc.tuple(fc.constantFrom(...MARKETS), side, money, fc.option(fc.integer({ min: -5 * H, max: 8 * D }), { nil: null })),
      { maxLength: 6, selector: ([m, s]) => `${m}|${s}` },
    ),
    // Sides the service shows settled at a maturity (before or, never shown by it, after as_of), in both roll modes.
    matured: fc.uniqueArray(fc.tuple(fc.constantFrom(...MARKETS), side, fc.integer({ min: -3 * D, max: D })), {
      maxLength: 6,
      selector: ([m, s]) => `${m}|${s}`,
    }),
  });

  /** What the service would hold once each row filled: an Open's maturity is as_of + its tenor; Adds and Reduces keep it. */
  function apply(before: Map<string, { size: number; maturity: number | null }>, rows: ProposalRow[], asOf: number) {
    const next = new Map(before);
    for (const r of rows) {
      const k = `${r.market}|${r.side}`;
      const now = next.get(k) ?? { size: 0, maturity: null };
      const amount = Math.round((r.amountUsd ?? 0) * 100);
      if (r.action === "open") {
        expect(now.size).toBe(0);
        next.set(k, { size: amount, maturity: asOf + (r.tenor as number) * D });
      } else {
        expect(now.size).toBeGreaterThan(0);
        const size = r.action === "close" ? 0 : r.action === "reduce" ? now.size - amount : now.size + amount;
        next.set(k, { size, maturity: now.maturity });
      }
    }
    return next;
  }

  /** Trading order: closes and reduces, then opens and adds; each by market A to Z, buy before sell; a side's rows numbered in sequence. */
  function expectTradingOrder(rows: ProposalRow[]) {
    const key = (r: ProposalRow) => `${r.action === "close" || r.action === "reduce" ? 0 : 1}|${r.market}|${r.side === "buy" ? 0 : 1}`;
    const keys = rows.map(key);
    expect(keys).toEqual([...keys].sort());
    for (let i = 1; i < rows.length; i++) {
      if (keys[i] !== keys[i - 1]) continue;
      const n = (r: ProposalRow) => Number(r.clientReference.split("-").pop());
      expect(n(rows[i])).toBe(n(rows[i - 1]) + 1);
      expect(rows[i].action).not.toBe("open");
    }
  }

  test("for random dated exposures, policies, positions with maturities and as_of", () => {
    fc.assert(
      fc.property(arb, ({ asOf, policy, exposures, positions, matured: settled }) => {
        const matured = settled.map(([market, s, at]) => ({ market, side: s as "buy" | "sell", maturedAtMs: asOf + at }));
        const dated = exposures.map(([m, s, a, d]): [string, string, number, number | null] => [m, s, a, d === null ? null : asOf + d]);
        const held = positions.map(([m, s, a, d]): [string, string, number, number | null] => [m, s, a, d === null ? null : asOf + d]);
        const day = iso(asOf).slice(0, 10);
        const rows = propose({ ...inputs(dated, policy, held), matured, day, asOfMs: asOf });
        expectTradingOrder(rows);
        for (const r of rows) {
          if (r.action === "open") expect([1, 3, 7]).toContain(r.tenor);
          if (r.action === "open") expect(r.tenor).toBeLessThanOrEqual(policy.tenor);
          if (policy.max !== "" && r.amountUsd !== null) expect(r.amountUsd).toBeLessThanOrEqual(Number(policy.max));
        }
        const before = new Map(held.map(([m, s, a, d]) => [`${m}|${s}`, { size: Math.round(a * 100), maturity: d }]));
        const after = apply(before, rows, asOf);
        const again = [...after]
          .filter(([, h]) => h.size > 0)
          .map(([k, h]): [string, string, number, number | null] => [...(k.split("|") as [string, string]), h.size / 100, h.maturity]);
        expect(propose({ ...inputs(dated, policy, again), matured, day, asOfMs: asOf })).toEqual([]);
        // At maturity, no hedge maturing inside the window is ever closed or reduced (never closed early).
        const window = hoursOf(policy.roll) * H;
        // Early: a roll never opens a hedge that is inside its own window from its opening (no churn).
        for (const r of rows.filter((x) => x.action === "open" && /^ROLL-\d{4}-\d\d-\d\d-/.test(x.clientReference)))
          expect((r.tenor as number) * D).toBeGreaterThan(window);
        if (policy.mode !== "early")
          for (const r of rows.filter((x) => x.action === "close" || x.action === "reduce")) {
            const h = before.get(`${r.market}|${r.side}`);
            expect(h?.maturity === null || (h?.maturity as number) >= asOf + window).toBe(true);
          }
      }),
      { numRuns: 500 },
    );
  });
});
