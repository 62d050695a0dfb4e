// Reconciliation phase 3 on its own: the differences found from attributed rows and hedges, their scope and their order.
import { attributeLogRows } from "../../src/monthend/attribute-log";
import { attributeRecords } from "../../src/monthend/attribute-records";
import { findDifferences, logState } from "../../src/monthend/differences";
import { realizedLines } from "../../src/monthend/sections";
import type { ClosedHedge, Hedge } from "../../src/api/schemas";
import type { LogRecord } from "../../src/trading/log/hedge-log";
import { NOV, closed, hedge, logRow } from "../support/builders";

function differencesOf(log: LogRecord[], hedges: Hedge[], history: ClosedHedge[] = []) {
  const book = attributeRecords(hedges, history);
  return findDifferences({ month: NOV, book, attributed: attributeLogRows(log, book), realized: realizedLines(history, NOV, book) });
}

describe("findDifferences", () => {
  it("orders by kind (unknown, not in log, notional, status, pending), then log time", () => {
    const { differences } = differencesOf(
      [
        logRow({ status: "submitted", hedgeId: null, clientReference: "P", loggedAt: "2026-11-03T00:00:00.000Z" }),
        logRow({ hedgeId: "ghost", clientReference: "G", loggedAt: "2026-11-04T00:00:00.000Z" }),
      ],
      [hedge({ id: "orphan", client_reference: "O", status: "filled" })],
    );
    expect(differences.map((d) => d.kind)).toEqual(["log_unknown_to_service", "service_not_in_log", "pending"]);
  });

  it("counts rows in scope (logged in the month, or still pending from before) and the month's service hedges", () => {
    const result = differencesOf(
      [
        logRow({ loggedAt: "2026-10-20T00:00:00.000Z", hedgeId: "h1" }),
        logRow({ loggedAt: "2026-10-21T00:00:00.000Z", status: "submitting", hedgeId: null, clientReference: "Q" }),
        logRow({ loggedAt: "2026-11-02T09:00:00.000Z", hedgeId: "h1" }),
      ],
      [
        hedge({ id: "h1", status: "filled" }),
        hedge({ id: "gone", client_reference: "X", status: "closed", opened_at: "2026-10-01T00:00:00.000Z" }),
      ],
    );
    expect(result.scopedLogRows).toBe(2);
    expect(result.serviceHedges).toBe(1);
  });

  it("a net notional that disagrees gives the gap (log minus service) exactly", () => {
    const { differences } = differencesOf(
      [logRow({ notional: 100_000.1 }), logRow({ action: "add", notional: 0.2, loggedAt: "2026-11-03T00:00:00.000Z" })],
      [hedge({ id: "h1", status: "filled", notional_usd: 100_000 })],
    );
    expect(differences).toEqual([expect.objectContaining({ kind: "notional_mismatch", amount: 0.3, hedgeId: "h1" })]);
  });

  it("a realized record no hedge and no logged client reference explains is a service hedge with no log row", () => {
    const record = closed({ hedge_id: undefined, client_reference: "NOBODY", opened_at: "2026-11-02T00:00:00.000Z" });
    const { differences } = differencesOf([], [], [record]);
    expect(differences).toEqual([expect.objectContaining({ kind: "service_not_in_log", clientReference: "NOBODY", amount: 100_000 })]);
  });
});

describe("findDifferences: an open the log calls filled that the service does not hold", () => {
  it("says the open failed when the service failed it, and that the log is ahead while the service has it in flight", () => {
    for (const [status, detail] of [
      ["failed", "The log says filled but the service says the open failed: nothing is held."],
      ["submitted", "The log is ahead of the service: check the hedge."],
      ["submitting", "The log is ahead of the service: check the hedge."],
    ] as const) {
      const { differences } = differencesOf([logRow()], [hedge({ status })]);
      expect(differences).toEqual([
        expect.objectContaining({ kind: "status_mismatch", hedgeId: "h1", logSays: "filled", serviceSays: status, amount: null, detail }),
      ]);
    }
    // A closed row of an Add, or an Open the service holds, is no such difference.
    expect(differencesOf([logRow({ action: "add", notional: 5 })], [hedge({ status: "submitted" })]).differences).toEqual([]);
  });
});

