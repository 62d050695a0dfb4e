// The roll modes and the rule per side (issue 39): at maturity a maturing side is left to settle and opened anew once settled, early mode never opens a hedge inside its own window, a paid-up side settles, one side's proposal, and the working days of the tenor rule; a table of cases.
import { readExposures, readHoldings, readPolicy, serviceMatured, weekdaysOf, type Matured } from "../../src/policy/inputs";
import { propose, type ProposalRow } from "../../src/policy/target";
import { tenorFor } from "../../src/policy/tenor";
import { POLICY_HEADER } from "./policy-header";

const H = 3_600_000;
const D = 24 * H;
const AS_OF = Date.UTC(2026, 10, 25, 12); // Wednesday 2026-11-25 12:00 UTC
const iso = (ms: number) => new Date(ms).toISOString();

type Pol = {
  ratio?: number;
  tenor?: number;
  min?: number;
  max?: number | string;
  net?: string;
  within?: number | string;
  roll?: string;
  days?: string;
};
type Exp = [string, string, number, number?];
type Pos = [string, string, number, number?];

function run(
  exposures: Exp[],
  policy: Pol,
  positions: Pos[] = [],
  options: { matured?: Matured[]; only?: { market: string; side: "buy" | "sell" }; asOf?: number } = {},
) {
  const p = policy;
  const asOf = options.asOf ?? AS_OF;
  return propose({
    exposures: readExposures({
      values: [
        ["Market", "Side", "Amount (USD)", "Value date"],
        ...exposures.map(([m, s, a, d]) => [m, s, a, d === undefined ? "" : iso(d)]),
      ],
    }),
    policy: readPolicy({
      values: [
        POLICY_HEADER,
        ["*", p.ratio ?? 100, p.tenor ?? 7, 1_000, p.min ?? 0, p.max ?? "", p.net ?? "yes", p.within ?? "", p.roll ?? "", p.days ?? ""],
      ],
    }),
    holdings: readHoldings({
      values: [["Market", "Side", "Size (USD)", "Maturity"], ...positions.map(([m, s, a, d]) => [m, s, a, d === undefined ? "" : iso(d)])],
    }),
    matured: options.matured,
    only: options.only,
    day: iso(asOf).slice(0, 10),
    asOfMs: asOf,
  });
}

/** "open USDTNGN buy 600000 7d ROLL-…-1" */
const brief = (r: ProposalRow) =>
  [r.action, r.market, r.side, r.amountUsd ?? "", r.tenor ? `${r.tenor}d` : "", r.clientReference].filter((x) => x !== "").join(" ");

