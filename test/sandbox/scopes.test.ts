// Keys and scopes: an account with several keys, each with its own scopes; a read-only key is refused every trade and can quote and read the same account; the control API adds a key.
import { DEMO_API_KEY, DEMO_API_KEY_2, DEMO_APPROVER_API_KEY, DEMO_LIVE_API_KEY, DEMO_READ_API_KEY } from "../../src/sandbox/demo";
import type { RunningSandbox } from "../../src/sandbox/server";
import { control, OPEN, raw, start, until } from "./helpers";

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start();
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const SIDE = { market: "USDTNGN", side: "buy" };
/** Every trade of the spec, each a call that would change the account with a trading key. */
const trades = (hedgeId: string): Array<[string, unknown]> => [
  ["/hedges", { ...OPEN, side: "sell" }],
  ["/hedges/add", { ...SIDE, additional_notional_usd: 1_000 }],
  [`/hedges/${hedgeId}/add`, { additional_notional_usd: 1_000 }],
  ["/hedges/decrease", { ...SIDE, reduce_notional_usd: 1_000 }],
  ["/hedges/close", SIDE],
];

test("the demo account's read-only key is refused every trade with 403 insufficient_scope, and nothing changes", async () => {
  const opened = await raw(sb, "POST", "/hedges", { body: OPEN }); // with the trading key
  expect(opened.status).toBe(200);
  const hedgeId = (opened.json.data as { hedge_id: string }).hedge_id;
  const money = async () => {
    const { balance_usdc, margin_used_usdc, exposure_usd } = (await raw(sb, "GET", "/account")).json.data as Record<string, number>;
    return { balance_usdc, margin_used_usdc, exposure_usd };
  };
  const before = await money();
  for (const [path, body] of trades(hedgeId)) {
    const r = await raw(sb, "POST", path, { key: DEMO_READ_API_KEY, body, headers: { "Idempotency-Key": `read-only-${path}` } });
    expect([path, r.status, r.json.error?.code, r.json.error?.details]).toEqual([
      path,
      403,
      "insufficient_scope",
      { required_scope: "trade" },
    ]);
  }
  expect(await money()).toEqual(before);
  expect((await raw(sb, "GET", "/hedges")).json.data).toHaveLength(1);
});

test("the read-only key quotes and reads the same account as the trading key", async () => {
  const opened = await raw(sb, "POST", "/hedges", { body: OPEN });
  const hedgeId = (opened.json.data as { hedge_id: string }).hedge_id;
  // Filled first: a fill landing between the two keys' reads would tell them apart (a busy machine lets it).
  const statusOf = async () => ((await raw(sb, "GET", `/hedges/${hedgeId}`)).json.data as { status: string }).status;
  await until(async () => (await statusOf()) === "filled", 20_000, "the hedge to fill");
  const quote = await raw(sb, "POST", "/quotes", { key: DEMO_READ_API_KEY, body: OPEN });
  expect([quote.status, (quote.json.data as { notional_usd: number }).notional_usd]).toEqual([200, OPEN.notional_usd]);
  for (const path of ["/markets", "/prices", "/account", "/positions", "/hedges", `/hedges/${hedgeId}`, "/hedges/history"]) {
    const read = await raw(sb, "GET", path, { key: DEMO_READ_API_KEY });
    const trading = await raw(sb, "GET", path, { key: DEMO_API_KEY });
    expect([path, read.status]).toEqual([path, 200]);
    if (path !== "/prices" && path !== "/markets" && path !== "/positions")
      expect([path, read.json.data]).toEqual([path, trading.json.data]);
  }
  expect((await raw(sb, "GET", `/hedges/${hedgeId}`, { key: DEMO_API_KEY_2 })).json.error?.code).toBe("hedge_not_found");
});

test("POST /_sandbox/accounts/keys adds a key to an account: it acts on that account with its own scopes, until reset", async () => {
  const trader = "svc_test_added_trading_key_0001";
  const reader = "svc_test_added_reading_key_0001";
  const added = await control(sb, "POST", "/accounts/keys", { account_key: DEMO_READ_API_KEY, api_key: trader, scopes: ["read", "trade"] });
  expect([added.status, added.json.data]).toEqual([201, { api_key: "svc_test_…0001", environment: "sandbox", scopes: ["read", "trade"] }]);
  expect((await control(sb, "POST", "/accounts/keys", { account_key: DEMO_API_KEY, api_key: reader, scopes: ["read"] })).status).toBe(201);

  const opened = await raw(sb, "POST", "/hedges", { key: trader, body: OPEN });
  expect(opened.status).toBe(200);
  expect((await raw(sb, "GET", "/hedges", { key: DEMO_API_KEY })).json.data).toHaveLength(1); // the same account
  const refused = await raw(sb, "POST", "/hedges/close", { key: reader, body: SIDE });
  expect([refused.status, refused.json.error?.code]).toEqual([403, "insufficient_scope"]);

  const again = await control(sb, "POST", "/accounts/keys", { account_key: DEMO_API_KEY, api_key: trader, scopes: ["read"] });
  expect([again.status, again.json.error?.details]).toEqual([409, { fields: { api_key: "already exists" } }]);
  const unknown = await control(sb, "POST", "/accounts/keys", {
    account_key: "svc_test_nobody",
    api_key: "svc_test_x_0001",
    scopes: ["read"],
  });
  expect([unknown.status, unknown.json.error?.code]).toEqual([404, "not_found"]);
  const live = await control(sb, "POST", "/accounts/keys", { account_key: DEMO_API_KEY, api_key: "svc_live_x_0001", scopes: ["read"] });
  expect([live.status, live.json.error?.details]).toEqual([400, { fields: { api_key: expect.stringMatching(/same environment/) } }]);
  const badScope = await control(sb, "POST", "/accounts/keys", {
    account_key: DEMO_LIVE_API_KEY,
    api_key: "svc_live_y_0001",
    scopes: ["admin"],
  });
  expect([badScope.status, badScope.json.error?.details]).toEqual([400, { fields: { "scopes.0": "must be read or trade" } }]);

  const listed = (await control(sb, "GET", "/accounts")).json.data as Array<{
    api_key: string;
    keys: Array<{ api_key: string; scopes: string[] }>;
  }>;
  expect(listed.find((a) => a.api_key === DEMO_API_KEY)?.keys).toEqual([
    { api_key: DEMO_READ_API_KEY, scopes: ["read"], revoked: false },
    { api_key: DEMO_APPROVER_API_KEY, scopes: ["read", "trade"], revoked: false }, // a demo key: shown in full
    { api_key: "svc_test_…0001", scopes: ["read", "trade"], revoked: false },
    { api_key: "svc_test_…0001", scopes: ["read"], revoked: false },
  ]);
  expect(JSON.stringify(listed)).not.toContain(trader);

  await control(sb, "POST", "/reset");
  expect((await raw(sb, "GET", "/account", { key: trader })).json.error?.code).toBe("invalid_api_key");
  expect((await raw(sb, "GET", "/account", { key: DEMO_READ_API_KEY })).status).toBe(200); // the configured key stays
});
