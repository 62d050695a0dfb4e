// A hedging program run on the sandbox's own clock, as the roll tests run it (the functions', the desk's armed rolls, the roll preview, month end's rolls, the pane's): the sandbox over real HTTP with real time frozen, an account that never runs out of requests, the next whole hour, one dated exposure and its policy as grids and as read, and what a history realized.
import { HedgingClient } from "../../src/api/client";
import type { ClosedHedge } from "../../src/api/schemas";
import { readExposures, readPolicy } from "../../src/policy/inputs";
import type { AccountConfig } from "../../src/sandbox/accounts";
import { startSandbox, type RunningSandbox } from "../../src/sandbox/server";
import type { CellValue } from "../../src/trading/cells";
import { POLICY_HEADER } from "../policy/policy-header";

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** How long an Open takes to fill on the program sandbox's clock. */
export const FILL_MS = 1_500;
/** Real time frozen in the sandbox: only its clock moves, so each hedge lasts exactly its tenor. */
export const FROZEN = Date.parse("2026-11-02T09:00:00.000Z");

/** USD to whole cents, for sums that must be exact. */
export const cents = (x: number) => Math.round(x * 100);

/**
 * A USDTNGN trading account of 5,000,000 USDC and 5,000,000 USD of exposure whose rate limit does not run dry while real
 * time stands still (a frozen realNow freezes the buckets too); `over`: its own differences (a second key, less money).
 */
export function programAccount(apiKey: string, accountAddress: string, over: Partial<AccountConfig> = {}): AccountConfig {
  return {
    api_key: apiKey,
    account_address: accountAddress,
    balance_usdc: 5_000_000,
    max_exposure_usd: 5_000_000,
    allowed_markets: ["USDTNGN"],
    scopes: ["read", "trade"],
    rate_limit_per_second: 1_000_000,
    ...over,
  };
}

/** The test file's program sandbox: read `sandbox` inside a test or hook; `client` is a HedgingClient over it. */
export interface ProgramSandbox {
  readonly sandbox: RunningSandbox;
  client(apiKey: string): HedgingClient;
}

/**
 * Starts the program sandbox (over HTTP on a free port, `seed`, fills of FILL_MS, real time FROZEN, `accounts`) before the
 * importing file's tests, closes it after them and resets it before each, so that every test starts from the same book.
 */
export function programSandbox(seed: number, accounts: AccountConfig[]): ProgramSandbox {
  let running: RunningSandbox | undefined;
  beforeAll(async () => {
    running = await startSandbox({ port: 0, http: true, seed, fillMs: FILL_MS, realNow: () => FROZEN, accounts });
  });
  afterAll(async () => {
    await running?.close();
  });
  beforeEach(() => running?.reset());
  const world = {
    get sandbox(): RunningSandbox {
      if (!running) throw new Error("The program sandbox starts in beforeAll: read it inside a test or a hook.");
      return running;
    },
    client: (apiKey: string) => new HedgingClient({ apiKey, baseUrl: world.sandbox.baseUrl }),
  };
  return world;
}

/** Moves the sandbox's clock on to the next whole hour (now, when it is one) and returns it: where a program starts. */
export function toNextHour(clock: { now(): number; advance(ms: number): void }): number {
  const start = Math.ceil(clock.now() / HOUR) * HOUR;
  clock.advance(start - clock.now());
  return start;
}

/** The model sheet of one dated USDTNGN buy exposure of `notional` USD due at `valueDateMs`. */
export function exposureGrid(notional: number, valueDateMs: number): CellValue[][] {
  return [
    ["Market", "Side", "Amount (USD)", "Value date"],
    ["USDTNGN", "buy", notional, new Date(valueDateMs).toISOString()],
  ];
}

/** The policy sheet of the programs: every market hedged 100 % at tenor 7, rounded to 1,000, trades of 10,000 at least, sides not netted. */
export function policyGrid(policy: { roll: string; rollWithinHours: number; maxTradeUsd?: number }): CellValue[][] {
  return [POLICY_HEADER, ["*", 100, 7, 1_000, 10_000, policy.maxTradeUsd ?? "", "no", policy.rollWithinHours, policy.roll]];
}

/** The exposure and policy above, read as HEDGE.TARGET and the pane read them. */
export function programModel(notional: number, valueDateMs: number, policy: Parameters<typeof policyGrid>[0]) {
  return {
    exposures: readExposures({ values: exposureGrid(notional, valueDateMs) }),
    policy: readPolicy({ values: policyGrid(policy) }),
  };
}

/** What a history realized, in USD summed to the cent: its fees, and its carry as a cost (positive when paid). */
export function realized(history: readonly ClosedHedge[]): { feesUsd: number; carryUsd: number } {
  return {
    feesUsd: history.reduce((s, r) => s + cents(r.fees_usd), 0) / 100,
    carryUsd: -history.reduce((s, r) => s + cents(r.carry_usd), 0) / 100,
  };
}
