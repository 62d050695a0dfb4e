// Reconciliation phase 1 on its own: which hedge each history record belongs to, and when each hedge closed.
import { attributeRecords } from "../../src/monthend/attribute-records";
import { closed, hedge } from "../support/builders";

describe("attributeRecords", () => {
  it("takes a record's hedge_id, and learns the close time and exit type of the latest non-decrease record", () => {
    const first = closed({ hedge_id: "h1", exit_type: "decrease", closed_at: "2026-11-04T09:00:00.000Z" });
    const last = closed({ hedge_id: "h1", exit_type: "maturity", closed_at: "2026-11-09T09:00:00.000Z" });
    const book = attributeRecords([hedge({ id: "h1" })], [first, last]);
    expect(book.hedgeOfRecord.get(first)).toBe("h1");
    expect(book.hedges.get("h1")).toMatchObject({ exitType: "maturity", closedAtMs: Date.parse("2026-11-09T09:00:00.000Z") });
  });

  it("knows a hedge the list did not return from its records alone", () => {
    const book = attributeRecords([], [closed({ hedge_id: "old", client_reference: "DEAL-OLD" })]);
    expect(book.hedges.get("old")).toMatchObject({ fromHistoryOnly: true, clientReference: "DEAL-OLD", status: "closed", notional: null });
  });

  it("ties a record without an id to the same-time opening of its market side, preferring the same instant, then the same size", () => {
    const record = closed({ hedge_id: undefined, client_reference: undefined, opened_at: "2026-11-02T09:00:00.000Z", size_usd: 100_000 });
    const sameInstant = hedge({ id: "a", client_reference: null, opened_at: "2026-11-02T09:00:00.000Z", notional_usd: 5 });
    const secondLater = hedge({ id: "b", client_reference: null, opened_at: "2026-11-02T09:00:00.900Z", filled_at: null as never });
    expect(attributeRecords([sameInstant, secondLater], [record]).hedgeOfRecord.get(record)).toBe("a");

    const twins = [
      hedge({ id: "c", client_reference: null, notional_usd: 100_000 }),
      hedge({ id: "d", client_reference: null, notional_usd: 70_000 }),
    ];
    expect(attributeRecords(twins, [record]).hedgeOfRecord.get(record)).toBe("c");
  });

  it("gives up rather than guess between equal candidates, and never takes a failed hedge", () => {
    const record = closed({ hedge_id: undefined, client_reference: undefined });
    const equal = [hedge({ id: "x", client_reference: null }), hedge({ id: "y", client_reference: null })];
    expect(attributeRecords(equal, [record]).hedgeOfRecord.get(record)).toBeNull();
    const failed = [hedge({ id: "f", client_reference: null, status: "failed" })];
    expect(attributeRecords(failed, [record]).hedgeOfRecord.get(record)).toBeNull();
  });

  it("dates the close of a hedge listed closed whose only ending record is a whole-size decrease", () => {
    const decrease = closed({ hedge_id: "h1", exit_type: "decrease", closed_at: "2026-11-06T10:00:00.000Z" });
    const book = attributeRecords([hedge({ id: "h1", status: "closed" })], [decrease]);
    expect(book.hedges.get("h1")).toMatchObject({ exitType: "decrease", closedAtMs: Date.parse("2026-11-06T10:00:00.000Z") });
    const stillOpen = attributeRecords([hedge({ id: "h1", status: "filled" })], [decrease]);
    expect(stillOpen.hedges.get("h1")?.closedAtMs).toBeNull();
  });

  it("opens a listed hedge at its opened_at, else at its fill, and keeps its fill time (the roll's timing reads it)", () => {
    const filledOnly = hedge({ id: "n", opened_at: null as never, filled_at: "2026-11-03T10:00:00.000Z" });
    const book = attributeRecords([hedge({ id: "h1" }), filledOnly], []);
    expect(book.hedges.get("h1")).toMatchObject({
      openedAtMs: Date.parse("2026-11-02T09:00:00.000Z"),
      filledAtMs: Date.parse("2026-11-02T09:00:02.000Z"),
    });
    expect(book.hedges.get("n")).toMatchObject({
      openedAtMs: Date.parse("2026-11-03T10:00:00.000Z"),
      filledAtMs: Date.parse("2026-11-03T10:00:00.000Z"),
    });
  });

  it("ties a record without an id to a hedge whose fill, not its order, was at the record's opening", () => {
    const record = closed({ hedge_id: undefined, client_reference: undefined, opened_at: "2026-11-02T09:00:30.000Z" });
    const filledThen = hedge({
      id: "f",
      client_reference: null,
      opened_at: "2026-11-02T09:00:00.000Z",
      filled_at: "2026-11-02T09:00:30.000Z",
    });
    expect(attributeRecords([filledThen], [record]).hedgeOfRecord.get(record)).toBe("f");
  });

  it("opens a hedge known from its records alone at the record's opening", () => {
    const book = attributeRecords([], [closed({ hedge_id: "old", opened_at: "2026-10-20T09:00:00.000Z" })]);
    expect(book.hedges.get("old")?.openedAtMs).toBe(Date.parse("2026-10-20T09:00:00.000Z"));
  });

  it("closes a hedge known from its records alone at its ending record, and of two endings takes the later in either order", () => {
    const book = attributeRecords([], [closed({ hedge_id: "old", exit_type: "maturity", closed_at: "2026-11-09T09:00:00.000Z" })]);
    expect(book.hedges.get("old")).toMatchObject({ exitType: "maturity", closedAtMs: Date.parse("2026-11-09T09:00:00.000Z") });
    const early = closed({ hedge_id: "h1", exit_type: "close", closed_at: "2026-11-05T09:00:00.000Z" });
    const late = closed({ hedge_id: "h1", exit_type: "maturity", closed_at: "2026-11-09T09:00:00.000Z" });
    for (const history of [
      [early, late],
      [late, early],
    ]) {
      expect(attributeRecords([hedge({ id: "h1" })], history).hedges.get("h1")).toMatchObject({
        exitType: "maturity",
        closedAtMs: Date.parse("2026-11-09T09:00:00.000Z"),
      });
    }
  });

  it("dates a hedge closed by decreases at its last decrease, in either order", () => {
    const partial = closed({ hedge_id: "h1", exit_type: "decrease", size_usd: 40_000, closed_at: "2026-11-04T10:00:00.000Z" });
    const rest = closed({ hedge_id: "h1", exit_type: "decrease", size_usd: 60_000, closed_at: "2026-11-06T10:00:00.000Z" });
    for (const history of [
      [partial, rest],
      [rest, partial],
    ]) {
      expect(attributeRecords([hedge({ id: "h1", status: "closed" })], history).hedges.get("h1")?.closedAtMs).toBe(
        Date.parse("2026-11-06T10:00:00.000Z"),
      );
    }
  });

  it("does not date a hedge known from its records alone closed by a decrease (the record does not say it took the whole)", () => {
    const book = attributeRecords([], [closed({ hedge_id: "old", exit_type: "decrease", size_usd: 40_000 })]);
    expect(book.hedges.get("old")).toMatchObject({ closedAtMs: null, exitType: null });
  });

  it("ties a record without an id by its client reference alone when one hedge of its market side has it, whatever the opening times", () => {
    const record = closed({ hedge_id: undefined, client_reference: "DEAL-9", opened_at: "2026-11-02T12:00:00.000Z" });
    const twins = [
      hedge({ id: "a", client_reference: "DEAL-9", opened_at: "2026-11-02T09:00:00.000Z" }),
      hedge({ id: "b", client_reference: "DEAL-8", opened_at: "2026-11-02T12:00:00.000Z" }),
    ];
    expect(attributeRecords(twins, [record]).hedgeOfRecord.get(record)).toBe("a");
  });

  it("breaks a tie by size only for a record of the whole hedge, and only within half a cent", () => {
    const at = { client_reference: null, opened_at: "2026-11-02T09:00:00.000Z" };
    const partial = closed({ hedge_id: undefined, client_reference: undefined, exit_type: "decrease", size_usd: 40_000 });
    // A decrease's size is the amount taken off, not the hedge's: a hedge of that size is no better a match.
    expect(
      attributeRecords([hedge({ id: "a", ...at, notional_usd: 40_000 }), hedge({ id: "b", ...at })], [partial]).hedgeOfRecord.get(partial),
    ).toBeNull();
    const whole = closed({ hedge_id: undefined, client_reference: undefined, size_usd: 100_000 });
    const nearly = [hedge({ id: "c", ...at, notional_usd: 100_000.004 }), hedge({ id: "d", ...at, notional_usd: 70_000 })];
    expect(attributeRecords(nearly, [whole]).hedgeOfRecord.get(whole)).toBe("c");
    const aCentOff = [hedge({ id: "e", ...at, notional_usd: 100_000.01 }), hedge({ id: "f", ...at, notional_usd: 70_000 })];
    expect(attributeRecords(aCentOff, [whole]).hedgeOfRecord.get(whole)).toBeNull();
  });

  it("ties a record whose reference two hedges share (a reused reference) by its opening time, and one whose reference no hedge has to none", () => {
    const record = closed({ hedge_id: undefined, client_reference: "DEAL-5", opened_at: "2026-11-09T09:00:00.000Z" });
    const reused = [
      hedge({ id: "first", client_reference: "DEAL-5", opened_at: "2026-11-02T09:00:00.000Z" }),
      hedge({ id: "second", client_reference: "DEAL-5", opened_at: "2026-11-09T09:00:00.000Z" }),
    ];
    expect(attributeRecords(reused, [record]).hedgeOfRecord.get(record)).toBe("second");
    expect(attributeRecords([hedge({ id: "other", client_reference: "DEAL-6" })], [record]).hedgeOfRecord.get(record)).toBeNull();
  });

  it("takes an opening exactly a second apart as the same opening, and not a millisecond more", () => {
    const record = closed({ hedge_id: undefined, client_reference: undefined, opened_at: "2026-11-02T09:00:01.000Z" });
    const at = (opened: string) => [hedge({ id: "h", client_reference: null, opened_at: opened, filled_at: opened })];
    expect(attributeRecords(at("2026-11-02T09:00:00.000Z"), [record]).hedgeOfRecord.get(record)).toBe("h");
    expect(attributeRecords(at("2026-11-02T08:59:59.999Z"), [record]).hedgeOfRecord.get(record)).toBeNull();
  });

  it("never ties a record to a hedge still in flight (submitting or submitted), nor to one of another market, opened at the same time", () => {
    const record = closed({ hedge_id: undefined, client_reference: undefined });
    for (const status of ["submitting", "submitted"] as const) {
      const inFlight = [hedge({ id: "held", client_reference: null }), hedge({ id: "flight", client_reference: null, status })];
      expect(attributeRecords(inFlight, [record]).hedgeOfRecord.get(record)).toBe("held");
    }
    const otherMarket = [hedge({ id: "kes", client_reference: null, market: "USDTKES" })];
    expect(attributeRecords(otherMarket, [record]).hedgeOfRecord.get(record)).toBeNull();
  });

  it("takes a size half a cent apart as another size (the edge itself, where a double holds half a cent exactly)", () => {
    const at = { client_reference: null, opened_at: "2026-11-02T09:00:00.000Z" };
    // 0.01 − 0.005 is exactly half a cent: not the same size, so neither twin is the record's.
    const tiny = closed({ hedge_id: undefined, client_reference: undefined, size_usd: 0.005 });
    const twins = [hedge({ id: "a", ...at, notional_usd: 0.01 }), hedge({ id: "b", ...at, notional_usd: 0.02 })];
    expect(attributeRecords(twins, [tiny]).hedgeOfRecord.get(tiny)).toBeNull();
  });
});