describe("roll modes, case by case (as_of Wednesday 2026-11-25 12:00 UTC)", () => {
  test.each<[string, Exp[], Pol, Pos[], Matured[], string[]]>([
    [
      "at maturity (the default): a side maturing inside the window is left to settle, never closed early",
      [["USDTNGN", "buy", 600_000]],
      {},
      [["USDTNGN", "buy", 600_000, AS_OF + 5 * H]],
      [],
      [],
    ],
    [
      "at maturity: the target grew, the side still matures inside the window: no Add to a hedge about to settle",
      [["USDTNGN", "buy", 900_000]],
      {},
      [["USDTNGN", "buy", 600_000, AS_OF + 5 * H]],
      [],
      [],
    ],
    [
      "at maturity: the maturity passed but the service still shows it open: left to settle",
      [["USDTNGN", "buy", 600_000]],
      {},
      [["USDTNGN", "buy", 600_000, AS_OF - H]],
      [],
      [],
    ],
    [
      "at maturity: settled (nothing open, its hedge matured): the roll's Open, named by the maturity",
      [["USDTNGN", "buy", 600_000]],
      {},
      [],
      [{ market: "USDTNGN", side: "buy", maturedAtMs: AS_OF - H }],
      ["open USDTNGN buy 600000 7d ROLL-2026-11-25T11:00Z-USDTNGN-BUY-1"],
    ],
    [
      "a settled side split by Max trade: the roll's Open then Adds, all named by the maturity",
      [["USDTNGN", "buy", 600_000]],
      { max: 250_000 },
      [],
      [{ market: "USDTNGN", side: "buy", maturedAtMs: AS_OF - H }],
      [
        "open USDTNGN buy 250000 7d ROLL-2026-11-25T11:00Z-USDTNGN-BUY-1",
        "add USDTNGN buy 250000 ROLL-2026-11-25T11:00Z-USDTNGN-BUY-2",
        "add USDTNGN buy 100000 ROLL-2026-11-25T11:00Z-USDTNGN-BUY-3",
      ],
    ],
    [
      "a settled side whose target is now 0: nothing to open",
      [["USDTNGN", "buy", 0]],
      {},
      [],
      [{ market: "USDTNGN", side: "buy", maturedAtMs: AS_OF - H }],
      [],
    ],
    [
      "settled at the very instant of as_of: the roll's Open",
      [["USDTNGN", "buy", 600_000]],
      {},
      [],
      [{ market: "USDTNGN", side: "buy", maturedAtMs: AS_OF }],
      ["open USDTNGN buy 600000 7d ROLL-2026-11-25T12:00Z-USDTNGN-BUY-1"],
    ],
    [
      "a settlement after as_of (a proposal as of an earlier time) is no roll yet",
      [["USDTNGN", "buy", 600_000]],
      {},
      [],
      [{ market: "USDTNGN", side: "buy", maturedAtMs: AS_OF + H }],
      ["open USDTNGN buy 600000 7d TARGET-2026-11-25-USDTNGN-BUY-1"],
    ],
    [
      "settled, then opened again (a hedge held since): the rule's rows, not a roll's",
      [["USDTNGN", "buy", 600_000]],
      {},
      [["USDTNGN", "buy", 400_000, AS_OF + 5 * D]],
      [{ market: "USDTNGN", side: "buy", maturedAtMs: AS_OF - H }],
      ["add USDTNGN buy 200000 TARGET-2026-11-25-USDTNGN-BUY-1"],
    ],
    [
      "two settlements of the side, the newer given first: the roll is named by the newer",
      [["USDTNGN", "buy", 600_000]],
      {},
      [],
      [
        { market: "USDTNGN", side: "buy", maturedAtMs: AS_OF - H },
        { market: "USDTNGN", side: "buy", maturedAtMs: AS_OF - 2 * H },
      ],
      ["open USDTNGN buy 600000 7d ROLL-2026-11-25T11:00Z-USDTNGN-BUY-1"],
    ],
    [
      "a settlement of another side does not rename this side's Open",
      [["USDTNGN", "buy", 600_000]],
      {},
      [],
      [{ market: "USDTNGN", side: "sell", maturedAtMs: AS_OF - H }],
      ["open USDTNGN buy 600000 7d TARGET-2026-11-25-USDTNGN-BUY-1"],
    ],
    [
      "paid-up side (target 0) maturing inside the window: left to settle at mid, not closed for exit impact",
      [["USDTNGN", "buy", 600_000, AS_OF - D]],
      {},
      [["USDTNGN", "buy", 600_000, AS_OF + 2 * H]],
      [],
      [],
    ],
    [
      "paid-up side maturing inside the window, Roll early (the policy says close early): closed",
      [["USDTNGN", "buy", 600_000, AS_OF - D]],
      { roll: "early" },
      [["USDTNGN", "buy", 600_000, AS_OF + 2 * H]],
      [],
      ["close USDTNGN buy TARGET-2026-11-25-USDTNGN-BUY-1"],
    ],
    [
      "paid-up side maturing after the window: closed, as before",
      [["USDTNGN", "buy", 600_000, AS_OF - D]],
      {},
      [["USDTNGN", "buy", 600_000, AS_OF + 3 * D]],
      [],
      ["close USDTNGN buy TARGET-2026-11-25-USDTNGN-BUY-1"],
    ],
    [
      "early: a side maturing inside the window is closed and opened again",
      [["USDTNGN", "buy", 600_000]],
      { roll: "early" },
      [["USDTNGN", "buy", 600_000, AS_OF + 5 * H]],
      [],
      ["close USDTNGN buy ROLL-2026-11-25-USDTNGN-BUY-0", "open USDTNGN buy 600000 7d ROLL-2026-11-25-USDTNGN-BUY-1"],
    ],
    [
      "early, no churn: the next hedge (1 day, value date 30 h away) would be inside its own 24-hour window: left to settle",
      [["USDTNGN", "buy", 600_000, AS_OF + 30 * H]],
      { roll: "early" },
      [["USDTNGN", "buy", 600_000, AS_OF + 5 * H]],
      [],
      [],
    ],
    [
      "early with Roll within 2: the same 1-day hedge is outside its own window, so the roll is made",
      [["USDTNGN", "buy", 600_000, AS_OF + 30 * H]],
      { roll: "early", within: 2 },
      [["USDTNGN", "buy", 600_000, AS_OF + H]],
      [],
      ["close USDTNGN buy ROLL-2026-11-25-USDTNGN-BUY-0", "open USDTNGN buy 600000 1d ROLL-2026-11-25-USDTNGN-BUY-1"],
    ],
    [
      "early, policy tenor 1 with the default window: never rolled early, left to settle (every 1-day hedge is inside its window)",
      [["USDTNGN", "buy", 600_000]],
      { roll: "early", tenor: 1 },
      [["USDTNGN", "buy", 600_000, AS_OF + 5 * H]],
      [],
      [],
    ],
  ])("%s", (_name, exposures, policy, positions, matured, expected) => {
    expect(run(exposures, policy, positions, { matured }).map(brief)).toEqual(expected);
  });

  test("the settled side's Reason says it is a roll and when the hedge matured", () => {
    const [open] = run([["USDTNGN", "buy", 600_000]], {}, [], { matured: [{ market: "USDTNGN", side: "buy", maturedAtMs: AS_OF - H }] });
    expect(open.reason).toBe(
      "Roll: matured 2026-11-25 11:00 UTC. Open 600,000.00: target 600,000.00 (100% of net exposure 600,000.00 buy − 0.00 sell = 600,000.00, rounded to 1,000.00); open 0.00; difference 600,000.00.",
    );
  });
});