describe("findDifferences: a service hedge whose rows all failed or were refused", () => {
  it("is a hedge with no log row that went through, flagged once at the hedge (its amount the service's)", () => {
    // The log holds only a refused Add on h1 (its Open was made elsewhere): the service holds the hedge all the same.
    const { differences } = differencesOf(
      [logRow({ action: "add", notional: 5_000, status: "rejected", loggedAt: "2026-11-03T00:00:00.000Z" })],
      [hedge({ status: "filled", notional_usd: 100_000 })],
    );
    expect(differences).toEqual([
      expect.objectContaining({
        kind: "service_not_in_log",
        hedgeId: "h1",
        logSays: "only failed or rejected rows",
        serviceSays: "filled, notional 100,000.00",
        amount: 100_000,
        logIdempotencyKey: null,
        detail: "The log records no action on this hedge that went through, yet the service holds it.",
      }),
    ]);
  });

  it("is not flagged when the service failed the hedge too, nor for a hedge known only from history whose close is not known", () => {
    expect(differencesOf([logRow({ status: "failed" })], [hedge({ status: "failed" })]).differences).toEqual([]);
    // A failed open made outside this log (no row names it): it held nothing, so month end has nothing to reconcile.
    expect(differencesOf([], [hedge({ status: "failed" })]).differences).toEqual([]);
    // A record naming a hedge the list did not return, with no time it closed: nothing to compare it with.
    const record = closed({ hedge_id: "old", client_reference: "OLD", closed_at: "not a time" as never });
    const book = attributeRecords([], [record]);
    const { differences } = findDifferences({
      month: NOV,
      book,
      attributed: attributeLogRows([logRow({ hedgeId: "old", clientReference: "OLD" })], book),
      realized: [],
    });
    expect(differences).toEqual([]);
  });
});

describe("findDifferences: each row's own difference, in words", () => {
  it("an open the log calls failed or refused on a hedge the service holds, filled or closed since: real money", () => {
    for (const status of ["filled", "closed"] as const) {
      const { differences } = differencesOf([logRow({ status: "failed" })], [hedge({ status })], status === "closed" ? [closed()] : []);
      expect(differences).toEqual([
        expect.objectContaining({
          kind: "status_mismatch",
          logSays: "failed",
          detail:
            "The log says this open failed, but the service holds the hedge: it is real money. Check the hedge and correct your records.",
        }),
      ]);
    }
  });

  it("a pending row whose hedge the service shows: the log has not caught up; a final row no hedge matches by any means", () => {
    const { differences } = differencesOf(
      [
        logRow({ status: "submitted", loggedAt: "2026-11-03T00:00:00.000Z" }),
        logRow({ hedgeId: null, clientReference: "NOBODY", side: "sell", loggedAt: "2026-11-04T00:00:00.000Z" }),
      ],
      [hedge({ status: "filled" })],
    );
    expect(differences.map((x) => [x.kind, x.serviceSays, x.detail])).toEqual([
      [
        "log_unknown_to_service",
        "no matching hedge",
        "No service hedge matches this row by hedge id, client reference, or market and side at that time.",
      ],
      [
        "pending",
        "filled, notional 100,000.00",
        "The log has not caught up with the service: open the Hedge pane and press Resume so it records the outcome.",
      ],
    ]);
  });
});

describe("findDifferences: the rows of the month", () => {
  it("a final row logged from the month's first instant to before the next month's; a pending row from any time before the next month's", () => {
    const at = (loggedAt: string, status = "filled") =>
      logRow({ hedgeId: `g-${loggedAt}-${status}`, clientReference: null, status: status as never, loggedAt });
    const result = differencesOf(
      [
        at("2026-10-31T23:59:59.999Z"),
        at("2026-11-01T00:00:00.000Z"),
        at("2026-11-30T23:59:59.999Z"),
        at("2026-12-01T00:00:00.000Z"),
        at("2026-12-03T00:00:00.000Z"),
        at("2026-10-01T00:00:00.000Z", "submitted"),
        at("2026-12-01T00:00:00.000Z", "submitted"),
      ],
      [],
    );
    expect(result.differences.map((x) => [x.kind, x.loggedAt])).toEqual([
      ["log_unknown_to_service", "2026-11-01T00:00:00.000Z"],
      ["log_unknown_to_service", "2026-11-30T23:59:59.999Z"],
      ["pending", "2026-10-01T00:00:00.000Z"],
    ]);
    expect(result.scopedLogRows).toBe(3);
  });
});

