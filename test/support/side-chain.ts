// A market side for the chain judgment tests: rows of USDTNGN sell on hedge h-1 (as the journal holds them), the hedge as the service shows it, and the side judged as a chain.
import { judgeChain, type ChainResult, type Evidence } from "../../src/trading/verdict";
import { intentFromRow, isFinal, type Intent } from "../../src/trading/intent";
import type { ClosedHedge, Hedge } from "../../src/api/schemas";
import type { Action, IntentStatus } from "../../src/trading/types";

export const DAY = "2026-11-25T";
let n = 0;

/** One row of USDTNGN sell on hedge h-1, logged and sent at `at` ("10:01:00"; `over` may say otherwise, e.g. sentAt: null = never left). */
export function row(
  action: Action,
  amount: number | null,
  status: IntentStatus,
  before: number | null,
  at: string,
  over: Partial<Intent> = {},
): Intent {
  const i = intentFromRow(
    { rowNumber: 2, action, market: "USDTNGN", side: "sell", notional: amount, tenor: action === "open" ? 7 : null, clientReference: null },
    `k-${++n}`,
    "sandbox",
    `${DAY}${at}Z`,
  );
  return Object.assign(i, { status, hedgeId: "h-1", notionalBefore: before, sentAt: `${DAY}${at}Z` }, over);
}

/** Hedge h-1 (USDTNGN sell) as the service shows it. */
export const hedge = (notional: number, status = "filled", over: Partial<Hedge> = {}): Hedge =>
  ({
    id: "h-1",
    market: "USDTNGN",
    side: "sell",
    status,
    notional_usd: notional,
    opened_at: `${DAY}09:00:00Z`,
    ...over,
  }) as unknown as Hedge;

/** What the service shows now: the hedge, and its closed records when read. */
export const now = (h: Hedge, records: ClosedHedge[] | null = null): Evidence => ({ hedges: [h], notFound: false, records });
export const final = (i: Intent) => isFinal(i.status);
export const judged = (side: Intent[], evidence: Evidence) => judgeChain(side, evidence, final);
/** Each unfinished row's result: took effect, did not, unclear (or accepted). */
export const results = (side: Intent[], evidence: Evidence): ChainResult[] => judged(side, evidence).links.map((l) => l.result);
