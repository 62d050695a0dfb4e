// The HEDGE.* functions against the in-process sandbox over real HTTP: a fill shows in POSITIONS within one interval, a 503 burst is ridden out, a revoked key is named.
import { FakeExcelError, FakeInvocation } from "./fake-invocation";
import "../../src/functions/engine"; // the functions' work, as the page's engine entry hands it over (after the CustomFunctions global)
import * as fn from "../../src/functions/functions";
import { HedgingClient } from "../../src/api/client";
import type { Quote } from "../../src/api/schemas";
import { ManualClock } from "../../src/feeds/clock";
import { Connection } from "../../src/feeds/connection";
import { FeedHub } from "../../src/feeds/hub";
import { setSharedHub } from "../../src/feeds/shared";
import { startSandbox } from "../../src/sandbox/server";
import { DEMO_API_KEY, DEMO_REVOKED_API_KEY } from "../../src/sandbox/demo";
import { control } from "../sandbox/helpers";

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
type Spill = unknown[][];

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, http: true, seed: 7 });
});

afterAll(async () => {
  await sandbox?.close();
});

beforeEach(() => {
  sandbox.reset();
});

/** The shared hub on simulated time over a real client of the sandbox. */
function feeds(apiKey = DEMO_API_KEY) {
  const connection = new Connection();
  connection.configure({ apiKey, baseUrl: sandbox.baseUrl });
  const clock = new ManualClock(Date.now());
  const hub = setSharedHub(new FeedHub({ source: connection, clock }));
  const advance = (ms = 0) => clock.advance(ms, () => hub.settled());
  return { hub, advance, client: connection.client as HedgingClient };
}

function rows(spill: Spill): Record<string, unknown>[] {
  const [header, ...body] = spill;
  return body.map((r) => Object.fromEntries(header.map((h, i) => [String(h), r[i]])));
}

async function controlPost(path: string, body: unknown): Promise<void> {
  expect((await control(sandbox, "POST", path, body)).status).toBe(200);
}

test("a filled hedge appears in HEDGE.POSITIONS within one poll interval", async () => {
  const { hub, advance, client } = feeds();
  const cell = new FakeInvocation<Spill>();
  fn.positions(undefined, undefined, cell as never);
  await advance();
  expect(rows(cell.value)).toEqual([]);

  const opened = await client.open({ market: "USDTNGN", side: "buy", notional_usd: 12_500, tenor_days: 7, client_reference: "FN-TEST-1" });
  sandbox.clock.advance(5_000); // past the fill time
  const hedge = await client.get(opened.data.hedge_id as string);
  expect(hedge.data.status).toBe("filled");

  await advance(hub.effectiveIntervalMs("positions"));
  const lines = rows(cell.value);
  expect(lines).toEqual([expect.objectContaining({ market: "USDTNGN", side: "buy" })]);
  expect(lines[0].size_usd).toBeCloseTo(12_500, 6);
  expect(typeof lines[0].maturity_at).toBe("number"); // a date serial
});

test("a 503 burst keeps the last value on screen and recovers", async () => {
  const { hub, advance } = feeds();
  const cell = new FakeInvocation<number>();
  fn.price("USDTNGN", cell as never);
  await advance();
  const first = cell.value;
  expect(first).toBeGreaterThan(0);
  const firstFetch = hub.peek("prices:USDTNGN")?.fetchedAt as number;

  // A poll is one attempt (the hub backs off instead of the client retrying): three polls in a row fail.
  await controlPost("/faults", { fail_next: { count: 3, code: "service_unavailable", path: "/prices" } });
  await advance(hub.effectiveIntervalMs("prices"));
  expect(hub.peek("prices:USDTNGN")?.lastError?.code).toBe("service_unavailable");
  expect(hub.status()).toMatchObject({ connected: false });
  expect(cell.results.some((r) => r instanceof FakeExcelError)).toBe(false);
  expect(typeof cell.value).toBe("number");

  await advance(60_000); // backs off, then the burst is over
  expect(hub.peek("prices:USDTNGN")?.lastError).toBeNull();
  expect(hub.peek("prices:USDTNGN")?.fetchedAt).toBeGreaterThan(firstFetch);
  expect(hub.status()).toMatchObject({ connected: true });
  expect(cell.results.some((r) => r instanceof FakeExcelError)).toBe(false);
});

