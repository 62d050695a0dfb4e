// The HEDGE.* functions driven through fake invocations on a manual clock: values, spills, argument errors, sharing, cancellation, pause, no key.
import { FakeExcelError, FakeInvocation, cells, installFeeds } from "./fake-invocation";
import "../../src/functions/engine"; // the functions' work, as the page's engine entry hands it over (after the CustomFunctions global)
import * as fn from "../../src/functions/functions";
import { apiError, hedgeRecord, position, quoteFor } from "../feeds/fake-client";
import { excelSerial } from "../../src/functions/cells";

type Spill = unknown[][];

/** The spill's rows as objects keyed by the header row. */
function rows(spill: Spill): Record<string, unknown>[] {
  const [header, ...body] = spill;
  return body.map((r) => Object.fromEntries(header.map((h, i) => [String(h), r[i]])));
}

/** A two-column field/value spill as an object. */
function fields(spill: Spill): Record<string, unknown> {
  return Object.fromEntries(spill.map(([k, v]) => [String(k), v]));
}

describe("HEDGE.PRICE", () => {
  test("streams the latest mid rate and updates on the next poll", async () => {
    const { client, advance } = installFeeds();
    const cell = new FakeInvocation<number>();
    fn.price("usdtngn", cell as never);
    await advance();
    expect(cell.value).toBe(client.rate);
    client.rate = 1510.5;
    await advance(2_000);
    expect(cell.value).toBe(1510.5);
  });

  test("1,000 cells send one GET /prices per interval, and a new cell gets the value at once without a request", async () => {
    const { client, advance } = installFeeds();
    for (const cell of cells<number>(1000)) fn.price("USDTNGN", cell as never);
    await advance();
    await advance(20_000);
    expect(client.count("prices")).toBe(11); // t = 0, 2, …, 20 s
    const late = new FakeInvocation<number>();
    fn.price("USDTNGN", late as never);
    expect(late.value).toBe(client.rate);
    expect(client.count("prices")).toBe(11);
  });

  test("a market outside meta.allowed_markets is #VALUE! naming the argument and the allowed markets; each asked once (its answer names them), never again", async () => {
    const { client, advance } = installFeeds();
    const cell = new FakeInvocation<number>();
    fn.price("USDTKES", cell as never);
    await advance();
    expect(cell.error.code).toBe("#VALUE!");
    expect(cell.error.message).toMatch(/market "USDTKES".*allowed markets: USDTNGN/);
    expect(client.count("prices")).toBe(1);
    await advance(10_000);
    expect(client.count("prices")).toBe(1);
    const other = new FakeInvocation<number>();
    fn.price("USDTGHS", other as never);
    await advance();
    expect(other.error.message).toMatch(/market "USDTGHS".*allowed markets: USDTNGN/);
    expect(client.count("prices")).toBe(2); // each market asked once: its own answer refuses it
    await advance(10_000);
    expect(client.count("prices")).toBe(2);
  });

  test("an unchanged value is not set again", async () => {
    const { advance } = installFeeds();
    const cell = new FakeInvocation<number>();
    fn.price("USDTNGN", cell as never);
    await advance(10_000);
    expect(cell.results).toHaveLength(1);
  });
});

