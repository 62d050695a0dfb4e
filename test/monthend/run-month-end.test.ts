// Reconcile month end to end without a network (reconcileMonth over a scripted client): the steps it says it takes, rows named by their sheet row when the workbook gives no places, the chain checked without this computer's head, and the roll costs' quotes (none, refused, at most ROLL_QUOTES_MAX, two at a time).
import type { ClosedHedge, Hedge } from "../../src/api/schemas";
import { HedgingApiError } from "../../src/api/errors";
import { MemorySheetWriter } from "../../src/excel/recon-sheet";
import type { MonthEndClient } from "../../src/monthend/month-data";
import { ROLL_QUOTES_MAX, reconcileMonth } from "../../src/monthend/run-month-end";
import type { LogRecord } from "../../src/trading/log/hedge-log";
import { closed, hedge, logRow } from "../support/builders";

const NOW = Date.UTC(2026, 11, 2, 9);
const iso = (ms: number) => new Date(ms).toISOString();

function client(hedges: Hedge[], history: ClosedHedge[], quote?: MonthEndClient["quote"]): MonthEndClient {
  const answer = <T>(data: T) => Promise.resolve({ data, meta: {} });
  return {
    environment: "sandbox",
    account: () =>
      answer({
        account_address: "0xACCOUNT",
        balance_usdc: 1,
        margin_used_usdc: 0,
        exposure_usd: 0,
        unrealized_pnl_usd: 0,
        open_positions: 0,
        max_exposure_usd: 1,
        available_exposure_usd: 1,
      }),
    positions: () => answer([]),
    list: () => answer(hedges),
    get: () => Promise.reject(new HedgingApiError({ code: "hedge_not_found", status: 404, message: "No hedge." })),
    history: () => answer(history),
    ...(quote ? { quote } : {}),
  } as unknown as MonthEndClient;
}

async function run(c: MonthEndClient, log: LogRecord[], over: Partial<Parameters<typeof reconcileMonth>[0]> = {}) {
  const progress: string[] = [];
  const writer = new MemorySheetWriter();
  const result = await reconcileMonth({ client: c, readLog: async () => log, writer, now: () => NOW, ...over }, "2026-11", {
    onProgress: (m) => progress.push(m),
  });
  return { ...result, progress, grid: writer.sheets.get(result.sheet.name)!.values };
}

describe("reconcileMonth", () => {
  it("says each step it takes, in order, the chain's only when the rows' places are read", async () => {
    const { progress } = await run(client([hedge()], [closed()]), [logRow()]);
    expect(progress.filter((m) => !m.startsWith("Reading the hedge history"))).toEqual([
      "Reading the Hedge Log…",
      "Reading the account…",
      "Reading positions and hedges…",
      "Checking the Hedge Log against the service…",
      "Reconciling…",
      "Pricing the rolls…",
      "Writing the sheet…",
    ]);
    const placed = await run(client([hedge()], [closed()]), [], {
      readLogRows: async () => [{ sheet: "Hedge Log", rowNumber: 2, record: logRow() }],
    });
    expect(placed.progress.slice(0, 2)).toEqual(["Reading the Hedge Log…", "Checking the Hedge Log's chain…"]);
  });

  it("without the rows' places, names a row by where it stands in the log: the second row is sheet row 3", async () => {
    const { reconciliation } = await run(client([hedge()], [closed()]), [
      logRow({ loggedAt: "2026-11-02T08:59:00.000Z" }),
      logRow({
        action: "close",
        notional: null,
        status: "closed",
        loggedAt: "2026-11-05T08:59:00.000Z",
        struckRate: 1,
        fillTxHash: "0xelse",
      }),
    ]);
    expect(reconciliation.service?.lines.map((l) => [l.sheet, l.rowNumber])).toContainEqual(["Hedge Log", 3]);
    expect(reconciliation.chain).toBeNull();
  });

  it("checks the chain over the rows' places without this computer's head when it has none to give", async () => {
    const { reconciliation, grid } = await run(client([hedge()], [closed()]), [], {
      readLogRows: async () => [{ sheet: "Hedge Log", rowNumber: 2, record: logRow() }],
    });
    expect(reconciliation.chain).toMatchObject({ rows: 1, headKnown: false });
    expect(grid.some((r) => r[0] === "Hedge Log chain findings")).toBe(true);
  });

  describe("the roll costs' quotes", () => {
    /** `n` hedges of one side, each closed an hour after it opened (early ends), of sizes 10,000 + i. */
    function earlyEnds(n: number) {
      const start = Date.UTC(2026, 10, 2);
      const hedges = Array.from({ length: n }, (_, i) =>
        hedge({
          id: `e${i}`,
          client_reference: `E-${i}`,
          notional_usd: 10_000 + i,
          opened_at: iso(start + i * 2 * 3_600_000),
          filled_at: iso(start + i * 2 * 3_600_000),
          status: "closed",
        }),
      );
      const history = hedges.map((h, i) =>
        closed({
          hedge_id: h.id,
          client_reference: h.client_reference,
          size_usd: 10_000 + i,
          opened_at: h.opened_at!,
          closed_at: iso(Date.parse(h.opened_at!) + 3_600_000),
          exit_type: "close",
        }),
      );
      return { hedges, history };
    }
    const quoteOf = (impact: number) => ({
      upfront: { platform_fee_usdc: 1 },
      carry: { total_usdc: 1 },
      pricing: { price_impact_usd: impact },
    });

    it('without a quote endpoint, or with one that refuses, the exit impacts and costs read "not known"', async () => {
      const { hedges, history } = earlyEnds(1);
      const none = await run(client(hedges, history), []);
      expect(none.reconciliation.sideTime[0].cost).toMatchObject({ exitImpactUsd: null, costUsd: null });
      const refusing = await run(
        client(hedges, history, () => Promise.reject(new HedgingApiError({ code: "market_closed", status: 409, message: "Closed." }))),
        [],
      );
      expect(refusing.reconciliation.sideTime[0].cost).toMatchObject({ exitImpactUsd: null, costUsd: null });
      const answering = await run(client(hedges, history, (() => Promise.resolve({ data: quoteOf(-12.5), meta: {} })) as never), []);
      expect(answering.reconciliation.sideTime[0].cost?.exitImpactUsd).toBe(12.5);
    });

    it(`asks at most ${ROLL_QUOTES_MAX} quotes, two at a time`, async () => {
      const { hedges, history } = earlyEnds(ROLL_QUOTES_MAX + 5);
      let inFlight = 0;
      let most = 0;
      const asked: number[] = [];
      const quote = (async (q: { notional_usd: number }) => {
        asked.push(q.notional_usd);
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return { data: quoteOf(-1), meta: {} };
      }) as never;
      const { reconciliation } = await run(client(hedges, history, quote), []);
      expect(asked).toHaveLength(ROLL_QUOTES_MAX);
      expect(most).toBe(2);
      // The ends past the bound are not priced: their cost reads "not known".
      const unpriced = reconciliation.sideTime.filter((e) => e.cost?.exitImpactUsd === null);
      expect(unpriced.length).toBeGreaterThan(0);
    });
  });
});