describe("findDifferences: what each difference names", () => {
  it("of several differences of one kind, the earlier logged first, then by hedge id", () => {
    const { differences } = differencesOf(
      [],
      [
        hedge({ id: "b", client_reference: "B", status: "filled" }),
        hedge({ id: "a", client_reference: "A", status: "filled" }),
        hedge({ id: "c", client_reference: "C", status: "filled" }),
      ],
    );
    expect(differences.map((x) => x.hedgeId)).toEqual(["a", "b", "c"]);
    const unknown = differencesOf(
      [logRow({ hedgeId: "g2", loggedAt: "2026-11-09T00:00:00.000Z" }), logRow({ hedgeId: "g1", loggedAt: "2026-11-08T00:00:00.000Z" })],
      [],
    ).differences;
    expect(unknown.map((x) => x.hedgeId)).toEqual(["g1", "g2"]);
  });

  it("a row's own reference, market and side, else its hedge's reference; a cell left empty is no value", () => {
    const { differences } = differencesOf(
      [logRow({ status: "submitted", clientReference: null, market: "", side: "" as never, action: "" as never })],
      [hedge({ status: "filled" })],
    );
    expect(differences).toEqual([
      expect.objectContaining({ kind: "pending", hedgeId: "h1", clientReference: "DEAL-1", market: null, side: null, logAction: null }),
    ]);
  });

  it("a difference with no log time (or no hedge) before one with, whatever the other's time or id", () => {
    // A record of the sell side (so no buy hedge is its): it names no hedge.
    const record = closed({ hedge_id: null, client_reference: null, side: "sell", size_usd: 7 });
    const { differences } = differencesOf([], [hedge({ id: "A1", client_reference: "A-1", status: "filled" })], [record]);
    expect(differences.map((x) => [x.kind, x.hedgeId])).toEqual([
      ["service_not_in_log", null],
      ["service_not_in_log", "A1"],
    ]);
    const pending = differencesOf(
      [
        logRow({ status: "submitted", hedgeId: null, clientReference: "P2", loggedAt: "2026-11-03T00:00:00.000Z" }),
        logRow({ status: "submitted", hedgeId: null, clientReference: "P1", loggedAt: "" }),
      ],
      [],
    ).differences;
    expect(pending.map((x) => [x.clientReference, x.loggedAt])).toEqual([
      ["P1", null],
      ["P2", "2026-11-03T00:00:00.000Z"],
    ]);
    // Logged at the same instant: the one without a hedge id first, in whichever order the rows stand.
    for (const order of [0, 1]) {
      const rows = [
        logRow({ status: "submitted", hedgeId: "A1", clientReference: "Q2", loggedAt: "2026-11-03T00:00:00.000Z" }),
        logRow({ status: "submitted", hedgeId: null, clientReference: "Q1", loggedAt: "2026-11-03T00:00:00.000Z" }),
      ];
      const same = differencesOf(order ? rows.reverse() : rows, []).differences;
      expect(same.map((x) => x.hedgeId)).toEqual([null, "A1"]);
    }
  });

  it("what the service says of a hedge: closed without a record of how, filled as listed even when a record says it closed since", () => {
    // Listed closed, no record: "closed"; the log shows it open.
    expect(differencesOf([logRow()], [hedge({ status: "closed" })]).differences).toEqual([
      expect.objectContaining({ kind: "status_mismatch", serviceSays: "closed", logSays: "open, net notional 100,000.00" }),
    ]);
    // Listed filled (read before its close), with the close's record: what the list said, with its notional.
    const { differences } = differencesOf(
      [logRow(), logRow({ action: "close", notional: null, status: "closed", loggedAt: "2026-11-05T09:00:00Z" })],
      [hedge({ status: "filled" })],
      [closed({ exit_type: "close" })],
    );
    expect(differences).toEqual([
      expect.objectContaining({ kind: "status_mismatch", logSays: "closed", serviceSays: "filled, notional 100,000.00" }),
    ]);
  });

  it("a row naming a hedge the service does not know, without a reference: no reference; a pending one says the hedge is not found", () => {
    const { differences } = differencesOf(
      [
        logRow({ hedgeId: "ghost", clientReference: null, loggedAt: "2026-11-04T00:00:00.000Z" }),
        logRow({ hedgeId: "gone", clientReference: "G", status: "submitted", loggedAt: "2026-11-05T00:00:00.000Z" }),
      ],
      [],
    );
    expect(differences.map((x) => [x.kind, x.hedgeId, x.clientReference, x.serviceSays])).toEqual([
      ["log_unknown_to_service", "ghost", null, "hedge id not found"],
      ["pending", "gone", "G", "not found"],
    ]);
  });

  it("a notional that disagrees names the hedge's newest row, however the rows were given", () => {
    const rows = [
      logRow({ action: "add", notional: 500, loggedAt: "2026-11-04T00:00:00.000Z", idempotencyKey: "key-add" }),
      logRow({ idempotencyKey: "key-open" }),
    ];
    const { differences } = differencesOf(rows, [hedge({ status: "filled", notional_usd: 100_000 })]);
    expect(differences).toEqual([
      expect.objectContaining({
        kind: "notional_mismatch",
        amount: 500,
        logIdempotencyKey: "key-add",
        logAction: "add",
        loggedAt: "2026-11-04T00:00:00.000Z",
      }),
    ]);
  });
});