describe("HEDGE.QUOTE", () => {
  test("one field as a 1×1 value, nested fields by dotted name", async () => {
    const { client, advance } = installFeeds();
    const price = new FakeInvocation<Spill>();
    const carry = new FakeInvocation<Spill>();
    fn.quote("USDTNGN", "buy", 10_000, 7, "pricing.execution_price", price as never);
    fn.quote("USDTNGN", "BUY", 10_000, 7, "Carry.Total_USDC", carry as never);
    await advance();
    const expected = quoteFor({ market: "USDTNGN", side: "buy", notional_usd: 10_000, tenor_days: 7 }, client.rate);
    expect(price.value).toEqual([[expected.pricing.execution_price]]);
    expect(carry.value).toEqual([[expected.carry.total_usdc]]);
    expect(client.count("quote")).toBe(1); // same question, one request
  });

  test("a nested field may be named by its last part when that part is unique", async () => {
    const { client, advance } = installFeeds();
    const price = new FakeInvocation<Spill>();
    const upfront = new FakeInvocation<Spill>();
    fn.quote("USDTNGN", "buy", 10_000, 7, "execution_price", price as never);
    fn.quote("USDTNGN", "buy", 10_000, 7, "total_upfront_usdc", upfront as never);
    await advance();
    const expected = quoteFor({ market: "USDTNGN", side: "buy", notional_usd: 10_000, tenor_days: 7 }, client.rate);
    expect(price.value).toEqual([[expected.pricing.execution_price]]);
    expect(upfront.value).toEqual([[expected.upfront.total_upfront_usdc]]);
  });

  test("without a field: a two-column spill of every Quote field, the maturity as an Excel date serial", async () => {
    const { client, advance } = installFeeds();
    const cell = new FakeInvocation<Spill>();
    fn.quote("USDTNGN", "sell", 25_000, 3, undefined, cell as never);
    await advance();
    const q = quoteFor({ market: "USDTNGN", side: "sell", notional_usd: 25_000, tenor_days: 3 }, client.rate);
    const f = fields(cell.value);
    expect(Object.keys(f)).toHaveLength(15);
    expect(f["upfront.total_upfront_usdc"]).toBe(q.upfront.total_upfront_usdc);
    expect(f["pricing.price_impact_usd"]).toBe(q.pricing.price_impact_usd);
    expect(f.maturity).toBe(excelSerial(q.maturity));
    expect(f.side).toBe("sell");
  });

  test("the notional is sent rounded to the cent, so cells of the same cent share one request; below a cent is refused", async () => {
    const { client, advance } = installFeeds();
    const third = new FakeInvocation<Spill>();
    const typed = new FakeInvocation<Spill>();
    const tiny = new FakeInvocation<Spill>();
    fn.quote("USDTNGN", "buy", 250_000 / 3, 7, "notional_usd", third as never);
    fn.quote("USDTNGN", "buy", 83_333.33, 7, "notional_usd", typed as never);
    fn.quote("USDTNGN", "buy", 0.004, 7, "notional_usd", tiny as never);
    await advance();
    expect(client.calls.filter((c) => c.method === "quote").map((c) => (c.args[0] as { notional_usd: number }).notional_usd)).toEqual([
      83_333.33,
    ]);
    expect(third.value).toEqual([[83_333.33]]);
    expect(tiny.error).toMatchObject({ code: "#VALUE!", message: expect.stringMatching(/notional_usd must be at least 0\.01 USD/) });
  });

  test.each([
    [["USDTNGN", "hold", 10_000, 7], /side must be "buy" or "sell"; got "hold"/],
    [["USDTNGN", "buy", 10_000, 2], /tenor_days must be one of 1, 3, 7/],
    [["USDTNGN", "buy", 0, 7], /notional_usd must be a number of USD greater than 0/],
    [["USDTNGN", "buy", -5, 7], /notional_usd/],
    [["", "buy", 10_000, 7], /market is required/],
    [["USDTNGN", "buy", 10_000, 7, "price"], /field "price" is not a Quote field; use one of .*pricing\.execution_price/],
  ])("bad arguments %j are #VALUE! before anything is sent", async (args, message) => {
    const { client, advance } = installFeeds();
    const cell = new FakeInvocation<Spill>();
    const [m, s, n, t, f] = args as [string, string, number, number, string | undefined];
    fn.quote(m, s, n, t, f, cell as never);
    await advance();
    expect(cell.error.code).toBe("#VALUE!");
    expect(cell.error.message).toMatch(message);
    expect(client.count()).toBe(0);
  });

  test("1,000 cells over 20 distinct questions send at most 20 POST /quotes per refresh", async () => {
    const { client, advance } = installFeeds();
    const all = cells<Spill>(1000);
    all.forEach((cell, i) => {
      const set = i % 20; // 20 distinct (side, notional) questions, each asked with and without a field
      fn.quote(
        "USDTNGN",
        set < 10 ? "buy" : "sell",
        1000 * (1 + (set % 10)),
        7,
        i % 3 ? "pricing.execution_price" : undefined,
        cell as never,
      );
    });
    await advance();
    expect(client.count("quote")).toBe(20);
    await advance(5_000);
    expect(client.count("quote")).toBe(40);
    expect(all.every((c) => !(c.last instanceof FakeExcelError) && c.results.length > 0)).toBe(true);
  });
});

