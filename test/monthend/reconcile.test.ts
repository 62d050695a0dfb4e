// Reconciliation as plain functions: realized records of the month and their exact totals, open positions, and each kind of difference with the Hedge Log.
import { reconcile } from "../../src/monthend/reconcile";
import { logState } from "../../src/monthend/differences";
import { CONTROLS, controlRecord } from "../../src/trading/log/control-row";
import { closed, hedge, logRow, monthData, position } from "../support/builders";

describe("realized section", () => {
  it("keeps only records closed in the month (UTC), newest first, and sums each side exactly", () => {
    const history = [
      closed({ hedge_id: "a", closed_at: "2026-10-31T23:59:59.999Z", net_pnl_usd: 1 }), // October
      closed({
        hedge_id: "b",
        closed_at: "2026-11-01T00:00:00.000Z",
        side: "buy",
        size_usd: 0.1,
        net_pnl_usd: 0.1,
        gross_pnl_usd: 0.1,
        carry_usd: 0.1,
        fees_usd: 0.1,
      }),
      closed({
        hedge_id: "c",
        closed_at: "2026-11-30T23:59:59.999Z",
        side: "buy",
        size_usd: 0.2,
        net_pnl_usd: 0.2,
        gross_pnl_usd: 0.2,
        carry_usd: 0.2,
        fees_usd: 0.2,
      }),
      closed({
        hedge_id: "d",
        closed_at: "2026-11-15T12:00:00.000Z",
        side: "sell",
        size_usd: 1000,
        net_pnl_usd: -12.34,
        gross_pnl_usd: -10,
        carry_usd: -1.34,
        fees_usd: 1,
      }),
      closed({ hedge_id: "e", closed_at: "2026-12-01T00:00:00.000Z", net_pnl_usd: 5 }), // December
    ];
    const recon = reconcile(
      monthData({ history, hedges: history.map((r) => hedge({ id: r.hedge_id!, client_reference: r.client_reference })) }),
    );
    expect(recon.realized.map((l) => l.hedgeId)).toEqual(["c", "d", "b"]);
    const [buy, sell, all] = recon.realizedTotals;
    expect(buy).toMatchObject({ label: "buy", count: 2, sizeUsd: 0.3, netPnlUsd: 0.3, grossPnlUsd: 0.3, carryUsd: 0.3, feesUsd: 0.3 });
    expect(sell).toMatchObject({ label: "sell", count: 1, netPnlUsd: -12.34 });
    expect(all).toMatchObject({ label: "all", count: 3, sizeUsd: 1000.3, netPnlUsd: -12.04 });
  });

  it("finds the hedge of a record without hedge_id through its client reference", () => {
    const record = closed({ hedge_id: undefined, client_reference: "DEAL-9" });
    const recon = reconcile(
      monthData({
        history: [record],
        hedges: [hedge({ id: "h9", client_reference: "DEAL-9" })],
        log: [
          logRow({
            hedgeId: "h9",
            clientReference: "DEAL-9",
            action: "close",
            notional: null,
            status: "closed",
            loggedAt: "2026-11-05T09:00:00Z",
          }),
          logRow({ hedgeId: "h9", clientReference: "DEAL-9" }),
        ],
      }),
    );
    expect(recon.realized[0].hedgeId).toBe("h9");
    expect(recon.differences).toEqual([]);
  });
});

describe("open section", () => {
  it("lists every position with its open hedge, and totals unrealized P&L and carry", () => {
    const positions = [
      position({ side: "sell", net_pnl_usd: 0.1, accrued_carry_usd: 0.7 }),
      position({ side: "buy", net_pnl_usd: 0.2, accrued_carry_usd: 0.1 }),
    ];
    const hedges = [hedge({ id: "s1", side: "sell", status: "filled", notional_usd: 50_000, client_reference: "S-1" })];
    const recon = reconcile(monthData({ positions, hedges }));
    expect(recon.open.map((l) => [l.position.side, l.hedgeId, l.clientReference])).toEqual([
      ["sell", "s1", "S-1"],
      ["buy", null, null],
    ]);
    expect(recon.openTotals).toMatchObject({ count: 2, netPnlUsd: 0.3, accruedCarryUsd: 0.8 });
  });
});