test("a revoked key shows #N/A naming invalid_api_key in every cell", async () => {
  const { advance } = feeds(DEMO_REVOKED_API_KEY);
  const price = new FakeInvocation<number>();
  const account = new FakeInvocation<Spill>();
  fn.price("USDTNGN", price as never);
  fn.account(undefined, account as never);
  await advance();
  for (const cell of [price, account]) {
    expect(cell.error.code).toBe("#N/A");
    expect(cell.error.message).toMatch(/^invalid_api_key:/);
    expect(cell.error.message).not.toContain(DEMO_REVOKED_API_KEY);
  }
});

test("QUOTE, CAPACITY and CARRY read the sandbox's numbers", async () => {
  const { advance, client } = feeds();
  const quote = new FakeInvocation<Spill>();
  const capacity = new FakeInvocation<number>();
  const carry = new FakeInvocation<number>();
  fn.quote("USDTNGN", "sell", 20_000, 3, "upfront.total_upfront_usdc", quote as never);
  fn.capacity("USDTNGN", "sell", capacity as never);
  fn.carry("USDTNGN", "sell", carry as never);
  await advance();
  const direct = await client.quote({ market: "USDTNGN", side: "sell", notional_usd: 20_000, tenor_days: 3 });
  expect(quote.value).toEqual([[direct.data.upfront.total_upfront_usdc]]);
  const markets = await client.markets();
  const usdtngn = markets.data.find((m) => m.market === "USDTNGN");
  expect(capacity.value).toBe(usdtngn?.available_capacity_usd.sell);
  expect(carry.value).toBe(usdtngn?.net_rate_daily_pct.sell);
});

test("ROLLCOST of 5,000,000 USD for 90 days at 7 sums the sandbox's own quotes: 12 hedges of 7 days and 2 of 3", async () => {
  const { advance, client, hub } = feeds();
  const cell = new FakeInvocation<Spill>();
  fn.rollcost("USDTNGN", "buy", 5_000_000, 90, 7, undefined, undefined, undefined, cell as never);
  await advance();
  const f = Object.fromEntries(cell.value.map(([k, v]) => [k, v])) as Record<string, number | string>;
  // The very quotes the cell summed: the hub's cached answers of HEDGE.QUOTE's questions.
  const cached = (t: number) => hub.peek<Quote>(`quote:USDTNGN|buy|5000000|${t}`)?.value as Quote;
  const [q7, q3] = [cached(7), cached(3)];
  expect(f.hedges).toBe(14);
  expect(f.tenors).toBe("7d × 12 + 3d × 2");
  expect(f.fees_usdc).toBeCloseTo(12 * q7.upfront.platform_fee_usdc + 2 * q3.upfront.platform_fee_usdc, 6);
  expect(f.carry_usdc).toBeCloseTo(12 * q7.carry.total_usdc + 2 * q3.carry.total_usdc, 6);
  expect(f.price_impact_usd).toBeCloseTo(12 * q7.pricing.price_impact_usd + 2 * q3.pricing.price_impact_usd, 6);
  expect(f.total_usd).toBeCloseTo((f.fees_usdc as number) + (f.carry_usdc as number) - (f.price_impact_usd as number), 6);
  expect(f.total_yearly_rate).toBeCloseTo(((f.total_usd as number) / 5_000_000 / 90) * 365, 12);
  // The guide's 5,000,000 is above what one Open may carry on the sandbox: the spill names it, and the service agrees.
  const warnings = cell.value.filter(([k]) => k === "warning").map(([, v]) => String(v));
  expect(warnings.length).toBeGreaterThan(0);
  expect(warnings[0]).toMatch(
    /^notional_usd 5,000,000\.00 is above (USDTNGN buy's available capacity|the account's available exposure) [\d,.]+ /,
  );
  await expect(client.open({ market: "USDTNGN", side: "buy", notional_usd: 5_000_000, tenor_days: 7 })).rejects.toMatchObject({
    code: expect.stringMatching(/exposure_exceeded|insufficient/),
  });
  // Fees and carry do not move with the price: a direct POST /quotes of each tenor gives the same figures.
  for (const [t, q] of [
    [7, q7],
    [3, q3],
  ] as const) {
    const direct = (await client.quote({ market: "USDTNGN", side: "buy", notional_usd: 5_000_000, tenor_days: t })).data;
    expect(direct.upfront.platform_fee_usdc).toBe(q.upfront.platform_fee_usdc);
    expect(direct.carry.total_usdc).toBe(q.carry.total_usdc);
  }
});