describe("logState", () => {
  it("a close ends a life of the position: what the rows said after it starts from nothing at the next Open or Add", () => {
    const open = logRow({ notional: 100 });
    const close = logRow({ action: "close", notional: null, status: "closed" });
    // A reduce logged after the close (taken off nothing), then a new Add: the new life is the Add alone.
    expect(logState([open, close, logRow({ action: "reduce", notional: 10 }), logRow({ action: "add", notional: 50 })])).toEqual({
      net: 50,
      closed: false,
    });
  });
});

describe("findDifferences: the words of each difference, as the recon sheet shows them", () => {
  it("a net that disagrees, a hedge the log closed that the service holds, and a record no hedge or logged reference explains", () => {
    const net = differencesOf([logRow({ notional: 100_000.1 })], [hedge({ id: "h1", status: "filled", notional_usd: 100_000 })]);
    expect(net.differences).toEqual([
      expect.objectContaining({
        kind: "notional_mismatch",
        detail: "Open, adds and reductions in the log do not add up to the service's notional.",
      }),
    ]);
    const closedInLog = differencesOf(
      [
        logRow({ hedgeId: "h1" }),
        logRow({ hedgeId: "h1", action: "close", status: "filled", notional: null, loggedAt: "2026-11-03T00:00:00.000Z" }),
      ],
      [hedge({ id: "h1", status: "filled", notional_usd: 100_000 })],
    );
    expect(closedInLog.differences).toEqual([
      expect.objectContaining({
        kind: "status_mismatch",
        logSays: "closed",
        amount: null,
        detail: "The log shows this hedge closed but the service still holds it open.",
      }),
    ]);
    const record = closed({ hedge_id: undefined, client_reference: "NOBODY", opened_at: "2026-11-02T00:00:00.000Z" });
    const orphan = differencesOf([], [], [record]);
    expect(orphan.differences).toEqual([
      expect.objectContaining({
        kind: "service_not_in_log",
        logSays: "no row",
        serviceSays: `closed (${record.exit_type}) ${record.closed_at}`,
        detail: "A closed-hedge record with no hedge id and no client reference found in the log.",
      }),
    ]);
    // The same record, its client reference on a log row: explained, not a difference.
    const explained = differencesOf([logRow({ hedgeId: null, clientReference: "NOBODY", status: "failed" })], [], [record]);
    expect(explained.differences.filter((d) => d.kind === "service_not_in_log")).toEqual([]);
  });
});