describe("the tenor at maturity may end inside Roll within after the value date (the desk's hour between a settlement and the next Open)", () => {
  // Value date 2 days 19 hours after as_of: 3 days ends 5 hours after it.
  const exposures: Exp[] = [["USDTNGN", "buy", 100_000, AS_OF + 2 * D + 19 * H]];
  test.each<[string, Pol, string]>([
    ["at maturity, Roll within 24 (default): 3 days, settling 5 h after the value date", {}, "3d"],
    ["at maturity, Roll within 5: 3 days would end 5 h after, not less: 1 day", { within: 5 }, "1d"],
    ["at maturity, Roll within 6: 3 days", { within: 6 }, "3d"],
    ["at maturity, Roll within 0: on or before the value date only: 1 day", { within: 0 }, "1d"],
    ["early: on or before the value date only (a hedge past it would be closed early): 1 day", { roll: "early" }, "1d"],
  ])("%s", (_name, policy, tenor) => {
    expect(`${run(exposures, policy)[0].tenor}d`).toBe(tenor);
  });

  // At the value date that hedge is a paid-up side inside its window: left to settle (the "paid-up side" case above).
});

describe("the service's settlements (GET /hedges/history, newest first)", () => {
  const rec = (side: string, closed: string, exit: string) => ({ market: "USDTNGN", side, closed_at: closed, exit_type: exit });
  test("a side whose newest closed hedge settled at maturity is matured at that time; a close after it, or an early close, is not", () => {
    expect(
      serviceMatured([
        rec("buy", "2026-11-25T11:00:00Z", "maturity"),
        rec("buy", "2026-11-18T11:00:00Z", "close"),
        rec("sell", "2026-11-25T10:00:00Z", "close"),
        rec("sell", "2026-11-24T10:00:00Z", "maturity"),
      ]),
    ).toEqual([{ market: "USDTNGN", side: "buy", maturedAtMs: Date.UTC(2026, 10, 25, 11) }]);
    expect(serviceMatured([rec("buy", "2026-11-20T11:00:00Z", "maturity"), rec("buy", "2026-11-25T11:00:00Z", "decrease")])).toEqual([]);
  });
});

describe("one side's proposal (Propose beside a side)", () => {
  test("only that side's rows, though the other sides and markets need rows too", () => {
    const exposures: Exp[] = [
      ["USDTNGN", "buy", 600_000],
      ["USDTNGN", "sell", 100_000],
      ["USDTKES", "buy", 200_000],
    ];
    const positions: Pos[] = [["USDTNGN", "sell", 50_000, AS_OF + 3 * D]];
    expect(run(exposures, { net: "no" }, positions).map(brief)).toHaveLength(3);
    expect(run(exposures, { net: "no" }, positions, { only: { market: "USDTNGN", side: "buy" } }).map(brief)).toEqual([
      "open USDTNGN buy 600000 7d TARGET-2026-11-25-USDTNGN-BUY-1",
    ]);
    expect(run(exposures, { net: "no" }, positions, { only: { market: "USDTNGN", side: "sell" } }).map(brief)).toEqual([
      "add USDTNGN sell 50000 TARGET-2026-11-25-USDTNGN-SELL-1",
    ]);
  });
});

