// HEDGE.TARGET through fake invocations: the proposal on the live positions' shared poll (no request of its own), the pure form with positions given, and bad cells as #VALUE! naming them.
import { FakeInvocation, installFeeds } from "./fake-invocation";
import "../../src/functions/engine"; // the functions' work, as the page's engine entry hands it over (after the CustomFunctions global)
import * as fn from "../../src/functions/functions";
import { target } from "../../src/functions/target";
import { cellStreams } from "../../src/functions/runtime";
import { position } from "../feeds/fake-client";
import { PROPOSAL_HEADERS } from "../../src/trading/rows";

type Spill = unknown[][];
/** A maturity far from now: no roll. */
const LATER = new Date(Date.now() + 5 * 86_400_000).toISOString();
const EXPOSURES = [
  ["Market", "Side", "Amount (USD)"],
  ["USDTNGN", "buy", 1_000_000],
  ["", "", ""],
  ["USDTNGN", "sell", 200_000],
];
const POLICY = [
  ["Market", "Hedge ratio (%)", "Tenor (days)", "Round to (USD)", "Min trade (USD)"],
  ["*", 75, 7, 1_000, 10_000],
];
const invocation = (addresses?: string[]) => Object.assign(new FakeInvocation<Spill>(), { parameterAddresses: addresses });
/** "Add USDTNGN buy 100000" per row. */
const actions = (spill: Spill) => spill.slice(1).map((r) => [r[0], r[1], r[2], r[3]].filter((x) => x !== "").join(" "));

