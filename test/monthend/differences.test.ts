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