describe("differences", () => {
  const closedH1 = () => [closed()];
  const h1Closed = () => hedge();
  const openAndClose = () => [logRow(), logRow({ action: "close", notional: null, status: "closed", loggedAt: "2026-11-05T09:00:00Z" })];

  it("none when the log and the service agree", () => {
    const recon = reconcile(monthData({ history: closedH1(), hedges: [h1Closed()], log: openAndClose() }));
    expect(recon.differences).toEqual([]);
    expect(recon.counts).toMatchObject({ realized: 1, logRows: 2, serviceHedges: 1, differences: 0 });
  });

  it("a log action the service does not know (hedge id not found)", () => {
    const ghost = logRow({ hedgeId: "nope", clientReference: "GHOST", loggedAt: "2026-11-10T10:00:00Z" });
    const recon = reconcile(monthData({ history: closedH1(), hedges: [h1Closed()], log: [...openAndClose(), ghost] }));
    expect(recon.differences).toHaveLength(1);
    expect(recon.differences[0]).toMatchObject({
      kind: "log_unknown_to_service",
      hedgeId: "nope",
      clientReference: "GHOST",
      logIdempotencyKey: ghost.idempotencyKey,
      serviceSays: "hedge id not found",
    });
  });

  it("a filled log action with no hedge id that matches nothing by reference or market and side", () => {
    const ghost = logRow({ hedgeId: null, clientReference: "GHOST-2", side: "sell", loggedAt: "2026-11-10T10:00:00Z" });
    const recon = reconcile(monthData({ log: [ghost] }));
    expect(recon.differences.map((d) => [d.kind, d.clientReference])).toEqual([["log_unknown_to_service", "GHOST-2"]]);
  });

  it("rejected and failed log rows are not flagged when the service has nothing", () => {
    const rows = [
      logRow({ hedgeId: null, status: "rejected", errorCode: "exposure_exceeded", loggedAt: "2026-11-10T10:00:00Z" }),
      logRow({ hedgeId: "hf", status: "failed", loggedAt: "2026-11-10T11:00:00Z" }),
    ];
    const recon = reconcile(monthData({ log: rows, hedges: [hedge({ id: "hf", status: "failed", opened_at: "2026-11-10T11:00:00Z" })] }));
    expect(recon.differences).toEqual([]);
  });

  it("a service hedge with no log row", () => {
    const recon = reconcile(
      monthData({
        history: [...closedH1(), closed({ hedge_id: "x1", client_reference: "OTHER" })],
        hedges: [h1Closed(), hedge({ id: "x1", client_reference: "OTHER" })],
        log: openAndClose(),
      }),
    );
    const kinds = recon.differences.map((d) => [d.kind, d.hedgeId]);
    expect(kinds).toEqual([["service_not_in_log", "x1"]]);
  });

  it("a closed-hedge record with neither hedge id nor a logged client reference", () => {
    const recon = reconcile(monthData({ history: [closed({ hedge_id: null, client_reference: null, size_usd: 7 })] }));
    expect(recon.differences).toEqual([expect.objectContaining({ kind: "service_not_in_log", hedgeId: null, amount: 7 })]);
  });

  it("an open hedge in the log but not at the service is flagged only as unknown, never twice", () => {
    const recon = reconcile(monthData({ log: [logRow({ hedgeId: "gone", loggedAt: "2026-11-03T00:00:00Z" })] }));
    expect(recon.differences.map((d) => d.kind)).toEqual(["log_unknown_to_service"]);
  });

  it("notional that disagrees: open + add − reduce in the log against the service's open hedge", () => {
    const log = [
      logRow({ hedgeId: "o1", action: "open", notional: 100_000 }),
      logRow({ hedgeId: "o1", action: "add", notional: 50_000, clientReference: null, loggedAt: "2026-11-03T09:00:00Z" }),
      logRow({ hedgeId: "o1", action: "reduce", notional: 30_000, clientReference: null, loggedAt: "2026-11-04T09:00:00Z" }),
    ];
    const agree = reconcile(monthData({ log, hedges: [hedge({ id: "o1", status: "filled", notional_usd: 120_000 })] }));
    expect(agree.differences).toEqual([]);
    const disagree = reconcile(monthData({ log, hedges: [hedge({ id: "o1", status: "filled", notional_usd: 125_000 })] }));
    expect(disagree.differences).toEqual([
      expect.objectContaining({
        kind: "notional_mismatch",
        hedgeId: "o1",
        amount: -5_000,
        logSays: "net notional 120,000.00",
        serviceSays: "notional 125,000.00",
      }),
    ]);
  });

  it("a settlement at maturity is no difference (issue 39): the log shows the hedge open, the service settled it at maturity", () => {
    const recon = reconcile(monthData({ history: [closed({ exit_type: "maturity" })], hedges: [h1Closed()], log: [logRow()] }));
    expect(recon.differences).toEqual([]);
    expect(recon.counts.differences).toBe(0);
    // …unless the log's net notional is not what settled: then the notional disagrees, at maturity.
    const short = reconcile(
      monthData({ history: [closed({ exit_type: "maturity" })], hedges: [h1Closed()], log: [logRow({ notional: 90_000 })] }),
    );
    expect(short.differences).toEqual([
      expect.objectContaining({
        kind: "notional_mismatch",
        hedgeId: "h1",
        logSays: "net notional 90,000.00",
        serviceSays: "settled at maturity, notional 100,000.00",
        amount: -10_000,
        detail: "The hedge settled at maturity, but open, adds and reductions in the log do not add up to what settled.",
      }),
    ]);
    // A close the log does not record is still a difference, said as such.
    const closedByService = reconcile(monthData({ history: [closed({ exit_type: "close" })], hedges: [h1Closed()], log: [logRow()] }));
    expect(closedByService.differences).toEqual([
      expect.objectContaining({
        kind: "status_mismatch",
        serviceSays: "closed (close)",
        detail: "The service closed this hedge but no filled close in the log records it.",
      }),
    ]);
  });

  it("status that disagrees: the log closed it, the service still holds it", () => {
    const log = openAndClose();
    const recon = reconcile(monthData({ hedges: [hedge({ status: "filled" })], log }));
    expect(recon.differences).toEqual([
      expect.objectContaining({ kind: "status_mismatch", logSays: "closed", serviceSays: "filled, notional 100,000.00" }),
    ]);
  });

  it("status that disagrees: the log says the open failed, the service holds the hedge", () => {
    const recon = reconcile(monthData({ hedges: [hedge({ status: "filled" })], log: [logRow({ status: "failed" })] }));
    expect(recon.differences.map((d) => [d.kind, d.logSays])).toEqual([["status_mismatch", "failed"]]);
  });

  it("actions still pending, each on its own row, including older ones still pending", () => {
    const log = [
      logRow({ status: "submitted", hedgeId: "h1" }),
      logRow({ status: "submitting", hedgeId: null, clientReference: "DEAL-2", loggedAt: "2026-10-20T10:00:00Z", action: "open" }),
      logRow({ status: "submitting", hedgeId: null, clientReference: "DEAL-3", loggedAt: "2026-12-02T10:00:00Z" }), // after the month: not this month's
    ];
    const recon = reconcile(monthData({ hedges: [hedge({ status: "filled" })], log }));
    const pending = recon.differences.filter((d) => d.kind === "pending");
    expect(pending.map((d) => [d.logSays, d.serviceSays])).toEqual([
      ["submitting", "no hedge id yet"],
      ["submitted", "filled, notional 100,000.00"],
    ]);
    expect(recon.counts.pending).toBe(2);
    // The hedge's states are not compared while its log row is pending.
    expect(recon.differences.filter((d) => d.kind !== "pending")).toEqual([]);
  });

  it("a row waiting for the user's decision is pending and says so; a row the user marked not sent is like a refused one", () => {
    const log = [
      logRow({ status: "needs_decision", hedgeId: "h1", loggedAt: "2026-11-10T10:00:00Z" }),
      logRow({ status: "not_sent", hedgeId: null, clientReference: "DEAL-9", side: "sell", loggedAt: "2026-11-11T10:00:00Z" }),
    ];
    const recon = reconcile(monthData({ hedges: [hedge({ status: "filled" })], log }));
    expect(recon.differences.map((d) => [d.kind, d.logSays])).toEqual([["pending", "needs_decision"]]);
    expect(recon.differences[0].detail).toMatch(/Waits for your decision: open the Hedge pane, Unfinished rows/);
  });

  it("leaves out log rows of the other environment and says so", () => {
    const recon = reconcile(monthData({ log: [logRow({ environment: "production", hedgeId: "live-1" })] }));
    expect(recon.differences).toEqual([]);
    expect(recon.counts.otherEnvironmentLogRows).toBe(1);
    expect(recon.notes.join(" ")).toMatch(/1 log rows of another environment/);
  });

  it("leaves out log rows of another account of the same environment; rows without an account (older logs) still count", () => {
    const data = monthData({});
    const mine = data.accountAddress;
    const recon = reconcile(
      monthData({
        log: [
          logRow({ hedgeId: "other-account-1", clientReference: "OTHER", account: "0x" + "9".repeat(40) }),
          logRow({ hedgeId: "mine-unknown", clientReference: "MINE", account: mine }),
          logRow({ hedgeId: "older-log-row", clientReference: "OLDER", account: null }),
        ],
      }),
    );
    expect(recon.counts.otherEnvironmentLogRows).toBe(1);
    expect(recon.notes.join(" ")).toMatch(/1 log rows of another environment or account/);
    // The other account's row is not reported as unknown to this account's service; the two of this account are.
    const unknown = recon.differences.filter((d) => d.kind === "log_unknown_to_service").map((d) => d.hedgeId);
    expect(unknown.sort()).toEqual(["mine-unknown", "older-log-row"]);
  });

  it("a hedge opened before the month and closed in it is in scope; one closed before the month is not", () => {
    const hedges = [
      hedge({ id: "old", opened_at: "2026-10-01T00:00:00Z", client_reference: "OLD" }),
      hedge({ id: "span", opened_at: "2026-10-28T00:00:00Z", client_reference: "SPAN" }),
    ];
    const history = [
      closed({ hedge_id: "old", closed_at: "2026-10-05T00:00:00Z", client_reference: "OLD" }),
      closed({ hedge_id: "span", closed_at: "2026-11-02T00:00:00Z", client_reference: "SPAN" }),
    ];
    const recon = reconcile(monthData({ hedges, history }));
    expect(recon.differences.map((d) => [d.kind, d.hedgeId])).toEqual([["service_not_in_log", "span"]]);
  });

  it("attributes an add logged without hedge id or reference to the hedge live on that market and side", () => {
    const log = [
      logRow({ hedgeId: "o1" }),
      logRow({ hedgeId: null, clientReference: null, action: "add", notional: 1, loggedAt: "2026-11-03T00:00:00Z" }),
    ];
    const recon = reconcile(monthData({ log, hedges: [hedge({ id: "o1", status: "filled", notional_usd: 100_001 })] }));
    expect(recon.differences).toEqual([]);
  });
});

