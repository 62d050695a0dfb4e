// Reconciliation phase 3 on its own: the differences found from attributed rows and hedges, their scope and their order.
import { attributeLogRows } from "../../src/monthend/attribute-log";
import { attributeRecords } from "../../src/monthend/attribute-records";
import { findDifferences } from "../../src/monthend/differences";
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