describe("HEDGE.POSITIONS, HEDGE.ACCOUNT", () => {
  test("positions: a header row, then one row per line with every Position field; filters by market and side", async () => {
    const { client, advance } = installFeeds();
    client.positions_ = [position({ side: "buy" }), position({ side: "sell", size_usd: 5_000 })];
    const all = new FakeInvocation<Spill>();
    const sells = new FakeInvocation<Spill>();
    fn.positions(undefined, undefined, all as never);
    fn.positions("usdtngn", "sell", sells as never);
    await advance();
    expect(all.value[0]).toEqual([
      "market",
      "side",
      "size_usd",
      "collateral_usdc",
      "entry_price",
      "mark_price",
      "gross_pnl_usd",
      "accrued_carry_usd",
      "net_pnl_usd",
      "closing_fee_usd",
      "net_margin_usd",
      "maturity_at",
    ]);
    expect(rows(all.value).map((r) => r.side)).toEqual(["buy", "sell"]);
    expect(rows(sells.value)).toEqual([
      expect.objectContaining({ side: "sell", size_usd: 5_000, maturity_at: excelSerial("2025-01-13T09:00:00Z") }),
    ]);
    expect(client.count("positions")).toBe(1);

    client.positions_ = [];
    await advance(2_000);
    expect(all.value).toEqual([all.value[0]]); // flat: the header row only
  });

  test("account: one field or the two-column spill, both from one GET /account", async () => {
    const { client, advance } = installFeeds();
    const balance = new FakeInvocation<Spill>();
    const summary = new FakeInvocation<Spill>();
    fn.account("balance_usdc", balance as never);
    fn.account(null as never, summary as never);
    await advance();
    expect(balance.value).toEqual([[client.account_.balance_usdc]]);
    expect(fields(summary.value)).toMatchObject({ account_address: "0xabc", open_positions: 1, available_exposure_usd: 990_000 });
    expect(client.count("account")).toBe(1);
  });

  test("200 cells over POSITIONS, ACCOUNT and MARKETS: one request per endpoint per interval", async () => {
    const { client, advance } = installFeeds();
    for (let i = 0; i < 200; i++) {
      const cell = new FakeInvocation<Spill>();
      if (i % 3 === 0) fn.positions(undefined, undefined, cell as never);
      else if (i % 3 === 1) fn.account(i % 2 ? "balance_usdc" : undefined, cell as never);
      else fn.markets(cell as never);
    }
    await advance();
    await advance(10_000);
    expect(client.count("positions")).toBe(6); // every 2 s
    expect(client.count("account")).toBe(6); // every 2 s
    expect(client.count("markets")).toBe(3); // every 5 s
  });
});

describe("HEDGE.MARKETS, HEDGE.CAPACITY, HEDGE.CARRY", () => {
  test("all three ride one GET /markets per interval", async () => {
    const { client, advance } = installFeeds();
    const table = new FakeInvocation<Spill>();
    const cap = new FakeInvocation<number>();
    const carry = new FakeInvocation<number>();
    fn.markets(table as never);
    fn.capacity("USDTNGN", "sell", cap as never);
    fn.carry("USDTNGN", "buy", carry as never);
    await advance();
    expect(rows(table.value)).toEqual([
      {
        market: "USDTNGN",
        status: "open",
        price: 1502.35,
        "available_capacity_usd.buy": 250_000,
        "available_capacity_usd.sell": 180_000,
        "net_rate_daily_pct.buy": 0.0123,
        "net_rate_daily_pct.sell": -0.0045,
      },
    ]);
    expect(cap.value).toBe(180_000);
    expect(carry.value).toBe(0.0123);
    await advance(5_000);
    expect(client.count("markets")).toBe(2);
  });

  test("a market the account cannot use is #VALUE!, a bad side too", async () => {
    const { advance } = installFeeds();
    const cap = new FakeInvocation<number>();
    const side = new FakeInvocation<number>();
    fn.capacity("USDTKES", "buy", cap as never);
    fn.carry("USDTNGN", "long", side as never);
    await advance();
    expect(cap.error).toMatchObject({ code: "#VALUE!" });
    expect(cap.error.message).toContain("USDTNGN");
    expect(side.error.message).toMatch(/side must be "buy" or "sell"/);
  });
});