describe("a reduce that closes the whole hedge", () => {
  // The sandbox closes a hedge when what is left is under $1 or 0.1% of it: 100,000 − 99,950 leaves 50, so it closes,
  // records one `decrease` of the whole 100,000, and the desk logs the reduce `closed`.
  const wholeReduce = (over: Parameters<typeof closed>[0] = {}) =>
    closed({ exit_type: "decrease", size_usd: 100_000, closed_at: "2026-11-06T09:00:00.000Z", ...over });
  const log = () => [logRow(), logRow({ action: "reduce", notional: 99_950, status: "closed", loggedAt: "2026-11-06T09:00:00Z" })];

  it("is a close, not a status difference", () => {
    const recon = reconcile(monthData({ history: [wholeReduce()], hedges: [hedge()], log: log() }));
    expect(recon.differences).toEqual([]);
    expect(logState(log())).toEqual({ net: 0, closed: true });
  });

  it("dates the close of a hedge opened before the month, so it is in the month's scope", () => {
    const opened = "2026-10-20T09:00:00.000Z";
    const data = { history: [wholeReduce({ opened_at: opened })], hedges: [hedge({ opened_at: opened })] };
    // With no log row, the hedge must still be found as closed in November and flagged as traded outside the workbook.
    const recon = reconcile(monthData(data));
    expect(recon.differences.map((d) => [d.kind, d.hedgeId, d.serviceSays])).toEqual([["service_not_in_log", "h1", "closed (decrease)"]]);
    expect(recon.counts.serviceHedges).toBe(1);
    expect(reconcile(monthData({ ...data, log: log().map((r, i) => (i === 0 ? { ...r, loggedAt: opened } : r)) })).differences).toEqual([]);
  });

  it("a reduce logged `filled` that leaves something is still a reduction", () => {
    expect(logState([logRow(), logRow({ action: "reduce", notional: 99_950 })])).toEqual({ net: 50, closed: false });
  });
});