describe("findDifferences: the service hedges of the month", () => {
  it("opened before the next month's first instant; held open from before; closed from the month's first instant; listed closed with no record, opened from it", () => {
    const listed = [
      hedge({ id: "dec", client_reference: "DEC", status: "filled", opened_at: "2026-12-01T00:00:00.000Z", filled_at: null }),
      hedge({ id: "last", client_reference: "LAST", status: "filled", opened_at: "2026-11-30T23:59:59.999Z", filled_at: null }),
      hedge({ id: "held", client_reference: "HELD", status: "filled", opened_at: "2026-10-15T00:00:00.000Z", filled_at: null }),
      hedge({ id: "first", client_reference: "FIRST", status: "closed", opened_at: "2026-10-15T00:00:00.000Z", filled_at: null }),
      hedge({ id: "oct", client_reference: "OCT", status: "closed", opened_at: "2026-10-15T00:00:00.000Z", filled_at: null }),
      hedge({ id: "bare", client_reference: "BARE", status: "closed", opened_at: "2026-11-01T00:00:00.000Z", filled_at: null }),
      hedge({ id: "bare-oct", client_reference: "BARE-OCT", status: "closed", opened_at: "2026-10-31T23:59:59.999Z", filled_at: null }),
    ];
    const history = [
      closed({
        hedge_id: "first",
        client_reference: "FIRST",
        opened_at: "2026-10-15T00:00:00.000Z",
        closed_at: "2026-11-01T00:00:00.000Z",
      }),
      closed({ hedge_id: "oct", client_reference: "OCT", opened_at: "2026-10-15T00:00:00.000Z", closed_at: "2026-10-31T23:59:59.999Z" }),
    ];
    const result = differencesOf([], listed, history);
    expect(result.differences.map((d) => [d.kind, d.hedgeId])).toEqual([
      ["service_not_in_log", "bare"],
      ["service_not_in_log", "first"],
      ["service_not_in_log", "held"],
      ["service_not_in_log", "last"],
    ]);
    expect(result.serviceHedges).toBe(4);
  });

  it("a hedge the list did not return, known from its record of the month, against a log that shows it open", () => {
    const open = [logRow({ hedgeId: "old1", clientReference: "OLD-1" })];
    const record = (exit_type: string) =>
      closed({ hedge_id: "old1", client_reference: "OLD-1", exit_type: exit_type as never, closed_at: "2026-11-20T00:00:00.000Z" });
    // Closed by a Close the log does not record: the status disagrees.
    expect(differencesOf(open, [], [record("close")]).differences).toEqual([
      expect.objectContaining({ kind: "status_mismatch", hedgeId: "old1", serviceSays: "closed (close)" }),
    ]);
    // Settled at maturity: how a held hedge ends; its notional is not known (not listed), so there is nothing to compare.
    expect(differencesOf(open, [], [record("maturity")]).differences).toEqual([]);
  });
});