describe("HEDGE.HEDGES, HEDGE.HEDGE", () => {
  test("hedges: a table with every Hedge field, timestamps as serials; filters go to the request", async () => {
    const { client, advance } = installFeeds();
    client.hedges_ = [hedgeRecord({ id: "h_2", opened_at: "2025-01-06T10:00:00Z" }), hedgeRecord({ id: "h_1", status: "closed" })];
    const all = new FakeInvocation<Spill>();
    const closed = new FakeInvocation<Spill>();
    fn.hedges(undefined, undefined, undefined, all as never);
    fn.hedges("CLOSED", undefined, 10, closed as never);
    await advance();
    expect(rows(all.value).map((r) => r.id)).toEqual(["h_2", "h_1"]);
    expect(rows(all.value)[0].opened_at).toBe(excelSerial("2025-01-06T10:00:00Z"));
    expect(rows(closed.value).map((r) => r.id)).toEqual(["h_1"]);
    expect(client.calls.filter((c) => c.method === "list").map((c) => c.args[0])).toEqual([{}, { status: "closed", limit: 10 }]);
  });

  test.each([
    [["open", undefined, undefined], /status must be one of submitting, submitted, filled, failed, closed/],
    [[undefined, undefined, 0], /limit must be a whole number from 1 to 500/],
    [[undefined, undefined, 501], /limit/],
  ])("hedges with %j is #VALUE!", async (args, message) => {
    const { client, advance } = installFeeds();
    const cell = new FakeInvocation<Spill>();
    const [s, r, l] = args as [string, string, number];
    fn.hedges(s, r, l, cell as never);
    await advance();
    expect(cell.error.message).toMatch(message);
    expect(client.count()).toBe(0);
  });

  test("hedge: one field or the spill; polling stops once it is closed", async () => {
    const { client, advance } = installFeeds();
    client.hedges_ = [hedgeRecord({ id: "h_7", status: "submitted", fill_tx_hash: null, filled_at: null })];
    const status = new FakeInvocation<Spill>();
    const spill = new FakeInvocation<Spill>();
    fn.hedge("h_7", "status", status as never);
    fn.hedge("h_7", undefined, spill as never);
    await advance();
    expect(status.value).toEqual([["submitted"]]);
    expect(fields(spill.value)).toMatchObject({ id: "h_7", fill_tx_hash: "", filled_at: "" });
    client.hedges_[0] = hedgeRecord({ id: "h_7", status: "filled" });
    await advance(2_000);
    expect(status.value).toEqual([["filled"]]);
    expect(fields(spill.value).filled_at).toBe(excelSerial("2025-01-06T09:00:03Z"));
    client.hedges_[0].status = "closed";
    await advance(2_000);
    const polls = client.count("get");
    await advance(30_000);
    expect(status.value).toEqual([["closed"]]);
    expect(client.count("get")).toBe(polls);
  });

  test("an unknown hedge id is #N/A with the service's code", async () => {
    const { advance } = installFeeds();
    const cell = new FakeInvocation<Spill>();
    fn.hedge("nope", undefined, cell as never);
    await advance();
    expect(cell.error.code).toBe("#N/A");
    expect(cell.error.message).toMatch(/^hedge_not_found:/);
  });
});

