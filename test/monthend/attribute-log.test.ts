// Reconciliation phase 2 on its own: the service hedge each Hedge Log row acted on.
import { attributeLogRows } from "../../src/monthend/attribute-log";
import { attributeRecords } from "../../src/monthend/attribute-records";
import { hedge, logRow } from "../support/builders";

const idOf = (rows: ReturnType<typeof logRow>[], hedges: ReturnType<typeof hedge>[]) => {
  const attributed = attributeLogRows(rows, attributeRecords(hedges, []));
  return rows.map((r) => attributed.get(r)?.id ?? null);
};

describe("attributeLogRows", () => {
  it("takes the row's hedge id; an id the service does not know gives no hedge", () => {
    expect(idOf([logRow({ hedgeId: "h1" }), logRow({ hedgeId: "ghost" })], [hedge({ id: "h1" })])).toEqual(["h1", null]);
  });

  it("without an id, takes the hedge of its client reference; of several, the one opened nearest the row's log time", () => {
    const hedges = [
      hedge({ id: "early", client_reference: "DEAL-7", opened_at: "2026-11-01T09:00:00.000Z" }),
      hedge({ id: "late", client_reference: "DEAL-7", opened_at: "2026-11-20T09:00:00.000Z" }),
    ];
    const row = logRow({ hedgeId: null, clientReference: "DEAL-7", loggedAt: "2026-11-19T23:00:00.000Z" });
    expect(idOf([row], hedges)).toEqual(["late"]);
  });

  it("an add, reduce or close with neither takes the one hedge live on its market side when logged; an open never does", () => {
    const live = hedge({ id: "live", client_reference: null, status: "filled", opened_at: "2026-11-02T09:00:00.000Z" });
    const add = logRow({ action: "add", hedgeId: null, clientReference: null, loggedAt: "2026-11-03T09:00:00.000Z" });
    const open = logRow({ action: "open", hedgeId: null, clientReference: null, loggedAt: "2026-11-03T09:00:00.000Z" });
    const before = logRow({ action: "add", hedgeId: null, clientReference: null, loggedAt: "2026-11-01T09:00:00.000Z" });
    expect(idOf([add, open, before], [live])).toEqual(["live", null, null]);
  });
});