describe("working days: the longest allowed tenor whose maturity falls on one, else 1", () => {
  // Wednesday 12:00: 1 day → Thursday, 3 days → Saturday, 7 days → Wednesday.
  test.each<[string, Pol, Exp[], string]>([
    ["every day (default): 7 days", {}, [["USDTNGN", "buy", 100_000]], "7d"],
    ["Mon-Fri: 7 days ends on a Wednesday", { days: "Mon-Fri" }, [["USDTNGN", "buy", 100_000]], "7d"],
    [
      "Mon-Fri, policy tenor 3: 3 days ends on a Saturday, so 1 (Thursday)",
      { days: "Mon-Fri", tenor: 3 },
      [["USDTNGN", "buy", 100_000]],
      "1d",
    ],
    ["Sat only, value date in 5 days: 3 days (Saturday) is allowed", { days: "Sat" }, [["USDTNGN", "buy", 100_000, AS_OF + 5 * D]], "3d"],
    ["Sun only: none of 1, 3, 7 ends on a Sunday: 1", { days: "sunday" }, [["USDTNGN", "buy", 100_000]], "1d"],
    ["Thu-Sat: 7 days is a Wednesday, 3 days a Saturday", { days: "Thu-Sat" }, [["USDTNGN", "buy", 100_000]], "3d"],
  ])("%s", (_name, policy, exposures, tenor) => {
    const [open] = run(exposures, policy);
    expect(`${open.tenor}d`).toBe(tenor);
  });

  test("a tenor shortened by the working days says so in its Reason", () => {
    const [open] = run([["USDTNGN", "buy", 100_000]], { days: "Mon-Fri", tenor: 3 });
    expect(open.reason).toMatch(/; tenor 1 day, not 3: a 3-day hedge would mature on a Saturday, not a working day\.$/);
  });

  test.each([
    [0, "Thu", "Saturday"],
    [1, "Fri", "Sunday"],
    [2, "Sat", "Monday"],
    [3, "Sun", "Tuesday"],
    [4, "Mon", "Wednesday"],
    [5, "Tue", "Thursday"],
    [6, "Wed", "Friday"],
  ])("as_of %i days after a Wednesday, working days %s: the Reason names the day a 3-day hedge would mature on, %s", (k, days, name) => {
    const [open] = run([["USDTNGN", "buy", 100_000]], { days, tenor: 3 }, [], { asOf: AS_OF + k * D });
    expect(open.reason).toMatch(new RegExp(`; tenor 1 day, not 3: a 3-day hedge would mature on a ${name}, not a working day\\.$`));
  });

  test("a tenor shortened by a value date and then by the working days says both, a semicolon between", () => {
    const [open] = run([["USDTNGN", "buy", 100_000, AS_OF + 5 * D]], { days: "Thu" });
    expect(open.reason).toMatch(
      /; tenor 1 day, not 7: the earliest value date 2026-11-30 12:00 UTC comes first; a 3-day hedge would mature on a Saturday, not a working day\.$/,
    );
  });

  test("tenorFor, exactly: among 1, 3 and 7 days at most the policy's and ending by the value date, the longest on a working day", () => {
    const wed = AS_OF;
    const monFri = [1, 2, 3, 4, 5];
    expect(tenorFor(7, null, wed, monFri)).toBe(7);
    expect(tenorFor(7, 6 * D, wed, monFri)).toBe(1); // 3 days is Saturday
    expect(tenorFor(7, null, wed + 2 * D, monFri)).toBe(7); // from a Friday: 7 → Friday, 3 → Monday: the longest, 7
    expect(tenorFor(3, null, wed + 2 * D, monFri)).toBe(3); // from a Friday, at most 3: Monday
    expect(tenorFor(7, null, wed + 3 * D, monFri)).toBe(3); // from a Saturday: 7 → Saturday, 3 → Tuesday
    expect(tenorFor(7, null, wed, [])).toBe(1);
  });

  test.each<[string, number[] | null]>([
    ["Mon-Fri", [1, 2, 3, 4, 5]],
    ["mon, wed; fri", [1, 3, 5]],
    ["Fri-Mon", [0, 1, 5, 6]],
    ["Sunday-Thursday", [0, 1, 2, 3, 4]],
    ["every day", [0, 1, 2, 3, 4, 5, 6]],
    ["Mon-Frii", null],
    ["weekdays", null],
    ["Mo", null],
    // Only separators: no weekday named. Three ends are no range. An en dash is a range's dash too.
    [", ;", null],
    ["Mon-Wed-Fri", null],
    ["Tue–Thu", [2, 3, 4]],
    // Full names, any case; the words for all seven, with spaces around; separators in a row.
    ["monday WEDNESDAY Friday", [1, 3, 5]],
    ["Tuesday-Saturday", [2, 3, 4, 5, 6]],
    [" Every Day ", [0, 1, 2, 3, 4, 5, 6]],
    ["everyday", [0, 1, 2, 3, 4, 5, 6]],
    ["ALL", [0, 1, 2, 3, 4, 5, 6]],
    ["daily", [0, 1, 2, 3, 4, 5, 6]],
    [", mon ;wed,", [1, 3]],
  ])("Working days %j reads as %j", (text, days) => {
    expect(weekdaysOf(text)).toEqual(days);
  });
});