describe("errors, cancellation, pause, key", () => {
  test("without an API key every function shows #N/A 'Set your API key in the Hedge pane' at once; setting one fills them", async () => {
    const { source, advance } = installFeeds({}, null);
    const price = new FakeInvocation<number>();
    const positions = new FakeInvocation<Spill>();
    fn.price("USDTNGN", price as never);
    fn.positions(undefined, undefined, positions as never);
    expect(price.error).toMatchObject({ code: "#N/A", message: "Set your API key in the Hedge pane" });
    expect(positions.error).toMatchObject({ code: "#N/A", message: "Set your API key in the Hedge pane" });

    const { FakeClient } = await import("../feeds/fake-client");
    const client = new FakeClient();
    source.set(client);
    await advance();
    expect(price.value).toBe(client.rate);
    expect(rows(positions.value)).toHaveLength(1);
  });

  test("on opening a workbook, cells wait (#BUSY!) until the saved settings are read, instead of flashing 'Set your API key'", async () => {
    const { Connection } = await import("../../src/feeds/connection");
    const { FeedHub } = await import("../../src/feeds/hub");
    const { ManualClock } = await import("../../src/feeds/clock");
    const { setSharedHub } = await import("../../src/feeds/shared");
    const connection = new Connection();
    setSharedHub(new FeedHub({ source: connection, clock: new ManualClock() }));
    const price = new FakeInvocation<number>();
    const status = new FakeInvocation<Spill>();
    fn.price("USDTNGN", price as never);
    fn.status(status as never);
    expect(price.results).toHaveLength(0); // no result yet: Excel shows #BUSY!
    expect(fields(status.value)).toMatchObject({ environment: "none", reason: "Reading the saved settings" });
    connection.settingsRead(); // the pane read them: no key was saved
    expect(price.error).toMatchObject({ code: "#N/A", message: "Set your API key in the Hedge pane" });
    expect(price.results).toHaveLength(1);
  });

  test("a rejected key shows #N/A naming the code", async () => {
    const { client, advance } = installFeeds();
    client.failAlways("account", apiError("invalid_api_key", 401, "Key not found or revoked."));
    const cell = new FakeInvocation<Spill>();
    fn.account(undefined, cell as never);
    await advance();
    expect(cell.error.code).toBe("#N/A");
    expect(cell.error.message).toMatch(/^invalid_api_key: Key not found or revoked\./);
  });

  test("a 503 burst keeps the last good value; after the staleness limit it becomes #N/A; then it recovers", async () => {
    const { client, advance } = installFeeds({ staleAfterMs: 60_000 });
    const cell = new FakeInvocation<number>();
    fn.price("USDTNGN", cell as never);
    await advance();
    client.failAlways("prices", apiError("service_unavailable", 503));
    await advance(30_000);
    expect(cell.value).toBe(1502.35);
    await advance(60_000);
    expect(cell.error).toMatchObject({ code: "#N/A" });
    expect(cell.error.message).toMatch(/^service_unavailable/);
    client.failAlways("prices", null);
    client.rate = 1499;
    await advance(60_000);
    expect(cell.value).toBe(1499);
  });

  test("cancellation: a late onCanceled of the replaced cell keeps the new one streaming; cancelling all stops the requests", async () => {
    const { client, advance } = installFeeds();
    const old = new FakeInvocation<number>();
    fn.price("USDTNGN", old as never);
    await advance();
    const replacement = new FakeInvocation<number>();
    fn.price("USDTNGN", replacement as never);
    expect(replacement.value).toBe(client.rate); // cached, at once
    old.cancel();
    client.rate = 1600;
    await advance(2_000);
    expect(replacement.value).toBe(1600);
    expect(old.results).toHaveLength(1);

    replacement.cancel();
    const count = client.count("prices");
    await advance(20_000);
    expect(client.count("prices")).toBe(count);
  });

  test("a function given nonsense never throws: the cell shows an error", async () => {
    installFeeds();
    const cell = new FakeInvocation<Spill>();
    expect(() => fn.quote({} as never, [] as never, "ten" as never, NaN, 7 as never, cell as never)).not.toThrow();
    expect(cell.error.code).toBe("#VALUE!");
  });

  test("the ribbon's Pause feeds event pauses and resumes every feed; STATUS shows it", async () => {
    const { client, advance } = installFeeds();
    const price = new FakeInvocation<number>();
    const status = new FakeInvocation<Spill>();
    fn.price("USDTNGN", price as never);
    fn.status(status as never);
    await advance();
    globalThis.dispatchEvent(new CustomEvent("hedge:toggle-pause"));
    expect(fields(status.value).paused).toBe(true);
    const count = client.count();
    await advance(30_000);
    expect(client.count()).toBe(count);
    expect(price.value).toBe(client.rate);

    globalThis.dispatchEvent(new CustomEvent("hedge:toggle-pause"));
    await advance();
    expect(fields(status.value).paused).toBe(false);
    expect(client.count("prices")).toBe(2);
  });
});

describe("HEDGE.STATUS", () => {
  test("environment, connection and why, last update as a date serial, requests in the last minute; never the key", async () => {
    const { client, source, clock, advance } = installFeeds();
    const status = new FakeInvocation<Spill>();
    fn.status(status as never);
    expect(fields(status.value)).toMatchObject({ environment: "sandbox", connected: false, reason: "No answer yet", paused: false });
    await advance(); // STATUS alone checks the connection once
    expect(fields(status.value)).toMatchObject({ connected: true, reason: "" });
    expect(client.count()).toBe(1);
    fn.positions(undefined, undefined, new FakeInvocation<Spill>() as never);
    await advance();
    expect(fields(status.value)).toMatchObject({
      connected: true,
      reason: "",
      last_update: clock.now() / 86_400_000 + 25_569,
      requests_last_minute: client.count(),
      active_feeds: 1,
    });

    client.ratePerSecond = 19.46;
    client.rateLimitedInLastMinute = 3;
    client.failAlways("positions", apiError("rate_limited", 429, "Too many requests"));
    await advance(2_000);
    expect(fields(status.value)).toMatchObject({
      connected: false,
      reason: "rate_limited: Too many requests",
      rate_per_second: 19.5, // the rate the client has learned, to a tenth
      rate_limited_last_minute: 3,
    });

    source.set(null);
    expect(fields(status.value)).toMatchObject({
      environment: "none",
      connected: false,
      reason: "No API key: Set your API key in the Hedge pane",
    });
    expect(JSON.stringify(status.results)).not.toMatch(/svc_/);
  });
});

describe("HEDGE.VERSION", () => {
  test("returns the add-in version", () => {
    expect(fn.version()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