describe("findDifferences: a hedge's rows against the hedge", () => {
  it("a row still pending among its rows: flagged pending, the hedge's state not compared until the log catches up", () => {
    const rows = [logRow(), logRow({ action: "close", notional: null, status: "submitted", loggedAt: "2026-11-05T09:00:00Z" })];
    const { differences } = differencesOf(rows, [hedge({ status: "closed" })], [closed({ exit_type: "close" })]);
    expect(differences.map((d) => [d.kind, d.logAction, d.serviceSays])).toEqual([["pending", "close", "closed (close)"]]);
  });

  it("a refused Add beside the Open that went through: the net is the Open's, no difference", () => {
    const rows = [logRow(), logRow({ action: "add", notional: 5_000, status: "rejected", loggedAt: "2026-11-03T00:00:00.000Z" })];
    expect(differencesOf(rows, [hedge({ status: "filled", notional_usd: 100_000 })]).differences).toEqual([]);
  });

  it("a hedge whose rows all failed is flagged even when another hedge has a difference", () => {
    const rows = [
      logRow({ action: "add", notional: 5_000, status: "rejected", loggedAt: "2026-11-03T00:00:00.000Z" }),
      logRow({ hedgeId: "ghost", clientReference: "G", loggedAt: "2026-11-04T00:00:00.000Z" }),
    ];
    const { differences } = differencesOf(rows, [hedge({ status: "filled", notional_usd: 100_000 })]);
    expect(differences.map((d) => [d.kind, d.hedgeId, d.logSays])).toEqual([
      ["log_unknown_to_service", "ghost", "filled"],
      ["service_not_in_log", "h1", "only failed or rejected rows"],
    ]);
  });

  it("a Close logged on a hedge the service settled at maturity: both say closed, no difference", () => {
    const rows = [logRow(), logRow({ action: "close", notional: null, status: "closed", loggedAt: "2026-11-05T09:00:00Z" })];
    expect(differencesOf(rows, [hedge({ status: "closed" })], [closed({ exit_type: "maturity" })]).differences).toEqual([]);
  });

  it("half a cent apart is a difference, less is rounding: the tolerance at its edge, held, and settled at maturity", () => {
    // 0.01 − 0.005 is exactly half a cent in binary (0.01 is twice 0.005): the edge itself, where the rule decides.
    const held = (notional_usd: number) => differencesOf([logRow({ notional: 0.01 })], [hedge({ status: "filled", notional_usd })]);
    expect(held(0.005).differences).toEqual([expect.objectContaining({ kind: "notional_mismatch", amount: 0.005 })]);
    expect(held(0.0051).differences).toEqual([]);
    const settled = (notional_usd: number) =>
      differencesOf([logRow({ notional: 0.01 })], [hedge({ status: "closed", notional_usd })], [closed({ exit_type: "maturity" })]);
    expect(settled(0.005).differences).toEqual([
      expect.objectContaining({ kind: "notional_mismatch", amount: 0.005, serviceSays: "settled at maturity, notional 0.01" }),
    ]);
    expect(settled(0.0051).differences).toEqual([]);
  });
});

describe("logState: what a hedge's rows add up to", () => {
  it("no row that went through: nothing held, not closed", () => {
    expect(logState([])).toEqual({ net: 0, closed: false });
    expect(logState([logRow({ status: "failed" }), logRow({ action: "add", notional: 5, status: "rejected" })])).toEqual({
      net: 0,
      closed: false,
    });
  });

  it("a Reduce that leaves half a cent leaves it open; a row whose Action is none of the four changes nothing", () => {
    expect(logState([logRow({ notional: 100_000 }), logRow({ action: "reduce", notional: 99_999.995 })])).toEqual({
      net: 0.005,
      closed: false,
    });
    expect(logState([logRow({ notional: 100 }), logRow({ action: "", notional: null }), logRow({ action: "note", notional: 7 })])).toEqual({
      net: 100,
      closed: false,
    });
  });
});

describe("findDifferences: a hedge the service has in flight", () => {
  it("a hedge still in flight (submitting or submitted) since before the month is the month's", () => {
    for (const status of ["submitting", "submitted"] as const) {
      const result = differencesOf(
        [],
        [hedge({ id: "f", client_reference: "F", status, opened_at: "2026-10-31T23:00:00.000Z", filled_at: null })],
      );
      expect(result.differences.map((d) => [d.kind, d.hedgeId, d.serviceSays])).toEqual([["service_not_in_log", "f", status]]);
      expect(result.serviceHedges).toBe(1);
    }
  });
});

describe("findDifferences: a row the service refused", () => {
  it("a refused Open that no hedge matches is no difference: the service never held it", () => {
    const refused = logRow({ hedgeId: null, clientReference: "REFUSED", status: "rejected", errorCode: "exposure_exceeded" });
    expect(differencesOf([refused], []).differences).toEqual([]);
    // The same row still in flight is pending: the status alone tells them apart.
    expect(differencesOf([{ ...refused, status: "submitted", errorCode: null }], []).differences.map((d) => d.kind)).toEqual(["pending"]);
  });
});