describe("HEDGE.TARGET", () => {
  test("without positions: the proposal on the live positions, updated by the positions poll; only the shared polls of positions and of the closed hedges", async () => {
    const { client, advance } = installFeeds();
    client.positions_ = [position({ side: "buy", size_usd: 500_000, maturity_at: LATER })];
    const positions = new FakeInvocation<Spill>();
    fn.positions(undefined, undefined, positions as never);
    const cell = invocation();
    fn.target(EXPOSURES, POLICY, undefined as never, undefined, cell as never);
    await advance();
    // 75% of the net 800,000 buy = 600,000; 500,000 open: add 100,000.
    expect(cell.value[0]).toEqual([...PROPOSAL_HEADERS]);
    expect(actions(cell.value)).toEqual(["Add USDTNGN buy 100000"]);
    expect(client.count("positions")).toBe(1); // one poll shared with HEDGE.POSITIONS

    client.positions_ = [position({ side: "buy", size_usd: 600_000, maturity_at: LATER })];
    await advance(2_000);
    expect(cell.value).toEqual([[...PROPOSAL_HEADERS]]); // nothing left to do
    expect(client.count("positions")).toBe(2);
    expect(client.count("history")).toBe(1); // the newest closed hedges, every 60 s, shared by every HEDGE.TARGET cell
    for (const other of ["prices", "account", "markets", "hedges", "quote"]) expect(client.count(other as never)).toBe(0);
  });

  test("at maturity (the default): a maturing side is left to settle; once the service shows it settled, the roll's Open, named by the maturity", async () => {
    const { client, advance } = installFeeds();
    const soon = new Date(Date.now() - 60_000).toISOString(); // its maturity just passed, the service not yet settled
    client.positions_ = [position({ side: "buy", size_usd: 600_000, maturity_at: soon })];
    const cell = invocation();
    fn.target(EXPOSURES, POLICY, undefined as never, undefined, cell as never);
    await advance();
    expect(cell.value).toEqual([[...PROPOSAL_HEADERS]]); // inside the window, still open: never closed early, left to settle
    // Settled at its maturity: no open hedge, the history's newest record of the side an exit at maturity.
    client.positions_ = [];
    const closed = { market: "USDTNGN", side: "buy", size_usd: 600_000, opened_at: soon, closed_at: soon, exit_type: "maturity" };
    client.history = () => Promise.resolve({ data: [closed], meta: {} }) as never;
    await advance(60_000);
    const at = `${soon.slice(0, 16)}Z`;
    expect(cell.value.slice(1).map((r) => [r[0], r[3], r[5]])).toEqual([["Open", 600_000, `ROLL-${at}-USDTNGN-BUY-1`]]);
    expect(String(cell.value[1][8])).toMatch(/^Roll: matured \d{4}-\d\d-\d\d \d\d:\d\d UTC\. Open 600,000\.00: /);
  });

  test("a live position on a side the spec does not list: #VALUE! naming it, never counted as buy or sell; read again once it is gone", async () => {
    const { client, advance } = installFeeds();
    client.positions_ = [position({ side: "buy", size_usd: 500_000, maturity_at: LATER }), position({ side: "long", size_usd: 100_000 })];
    const cell = invocation();
    fn.target(EXPOSURES, POLICY, undefined as never, undefined, cell as never);
    await advance();
    expect(cell.error.code).toBe("#VALUE!");
    expect(cell.error.message).toMatch(/^The service shows an open USDTNGN position on the side "long", which is neither buy nor sell/);
    client.positions_ = [position({ side: "buy", size_usd: 500_000, maturity_at: LATER })];
    await advance(2_000);
    expect(actions(cell.value)).toEqual(["Add USDTNGN buy 100000"]);
  });

  test("100 TARGET cells recalculated add no request: the positions poll stays one per interval", async () => {
    const { client, advance } = installFeeds();
    for (let i = 0; i < 100; i++) fn.target(EXPOSURES, POLICY, null as never, null, invocation() as never);
    await advance();
    await advance(10_000);
    expect(client.count("positions")).toBe(6); // every 2 s, as for one cell
    expect(cellStreams().counts().cells).toBe(100);
  });

  test("with positions given: a pure function of its three ranges, set once, no request (the =HEDGE.POSITIONS() spill works as is)", async () => {
    const { client, advance } = installFeeds();
    const spilled = [
      ["market", "side", "size_usd", "collateral_usdc"],
      ["USDTNGN", "sell", 30_000, 1_000],
    ];
    const cell = invocation();
    target(cellStreams(), cell, EXPOSURES, POLICY, spilled, [], () => new Date("2026-11-25T10:00:00Z"));
    await advance(10_000);
    expect(cell.results).toHaveLength(1);
    expect(cell.value.slice(1).map((r) => r.slice(0, 6))).toEqual([
      ["Close", "USDTNGN", "sell", "", "", "TARGET-2026-11-25-USDTNGN-SELL-1"],
      ["Open", "USDTNGN", "buy", 600_000, 7, "TARGET-2026-11-25-USDTNGN-BUY-1"],
    ]);
    expect(client.count("positions")).toBe(0);
  });

  test("as_of given: a pure function of its ranges and that instant; dated rows and the spill's maturities judged at it", async () => {
    const { client, advance } = installFeeds();
    const serial = (iso: string) => (Date.parse(iso) - Date.UTC(1899, 11, 30)) / 86_400_000;
    const dated = [
      ["Market", "Side", "Amount (USD)", "Value date"],
      ["USDTNGN", "buy", 1_000_000, serial("2026-12-03T00:00:00Z")],
      ["USDTKES", "buy", 400_000, "2026-11-30"],
    ];
    const spilled = [
      ["market", "side", "size_usd", "maturity_at"],
      ["USDTNGN", "buy", 750_000, serial("2026-11-30T08:00:00Z")],
      ["USDTKES", "buy", 300_000, serial("2026-12-04T08:00:00Z")],
    ];
    const at = (asOf: unknown) => {
      const cell = invocation();
      fn.target(dated, POLICY, spilled, asOf, cell as never);
      return cell;
    };
    await advance();
    // At maturity (the default): USDTNGN's hedge matures within 24 h and is left to settle; on 2026-11-30 USDTKES is paid: closed.
    expect(at(serial("2026-11-29T12:00:00Z")).value).toEqual([[...PROPOSAL_HEADERS]]);
    expect(actions(at("2026-11-30T00:00:00Z").value)).toEqual(["Close USDTKES buy"]);
    // Roll early: 2026-11-29 12:00, USDTNGN's hedge matures within 24 h → rolled, at 3 days (its value date is 3.5 days away).
    POLICY[0].push("Roll");
    POLICY[1].push("early");
    expect(
      at(serial("2026-11-29T12:00:00Z"))
        .value.slice(1)
        .map((r) => r.slice(0, 6)),
    ).toEqual([
      ["Close", "USDTNGN", "buy", "", "", "ROLL-2026-11-29-USDTNGN-BUY-0"],
      ["Open", "USDTNGN", "buy", 750_000, 3, "ROLL-2026-11-29-USDTNGN-BUY-1"],
    ]);
    // ISO text works too; on 2026-11-30 USDTKES's exposure is paid: its hedge is closed.
    expect(actions(at("2026-11-30T00:00:00Z").value)).toEqual(["Close USDTKES buy", "Close USDTNGN buy", "Open USDTNGN buy 750000"]);
    POLICY.forEach((row) => row.pop());
    expect(client.count()).toBe(0);
    expect(at("tomorrow").error).toMatchObject({ code: "#VALUE!" });
    expect(at("tomorrow").error.message).toMatch(/^as_of must be an Excel date-time \(UTC\)/);
  });

  test.each([
    [
      "a bad amount, named by its sheet cell",
      [
        ["Market", "Side", "Amount"],
        ["USDTNGN", "buy", "lots"],
      ],
      POLICY,
      /exposures, cell Model!D6 \(row 6, column Amount \(USD\)\): "lots" is not a number/,
    ],
    ["a market without a policy row", EXPOSURES, [POLICY[0], ["USDTKES", 75, 7, 1_000, 0]], /no row for market USDTNGN and no \* row/],
    [
      "a policy without a Hedge ratio column",
      EXPOSURES,
      [
        ["Market", "Tenor"],
        ["*", 7],
      ],
      /policy: no Hedge ratio \(%\) column/,
    ],
    ["a single value where a range belongs", "USDTNGN", POLICY, /exposures must be a range with a header row/],
  ])("%s is #VALUE! naming it; nothing is asked", async (_name, exposures, policy, message) => {
    const { client, advance } = installFeeds();
    const cell = invocation(["Model!$B$5:$D$9", "Policy!A1:E2", ""]);
    fn.target(exposures as never, policy, undefined as never, undefined, cell as never);
    await advance();
    expect(cell.error.code).toBe("#VALUE!");
    expect(cell.error.message).toMatch(message);
    expect(client.count("positions")).toBe(0);
  });
});