describe("closed-hedge records as the spec shows them: no hedge_id, no client_reference", () => {
  const bare = (over: Parameters<typeof closed>[0] = {}) => closed({ ...over, hedge_id: undefined, client_reference: undefined });
  const openAndClose = () => [logRow(), logRow({ action: "close", notional: null, status: "closed", loggedAt: "2026-11-05T09:00:00Z" })];

  it("ties a record to the listed hedge of its market and side opened at the same time, and learns how it closed", () => {
    const other = hedge({ id: "h2", client_reference: "DEAL-2", side: "sell", status: "filled", opened_at: "2026-11-02T09:00:00.000Z" });
    const recon = reconcile(
      monthData({
        history: [bare()],
        hedges: [hedge(), other],
        log: [...openAndClose(), logRow({ hedgeId: "h2", clientReference: "DEAL-2", side: "sell" })],
      }),
    );
    expect(recon.realized.map((l) => [l.hedgeId, l.clientReference])).toEqual([["h1", "DEAL-1"]]);
    expect(recon.differences).toEqual([]);
    // The log shows h1 open: the service closed it by a close, which only the record tells (at maturity it would be no difference).
    const ended = reconcile(monthData({ history: [bare({ exit_type: "close" })], hedges: [hedge()], log: [logRow()] }));
    expect(ended.differences.map((d) => [d.kind, d.hedgeId, d.serviceSays])).toEqual([["status_mismatch", "h1", "closed (close)"]]);
    const matured = reconcile(monthData({ history: [bare({ exit_type: "maturity" })], hedges: [hedge()], log: [logRow()] }));
    expect(matured.differences).toEqual([]);
  });

  it("accepts an opened_at up to a second apart, and prefers the same instant, then the same size", () => {
    const within = reconcile(
      monthData({ history: [bare({ opened_at: "2026-11-02T09:00:00.800Z" })], hedges: [hedge()], log: openAndClose() }),
    );
    expect(within.realized[0].hedgeId).toBe("h1");
    const tooFar = reconcile(
      monthData({ history: [bare({ opened_at: "2026-11-02T09:00:01.500Z" })], hedges: [hedge({ filled_at: null })], log: openAndClose() }),
    );
    expect(tooFar.realized[0].hedgeId).toBeNull();

    const twins = [
      hedge({ id: "a", notional_usd: 100_000, filled_at: null }),
      hedge({ id: "b", notional_usd: 40_000, opened_at: "2026-11-02T09:00:00.400Z", filled_at: null }),
    ];
    const exact = reconcile(monthData({ history: [bare()], hedges: twins }));
    expect(exact.realized[0].hedgeId).toBe("a");
    const bySize = reconcile(monthData({ history: [bare({ opened_at: "2026-11-02T09:00:00.200Z", size_usd: 40_000 })], hedges: twins }));
    expect(bySize.realized[0].hedgeId).toBe("b");
  });

  it("ignores a failed hedge opened at the same time, and gives up rather than guess between equal candidates", () => {
    const failed = hedge({ id: "f", status: "failed", client_reference: "DEAL-F" });
    expect(reconcile(monthData({ history: [bare()], hedges: [hedge(), failed] })).realized[0].hedgeId).toBe("h1");
    const twin = hedge({ id: "h1b", client_reference: "DEAL-1B" });
    const recon = reconcile(monthData({ history: [bare()], hedges: [hedge(), twin] }));
    expect(recon.realized[0].hedgeId).toBeNull();
  });
});

