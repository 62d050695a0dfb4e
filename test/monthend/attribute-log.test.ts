// Reconciliation phase 2 on its own: the service hedge each Hedge Log row acted on.
import { attributeLogRows } from "../../src/monthend/attribute-log";
import { attributeRecords } from "../../src/monthend/attribute-records";
import { closed, hedge, logRow } from "../support/builders";

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

  it("takes the nearest of several whatever order the service lists them in, only on the row's market and side, and none without a log time", () => {
    const early = hedge({ id: "early", client_reference: "DEAL-7", opened_at: "2026-11-01T09:00:00.000Z" });
    const late = hedge({ id: "late", client_reference: "DEAL-7", opened_at: "2026-11-20T09:00:00.000Z" });
    const row = logRow({ hedgeId: null, clientReference: "DEAL-7", loggedAt: "2026-11-02T09:00:00.000Z" });
    expect(idOf([row], [late, early])).toEqual(["early"]);
    expect(idOf([row], [early, late])).toEqual(["early"]);
    expect(idOf([logRow({ hedgeId: null, clientReference: "DEAL-7", loggedAt: "" })], [early, late])).toEqual([null]);
    const elsewhere = [
      hedge({ id: "kes", client_reference: "DEAL-7", market: "USDTKES" }),
      hedge({ id: "sell", client_reference: "DEAL-7", side: "sell" }),
    ];
    expect(idOf([logRow({ action: "open", hedgeId: null, clientReference: "DEAL-7" })], elsewhere)).toEqual([null]);
    expect(idOf([logRow({ action: "open", hedgeId: null, clientReference: "DEAL-7" })], [elsewhere[0], early])).toEqual(["early"]);
  });

  it("a hedge is live from the instant it opened to the instant it closed, on its own market and side, and only one may be", () => {
    const at = "2026-11-03T09:00:00.000Z";
    const add = logRow({ action: "add", hedgeId: null, clientReference: null, loggedAt: at });
    const book = (hedges: ReturnType<typeof hedge>[], history: ReturnType<typeof closed>[] = []) =>
      attributeLogRows([add], attributeRecords(hedges, history)).get(add)?.id ?? null;
    const openedThen = hedge({ id: "o", client_reference: null, status: "filled", opened_at: at, filled_at: at });
    expect(book([openedThen])).toBe("o");
    const closedThen = hedge({ id: "c", client_reference: null, opened_at: "2026-11-01T09:00:00.000Z" });
    expect(book([closedThen], [closed({ hedge_id: "c", closed_at: at })])).toBe("c");
    expect(book([closedThen], [closed({ hedge_id: "c", closed_at: "2026-11-03T08:59:59.999Z" })])).toBeNull();
    const otherSide = hedge({ id: "s", client_reference: null, status: "filled", side: "sell", opened_at: "2026-11-01T09:00:00.000Z" });
    const otherMarket = hedge({
      id: "m",
      client_reference: null,
      status: "filled",
      market: "USDTKES",
      opened_at: "2026-11-01T09:00:00.000Z",
    });
    expect(book([otherSide, otherMarket, openedThen])).toBe("o");
    expect(book([openedThen, { ...openedThen, id: "o2" }])).toBeNull();
    expect(
      book([hedge({ id: "n", client_reference: null, status: "filled", opened_at: null as never, filled_at: null as never })]),
    ).toBeNull();
  });

  it("ties a row whose market or side cell was emptied by its client reference alone", () => {
    const hedges = [hedge({ id: "h7", client_reference: "DEAL-7" })];
    const rows = [
      logRow({ hedgeId: null, clientReference: "DEAL-7", market: "" }),
      logRow({ hedgeId: null, clientReference: "DEAL-7", side: "" as never }),
    ];
    expect(idOf(rows, hedges)).toEqual(["h7", "h7"]);
  });
});