describe("logState", () => {
  it("counts only filled or closed rows; a full reduction closes", () => {
    expect(logState([logRow({ notional: 10 }), logRow({ action: "add", notional: 5, status: "failed" })])).toEqual({
      net: 10,
      closed: false,
    });
    expect(logState([logRow({ notional: 10 }), logRow({ action: "reduce", notional: 10 })])).toEqual({ net: 0, closed: true });
  });
});

const H = 3_600_000;
const T = Date.parse("2026-11-10T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
/** A hedge filled at `from`, and its maturity record when it ended (the summary's counts of rolls and unhedged sides). */
const held = (id: string, side: "buy" | "sell", from: number, end: number | null) => ({
  hedge: hedge({
    id,
    side,
    client_reference: `REF-${id}`,
    opened_at: iso(from),
    filled_at: iso(from),
    status: end === null ? "filled" : "closed",
  }),
  records:
    end === null
      ? []
      : [closed({ hedge_id: id, client_reference: `REF-${id}`, side, opened_at: iso(from), closed_at: iso(end), exit_type: "maturity" })],
});

describe("the counts the sheet's summary shows", () => {
  it("counts rolls and unhedged sides, the chain's findings (not the rows before it) and the service's, and carries both reports", () => {
    const book = [held("b1", "buy", T, T + H), held("b2", "buy", T + 4 * H, null), held("s1", "sell", T, T + H)];
    const chain = {
      rows: 3,
      chained: 2,
      headKnown: true,
      lines: [
        { kind: "before_chain" as const, sheet: "Hedge Log", rowNumber: 2, message: "before" },
        { kind: "edited" as const, sheet: "Hedge Log", rowNumber: 3, message: "edited" },
        { kind: "moved" as const, sheet: "Hedge Log", rowNumber: 4, message: "moved" },
      ],
    };
    const line = {
      kind: "differs" as const,
      field: "Struck rate",
      sheet: "Hedge Log",
      rowNumber: 3,
      logSays: "1",
      serviceSays: "2",
      message: "m",
    };
    const service = {
      compared: 1,
      complete: true,
      lines: [line, { ...line, rowNumber: 4 }, { ...line, rowNumber: 5 }],
      cells: { checked: 15, sealed: 13, workbookOnly: 0 },
    };
    const recon = reconcile(
      monthData({
        hedges: book.map((b) => b.hedge),
        history: book.flatMap((b) => b.records),
        chain,
        service,
        generatedAtMs: Date.UTC(2026, 11, 1, 10),
      }),
    );
    expect(recon.counts).toMatchObject({
      rolls: 1,
      unhedged: 1,
      chainFindings: 2,
      serviceFindings: 3,
      realized: 2,
      pending: 0,
      differences: 3,
    });
    expect(recon.differences.map((d) => d.kind)).toEqual(["service_not_in_log", "service_not_in_log", "service_not_in_log"]);
    expect(recon.chain).toBe(chain);
    expect(recon.service).toBe(service);
  });

  it("counts the open positions, and warns of a history read in part with the number of records the month kept", () => {
    const history = [
      closed({ hedge_id: "a", closed_at: "2026-11-05T09:00:00.000Z" }),
      closed({ hedge_id: "b", closed_at: "2026-10-05T09:00:00.000Z" }),
    ];
    const recon = reconcile(
      monthData({ positions: [position()], history, historyComplete: false, historyIncompleteReason: "40 pages read" }),
    );
    expect(recon.counts.open).toBe(1);
    expect(recon.historyIncomplete).toBe(
      "The hedge history was read only in part (40 pages read): the 1 records read are the newest ones, older records of the month are missing, so the realized section, its totals and the differences may be incomplete or wrong.",
    );
  });

  it("counts no findings when neither check ran", () => {
    const recon = reconcile(monthData({}));
    expect(recon.counts).toMatchObject({ rolls: 0, unhedged: 0, chainFindings: 0, serviceFindings: 0, differences: 0, open: 0 });
    expect([recon.chain, recon.service]).toEqual([null, null]);
  });

  it("takes a log row's environment whatever its case", () => {
    const recon = reconcile(monthData({ log: [logRow({ environment: "SANDBOX" as never, hedgeId: "unknown-1" })] }));
    expect(recon.counts).toMatchObject({ logRows: 1, otherEnvironmentLogRows: 0 });
    expect(recon.differences.map((d) => d.kind)).toEqual(["log_unknown_to_service"]);
  });
});

describe("control rows in the month (a change of a control, no trade)", () => {
  const ANN = "fp-00000000000000a1";
  const BOB = "fp-00000000000000b2";
  const live = (at: string, from: string, to: string, by: string, key: string) =>
    controlRecord(
      {
        control: CONTROLS.liveApproval,
        from,
        to,
        by,
        at,
        environment: "sandbox",
        account: "0xACCOUNT",
        hash: null,
        preparedBy: null,
        message: "",
      },
      key,
    );

  it("are listed and counted apart, the unticking flagged and noted first; never a log row of the trades nor a difference", () => {
    const log = [
      live("2026-11-03T08:00:00.000Z", "on", "off", ANN, "ctl-1"),
      logRow({ hedgeId: "o1", notional: 100_000, loggedAt: "2026-11-03T09:00:00Z" }),
      live("2026-11-03T10:00:00.000Z", "off", "on", BOB, "ctl-2"),
    ];
    const recon = reconcile(monthData({ log, hedges: [hedge({ id: "o1", status: "filled", notional_usd: 100_000 })] }));
    expect(recon.differences).toEqual([]);
    expect(recon.counts).toMatchObject({ logRows: 1, otherEnvironmentLogRows: 0, controls: 2, controlFlags: 1, differences: 0 });
    expect(recon.controls.map((c) => [c.from, c.to, c.flag !== null])).toEqual([
      ["on", "off", true],
      ["off", "on", false],
    ]);
    expect(recon.notes).toEqual([
      `“${CONTROLS.liveApproval}” was unticked once in the period (2026-11-03T08:00:00.000Z by ${ANN}): see Controls changed in the period.`,
      "Open positions, hedge states and notionals are as of the time generated: the service does not give them as of a past date.",
    ]);
  });

  it("a ticking alone flags nothing and adds no note", () => {
    const recon = reconcile(monthData({ log: [live("2026-11-03T10:00:00.000Z", "off", "on", BOB, "ctl-3")] }));
    expect(recon.counts).toMatchObject({ logRows: 0, controls: 1, controlFlags: 0, differences: 0 });
    expect(recon.notes).toEqual([
      "Open positions, hedge states and notionals are as of the time generated: the service does not give them as of a past date.",
    ]);
  });
});

describe("the summary's counts of rolls and unhedged sides", () => {
  it("counts each kind apart: two rolls on one side, the other side unhedged", () => {
    const book = [
      held("b1", "buy", T, T + H),
      held("b2", "buy", T + 2 * H, T + 3 * H),
      held("b3", "buy", T + 4 * H, null),
      held("s1", "sell", T, T + H),
    ];
    const recon = reconcile(monthData({ hedges: book.map((b) => b.hedge), history: book.flatMap((b) => b.records) }));
    expect(recon.sideTime.map((e) => e.kind).sort()).toEqual(["roll", "roll", "unhedged"]);
    expect(recon.counts).toMatchObject({ rolls: 2, unhedged: 1 });
  });
});
