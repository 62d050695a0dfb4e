// Judging a row by what the service shows: an Add/Reduce by the hedge's notional against the notional before it (never a threshold read from text), a closed hedge by its records, an Open by id or by client reference, opening time and notional (never "the newest hedge").
import {
  attributeOpen,
  CLOCK_SKEW_MS,
  describeHedge,
  recordsOf,
  usdText,
  verdict,
  type Evidence,
  type Verdict,
} from "../../src/trading/verdict";
import { intentFromRow, type Intent } from "../../src/trading/intent";
import type { ClosedHedge, Hedge } from "../../src/api/schemas";
import type { Action } from "../../src/trading/types";

const LOGGED = "2025-03-04T10:00:00.000Z";
const OPEN_FILL = { fill_tx_hash: "0xopenfill", struck_rate: 1500.5, filled_at: "2025-03-04T09:00:00.000Z" };

function intent(action: Action, over: Partial<Intent> = {}): Intent {
  const i = intentFromRow(
    {
      rowNumber: 2,
      action,
      market: "USDTNGN",
      side: "buy",
      notional: action === "close" ? null : 10_000,
      tenor: action === "open" ? 7 : null,
      clientReference: action === "open" ? "D-1" : null,
    },
    `k-${action}`,
    "sandbox",
    LOGGED,
  );
  return Object.assign(
    i,
    { status: "submitted", hedgeId: action === "open" ? null : "h-1", notionalBefore: action === "open" ? null : 100_000 },
    over,
  );
}

const hedge = (over: Partial<Hedge>): Hedge =>
  ({
    id: "h-1",
    client_reference: "D-0",
    market: "USDTNGN",
    side: "buy",
    status: "filled",
    notional_usd: 100_000,
    tenor_days: 7,
    order_tx_hash: "0xo",
    opened_at: "2025-03-04T09:00:00.000Z",
    ...OPEN_FILL,
    ...over,
  }) as unknown as Hedge;

const record = (exit: string, size: number, closedAt: string): ClosedHedge =>
  ({
    market: "USDTNGN",
    side: "buy",
    size_usd: size,
    exit_type: exit,
    opened_at: "2025-03-04T09:00:00.000Z",
    closed_at: closedAt,
    hedge_id: "h-1",
  }) as unknown as ClosedHedge;

const evidence = (hedges: Hedge[], records: ClosedHedge[] | null = null): Evidence => ({ hedges, notFound: false, records });

describe("an Add or a Reduce is judged by its own order: the notional before it and its amount", () => {
  it("an Add is filled when the hedge is at before + amount, not there when it is at before, and unclear otherwise", () => {
    expect(verdict(intent("add"), evidence([hedge({ notional_usd: 110_000 })]))).toMatchObject({
      kind: "effect",
      patch: { status: "filled" },
    });
    expect(verdict(intent("add"), evidence([hedge({ notional_usd: 100_000 })]))).toMatchObject({ kind: "absent", settled: false });
    // The frozen pane: an Add and the Reduce after it both executed (an older log): neither before nor after — never "filled at ≥ X".
    expect(verdict(intent("add"), evidence([hedge({ notional_usd: 105_000 })]))).toMatchObject({ kind: "unclear" });
  });

  it("a Reduce is filled at before − amount; a reduce of the whole hedge that closed it is closed", () => {
    expect(verdict(intent("reduce"), evidence([hedge({ notional_usd: 90_000 })]))).toMatchObject({
      kind: "effect",
      patch: { status: "filled" },
    });
    expect(verdict(intent("reduce"), evidence([hedge({ notional_usd: 100_000 })]))).toMatchObject({ kind: "absent" });
    const whole = intent("reduce", { notional: 100_000 });
    const closed = hedge({ status: "closed" });
    expect(verdict(whole, evidence([closed]))).toEqual({ kind: "needs_records", hedge: closed });
    expect(verdict(whole, evidence([closed], [record("decrease", 100_000, "2025-03-04T10:00:05.000Z")]))).toMatchObject({
      kind: "effect",
      patch: { status: "closed" },
    });
  });

  it("a closed hedge is judged by its records since the row: filled before the close, or closed without the row (dropped)", () => {
    const closed = hedge({ status: "closed" });
    expect(verdict(intent("add"), evidence([closed], [record("close", 110_000, "2025-03-04T10:01:00.000Z")]))).toMatchObject({
      kind: "effect",
      patch: { status: "filled" },
    });
    expect(verdict(intent("add"), evidence([closed], [record("close", 100_000, "2025-03-04T10:01:00.000Z")]))).toMatchObject({
      kind: "absent",
      settled: true,
    });
    const reduced = [record("decrease", 10_000, "2025-03-04T10:00:05.000Z"), record("maturity", 90_000, "2025-03-05T09:00:00.000Z")];
    expect(verdict(intent("reduce"), evidence([closed], reduced))).toMatchObject({ kind: "effect", patch: { status: "filled" } });
    // An earlier row's decrease just before this row (inside the clock-skew margin) does not count: the hedge matured at the
    // size it had before this reduce, so the reduce never took effect (it was dropped).
    const earlier = record("decrease", 36_300.15, "2025-03-04T09:59:30.000Z");
    expect(verdict(intent("reduce"), evidence([closed], [earlier, record("maturity", 100_000, "2025-03-05T09:00:00.000Z")]))).toMatchObject(
      {
        kind: "absent",
        settled: true,
      },
    );
    // Records before the row was logged are not this row's.
    expect(verdict(intent("add"), evidence([closed], [record("close", 110_000, "2025-03-01T00:00:00.000Z")]))).toMatchObject({
      kind: "unclear",
    });
    expect(verdict(intent("close"), evidence([closed], [record("maturity", 100_000, "2025-03-05T09:00:00.000Z")]))).toMatchObject({
      kind: "effect",
      patch: { status: "closed", message: "Closed: the hedge settled at maturity." },
    });
  });

  it("without the notional before (a row of an older log) it cannot tell, and says so", () => {
    expect(verdict(intent("add", { notionalBefore: null }), evidence([hedge({ notional_usd: 110_000 })]))).toMatchObject({
      kind: "unclear",
      says: expect.stringContaining("no notional before"),
    });
  });

  it("a failed hedge fails the row; hedge_not_found is unclear, never a guess", () => {
    expect(verdict(intent("add"), evidence([hedge({ status: "failed" })]))).toMatchObject({ kind: "effect", patch: { status: "failed" } });
    expect(verdict(intent("add"), { hedges: [], notFound: true, records: null })).toMatchObject({
      kind: "unclear",
      says: expect.stringContaining("hedge_not_found"),
    });
  });
});

describe("fill details of add, reduce and close", () => {
  it("leaves the open's fill tx, struck rate and filled-at off an add or reduce that filled", () => {
    for (const [action, notional] of [
      ["add", 110_000],
      ["reduce", 90_000],
    ] as const) {
      const v = verdict(intent(action), evidence([hedge({ notional_usd: notional })]));
      expect(v.kind).toBe("effect");
      const patch = (v as Extract<typeof v, { kind: "effect" }>).patch;
      expect(patch).not.toHaveProperty("fillTxHash");
      expect(patch).not.toHaveProperty("struckRate");
      expect(patch).not.toHaveProperty("filledAt");
    }
  });

  it("records them when the hedge shows a fill made after the row was journalled", () => {
    const later = { fill_tx_hash: "0xaddfill", struck_rate: 1501.25, filled_at: "2025-03-04T10:00:05.000Z" };
    expect(verdict(intent("add"), evidence([hedge({ ...later, notional_usd: 110_000 })]))).toMatchObject({
      kind: "effect",
      patch: { status: "filled", fillTxHash: "0xaddfill", struckRate: 1501.25, filledAt: later.filled_at },
    });
  });
});

describe("an Open is tied to its hedge by identity, never to the newest hedge of its side", () => {
  const mine = hedge({ id: "h-new", client_reference: "D-1", notional_usd: 10_000, opened_at: "2025-03-04T10:00:01.000Z" });
  it("by id when the answer had one; else by client reference, opened after the row was logged, and notional", () => {
    const older = hedge({ id: "h-old", client_reference: "D-0", status: "closed", opened_at: "2025-03-01T00:00:00.000Z" });
    expect(attributeOpen(intent("open"), [older, mine])).toEqual([mine]);
    expect(attributeOpen(intent("open", { hedgeId: "h-old" }), [older, mine])).toEqual([older]);
    // Same reference, but opened well before the row was logged: an earlier deal, not this row's.
    expect(attributeOpen(intent("open"), [{ ...mine, opened_at: "2025-03-03T00:00:00.000Z" }])).toEqual([]);
    // Two with the reference: the notional decides.
    expect(attributeOpen(intent("open"), [mine, { ...mine, id: "h-other", notional_usd: 20_000 }])).toEqual([mine]);
  });

  it("a failed open whose list lags (only an older closed hedge of the side is listed) is not filled: it is not there yet", () => {
    const older = hedge({ id: "h-old", client_reference: "D-0", status: "closed", opened_at: "2025-03-01T00:00:00.000Z" });
    expect(verdict(intent("open"), evidence([older]))).toMatchObject({ kind: "absent" });
    expect(verdict(intent("open"), evidence([older, { ...mine, status: "failed", fill_tx_hash: null }]))).toMatchObject({
      kind: "effect",
      patch: { status: "failed", hedgeId: "h-new" },
    });
    expect(verdict(intent("open"), evidence([{ ...mine, status: "closed" }]))).toMatchObject({
      kind: "effect",
      patch: { status: "filled", hedgeId: "h-new", fillTxHash: "0xopenfill" },
    });
  });
});

describe("what the row's message says about the hedge (the sentences a user reads under Unfinished rows)", () => {
  it("amounts are grouped by thousands, to the cent, with a minus only when something is left after rounding", () => {
    expect(usdText(125_000)).toBe("125,000.00 USD");
    expect(usdText(1_234_567.891)).toBe("1,234,567.89 USD");
    expect(usdText(999.5)).toBe("999.50 USD");
    expect(usdText(1_000)).toBe("1,000.00 USD");
    expect(usdText(0.07)).toBe("0.07 USD");
    expect(usdText(-36_300.15)).toBe("-36,300.15 USD");
    expect(usdText(-0.004)).toBe("0.00 USD");
  });

  it("each hedge status reads as what it means for the money, with a long hedge id shortened", () => {
    const long = "hdg_0123456789abcdef";
    expect(describeHedge(hedge({ id: long, status: "filled", notional_usd: 125_000 }))).toBe(
      "Hedge hdg_01234567… is filled at 125,000.00 USD.",
    );
    expect(describeHedge(hedge({ id: "hdg_0123456789ab", status: "submitted" }))).toBe(
      "Hedge hdg_0123456789ab is accepted (submitted) for 100,000.00 USD, not filled yet.",
    );
    expect(describeHedge(hedge({ status: "submitting" }))).toBe("Hedge h-1 is accepted (submitting) for 100,000.00 USD, not filled yet.");
    expect(describeHedge(hedge({ status: "failed" }))).toBe("Hedge h-1 failed: nothing was opened.");
    expect(describeHedge(hedge({ status: "closed" }))).toBe("Hedge h-1 is closed.");
    expect(describeHedge(hedge({ status: "settling" as Hedge["status"] }))).toBe("Hedge h-1 is settling at 100,000.00 USD.");
  });

  it("a row that cannot be judged says why: the hedge the service does not know, or no hedge in the log", () => {
    expect(verdict(intent("reduce", { hedgeId: "h-9" }), { hedges: [], notFound: true, records: null })).toEqual({
      kind: "unclear",
      says: "The service has no hedge h-9 (hedge_not_found).",
    });
    expect(verdict(intent("add", { hedgeId: null }), evidence([hedge({})]))).toEqual({
      kind: "unclear",
      says: "The log does not say which hedge this row acts on.",
    });
    expect(verdict(intent("add"), evidence([hedge({ status: "failed" })]))).toMatchObject({
      patch: { status: "failed", message: "The hedge failed: this add had no effect." },
      says: "Hedge h-1 failed: nothing was opened.",
    });
    expect(verdict(intent("add"), evidence([hedge({ notional_usd: 105_000 })]))).toEqual({
      kind: "unclear",
      says: "Hedge h-1 is filled at 105,000.00 USD. Before this row it was 100,000.00 USD: the change does not match the row.",
    });
    expect(verdict(intent("reduce"), evidence([hedge({})]))).toEqual({
      kind: "absent",
      settled: false,
      says: "Hedge h-1 is filled at 100,000.00 USD. Its notional is the one before this row.",
    });
  });

  it("a filled Add or Reduce says the hedge's new notional; a closed hedge lists its records since the row", () => {
    expect(verdict(intent("add"), evidence([hedge({ notional_usd: 110_000 })]))).toMatchObject({
      patch: { message: "Filled: hedge notional now 110,000.00 USD." },
    });
    expect(verdict(intent("reduce"), evidence([hedge({ notional_usd: 90_000 })]))).toMatchObject({
      patch: { message: "Filled: hedge notional now 90,000.00 USD." },
    });
    const closed = hedge({ status: "closed" });
    const records = [record("decrease", 10_000, "2025-03-04T10:00:05.000Z"), record("maturity", 90_000, "2025-03-05T09:00:00.000Z")];
    expect(verdict(intent("reduce"), evidence([closed], records))).toMatchObject({
      patch: { status: "filled", message: "Filled; the hedge has since been closed." },
      says: "Hedge h-1 is closed. Since the row: decrease of 10,000.00 USD, maturity of 90,000.00 USD.",
    });
    expect(verdict(intent("add"), evidence([closed], []))).toEqual({
      kind: "unclear",
      says: "Hedge h-1 is closed. No closed-hedge record since the row.",
    });
  });
});

describe("amounts that are not round: the notional after the row is before ± amount to the cent", () => {
  it("an Add of 12,345.67 on 100,000.00 is filled at 112,345.67, and unclear a cent-and-more away", () => {
    const add = intent("add", { notional: 12_345.67 });
    expect(verdict(add, evidence([hedge({ notional_usd: 112_345.67 })]))).toMatchObject({ kind: "effect", patch: { status: "filled" } });
    expect(verdict(add, evidence([hedge({ notional_usd: 112_345.69 })]))).toMatchObject({ kind: "unclear" });
    const closed = hedge({ status: "closed" });
    expect(verdict(add, evidence([closed], [record("close", 112_345.67, "2025-03-04T11:00:00.000Z")]))).toMatchObject({
      kind: "effect",
      patch: { status: "filled" },
    });
  });

  it("a Reduce of 0.10 + 0.20 of a cent-exact hedge is judged at the cent, not thrown off by floating point", () => {
    const reduce = intent("reduce", { notional: 0.3, notionalBefore: 100_000.1 });
    expect(verdict(reduce, evidence([hedge({ notional_usd: 99_999.8 })]))).toMatchObject({ kind: "effect", patch: { status: "filled" } });
    const reduceOdd = intent("reduce", { notional: 12_345.67 });
    expect(verdict(reduceOdd, evidence([hedge({ notional_usd: 87_654.33 })]))).toMatchObject({ kind: "effect" });
    const closed = hedge({ status: "closed" });
    const records = [record("decrease", 12_345.67, "2025-03-04T10:00:05.000Z"), record("close", 87_654.33, "2025-03-04T12:00:00.000Z")];
    expect(verdict(reduceOdd, evidence([closed], records))).toMatchObject({ kind: "effect", patch: { status: "filled" } });
  });
});

describe("a closed hedge, judged by the records that ended it", () => {
  const closed = hedge({ status: "closed" });

  it("a Close is closed whatever ended the hedge; the message says when it settled at maturity", () => {
    expect(verdict(intent("close"), evidence([closed], [record("close", 100_000, "2025-03-04T10:00:05.000Z")]))).toMatchObject({
      kind: "effect",
      patch: { status: "closed", message: "Closed." },
    });
    expect(verdict(intent("close"), evidence([closed], []))).toMatchObject({
      kind: "effect",
      patch: { status: "closed", message: "Closed." },
    });
  });

  it("a Reduce of (nearly) all of it that closed the hedge: one decrease of the whole size; a smaller reduction cannot have", () => {
    const decreaseAll = [record("decrease", 100_000, "2025-03-04T10:00:05.000Z")];
    expect(verdict(intent("reduce", { notional: 99_000 }), evidence([closed], decreaseAll))).toMatchObject({
      kind: "effect",
      patch: { status: "closed", message: "The reduction closed the whole hedge." },
    });
    expect(verdict(intent("reduce", { notional: 98_999 }), evidence([closed], decreaseAll))).toMatchObject({ kind: "unclear" });
    // A close (not a decrease) at the whole size: the hedge was closed without this reduction.
    expect(
      verdict(intent("reduce", { notional: 100_000 }), evidence([closed], [record("close", 100_000, "2025-03-04T10:00:05.000Z")])),
    ).toMatchObject({ kind: "absent", settled: true, says: expect.stringContaining("It closed without this reduction.") });
  });

  it("a Reduce whose own decrease is missing is not filled, even when the hedge ended at before − amount", () => {
    const endOnly = [record("maturity", 90_000, "2025-03-05T09:00:00.000Z")];
    expect(verdict(intent("reduce"), evidence([closed], endOnly))).toMatchObject({ kind: "unclear" });
    // The decrease must be of the row's amount, and another record than the one that ended it.
    const otherDecrease = [record("decrease", 5_000, "2025-03-04T10:00:05.000Z"), record("maturity", 90_000, "2025-03-05T09:00:00.000Z")];
    expect(verdict(intent("reduce"), evidence([closed], otherDecrease))).toMatchObject({ kind: "unclear" });
    expect(
      verdict(intent("reduce", { notional: 45_000 }), evidence([closed], [record("decrease", 45_000, "2025-03-04T10:00:05.000Z")])),
    ).toMatchObject({
      kind: "unclear",
    });
  });

  it("an Add whose hedge ended at a size that is neither before nor before + amount cannot be told", () => {
    expect(verdict(intent("add"), evidence([closed], [record("close", 104_000, "2025-03-04T11:00:00.000Z")]))).toMatchObject({
      kind: "unclear",
    });
  });

  it("records are this hedge's: by hedge id, or without one by market, side and opening time within a second", () => {
    const noId = (over: Partial<ClosedHedge>) => ({
      ...record("close", 110_000, "2025-03-04T11:00:00.000Z"),
      hedge_id: undefined,
      ...over,
    });
    const h = hedge({ status: "closed" });
    const since = Date.parse(LOGGED);
    expect(recordsOf(h, [noId({})], since)).toHaveLength(1);
    expect(recordsOf(h, [noId({ opened_at: "2025-03-04T09:00:01.000Z" })], since)).toHaveLength(1);
    expect(recordsOf(h, [noId({ opened_at: "2025-03-04T09:00:01.001Z" })], since)).toEqual([]);
    expect(recordsOf(h, [noId({ opened_at: "2025-03-04T08:59:58.999Z" })], since)).toEqual([]);
    expect(recordsOf(h, [noId({ market: "USDTXAF" })], since)).toEqual([]);
    expect(recordsOf(h, [noId({ side: "sell" })], since)).toEqual([]);
    expect(recordsOf(h, [{ ...noId({}), hedge_id: "h-2" }], since)).toEqual([]);
    // From the moment given on, that moment included.
    expect(recordsOf(h, [noId({ closed_at: LOGGED })], since)).toHaveLength(1);
    expect(recordsOf(h, [noId({ closed_at: "2025-03-04T09:59:59.999Z" })], since)).toEqual([]);
    expect(verdict(intent("add"), evidence([h], [noId({})]))).toMatchObject({ kind: "effect", patch: { status: "filled" } });
  });

  it("records up to the clock-skew margin before the row count, earlier ones do not", () => {
    const atMargin = record("close", 110_000, new Date(Date.parse(LOGGED) - CLOCK_SKEW_MS).toISOString());
    expect(verdict(intent("add"), evidence([closed], [atMargin]))).toMatchObject({ kind: "effect" });
    const beyond = record("close", 110_000, new Date(Date.parse(LOGGED) - CLOCK_SKEW_MS - 1).toISOString());
    expect(verdict(intent("add"), evidence([closed], [beyond]))).toMatchObject({ kind: "unclear" });
  });
});

describe("fill details: the row's own fill only", () => {
  it("a fill at the very moment the row was logged is not the row's; one a millisecond later is", () => {
    const at = (filledAt: string | null) =>
      verdict(
        intent("add"),
        evidence([hedge({ notional_usd: 110_000, fill_tx_hash: "0xaddfill", struck_rate: 1501.25, filled_at: filledAt })]),
      );
    expect((at(LOGGED) as Extract<Verdict, { kind: "effect" }>).patch).not.toHaveProperty("fillTxHash");
    expect((at(null) as Extract<Verdict, { kind: "effect" }>).patch).not.toHaveProperty("fillTxHash");
    expect(at("2025-03-04T10:00:00.001Z")).toMatchObject({ patch: { fillTxHash: "0xaddfill", struckRate: 1501.25 } });
    // A fill the hedge shows without its details is recorded as empty, never as the open's.
    const bare = verdict(
      intent("add"),
      evidence([hedge({ notional_usd: 110_000, fill_tx_hash: undefined, struck_rate: undefined, filled_at: "2025-03-04T10:00:05.000Z" })]),
    );
    expect(bare).toMatchObject({ patch: { fillTxHash: null, struckRate: null, filledAt: "2025-03-04T10:00:05.000Z" } });
  });

  it("a closed hedge's fill after the row is the row's (a reduce filled, then the hedge matured)", () => {
    const closed = hedge({ status: "closed", fill_tx_hash: "0xreducefill", struck_rate: 1502, filled_at: "2025-03-04T10:00:05.000Z" });
    const records = [record("decrease", 10_000, "2025-03-04T10:00:05.000Z"), record("maturity", 90_000, "2025-03-05T09:00:00.000Z")];
    expect(verdict(intent("reduce"), evidence([closed], records))).toMatchObject({
      patch: { fillTxHash: "0xreducefill", struckRate: 1502 },
    });
    expect(verdict(intent("close"), evidence([closed], []))).toMatchObject({ patch: { status: "closed", fillTxHash: "0xreducefill" } });
  });
});

describe("an Open and its hedge: every state the service can show", () => {
  const mine = (over: Partial<Hedge>) =>
    hedge({ id: "h-new", client_reference: "D-1", notional_usd: 10_000, opened_at: "2025-03-04T10:00:01.000Z", ...over });

  it("filled, closed, failed and accepted each give the row its state, its hedge id, its order and its fill", () => {
    expect(verdict(intent("open"), evidence([mine({ status: "filled" })]))).toEqual({
      kind: "effect",
      patch: {
        status: "filled",
        hedgeId: "h-new",
        orderTxHash: "0xo",
        ...{ fillTxHash: "0xopenfill", struckRate: 1500.5, filledAt: OPEN_FILL.filled_at },
        message: "Filled.",
      },
      says: "Hedge h-new is filled at 10,000.00 USD.",
    });
    expect(verdict(intent("open"), evidence([mine({ status: "closed" })]))).toMatchObject({
      patch: { status: "filled", message: "Filled (the hedge has since been closed)." },
    });
    expect(verdict(intent("open"), evidence([mine({ status: "failed", order_tx_hash: undefined })]))).toEqual({
      kind: "effect",
      patch: {
        status: "failed",
        hedgeId: "h-new",
        message: "The order did not go through: nothing was opened and the collateral was released.",
      },
      says: "Hedge h-new failed: nothing was opened.",
    });
    expect(
      verdict(
        intent("open"),
        evidence([mine({ status: "submitted", fill_tx_hash: undefined, struck_rate: undefined, filled_at: undefined })]),
      ),
    ).toEqual({
      kind: "effect",
      patch: { status: "submitted", hedgeId: "h-new", orderTxHash: "0xo", message: "Submitted: waiting for the fill." },
      says: "Hedge h-new is accepted (submitted) for 10,000.00 USD, not filled yet.",
    });
  });

  it("no hedge of its reference: not there (or hedge_not_found for the id it had); two that fit: unclear, never a pick", () => {
    expect(verdict(intent("open"), evidence([]))).toEqual({
      kind: "absent",
      settled: false,
      says: "No hedge with client reference D-1 on USDTNGN buy since the row was logged.",
    });
    expect(verdict(intent("open", { clientReference: null }), evidence([]))).toMatchObject({
      says: "No hedge with client reference (none) on USDTNGN buy since the row was logged.",
    });
    expect(verdict(intent("open", { hedgeId: "h-gone" }), { hedges: [], notFound: true, records: null })).toEqual({
      kind: "unclear",
      says: "The service has no hedge h-gone (hedge_not_found).",
    });
    expect(verdict(intent("open"), evidence([mine({}), mine({ id: "h-twin" })]))).toEqual({
      kind: "unclear",
      says: "2 hedges carry client reference D-1 on USDTNGN buy.",
    });
  });

  it("a hedge of its reference on another market or side, or without an opening time, or with an unknown notional", () => {
    expect(attributeOpen(intent("open"), [mine({ market: "USDTXAF" })])).toEqual([]);
    expect(attributeOpen(intent("open"), [mine({ side: "sell" })])).toEqual([]);
    expect(attributeOpen(intent("open"), [mine({ client_reference: "D-2" })])).toEqual([]);
    expect(attributeOpen(intent("open"), [mine({ opened_at: undefined })])).toHaveLength(1);
    // Opened up to the clock-skew margin before the row was logged still counts.
    const edge = new Date(Date.parse(LOGGED) - CLOCK_SKEW_MS).toISOString();
    expect(attributeOpen(intent("open"), [mine({ opened_at: edge })])).toHaveLength(1);
    expect(attributeOpen(intent("open"), [mine({ opened_at: new Date(Date.parse(edge) - 1).toISOString() })])).toEqual([]);
    const twins = [mine({}), mine({ id: "h-twin", notional_usd: 20_000 })];
    expect(attributeOpen(intent("open", { notional: null }), twins)).toHaveLength(2);
    expect(attributeOpen(intent("open"), [mine({}), mine({ id: "h-twin", notional_usd: 10_000.01 })])).toHaveLength(1);
  });
});

describe("what survived the first mutation run: each a way a row could be judged wrongly", () => {
  const closed = hedge({ status: "closed" });

  it("an Add on a hedge since closed says so in its message, filled or dropped", () => {
    expect(verdict(intent("add"), evidence([closed], [record("close", 110_000, "2025-03-04T11:00:00.000Z")]))).toMatchObject({
      patch: { status: "filled", message: "Filled; the hedge has since been closed." },
    });
    expect(verdict(intent("add"), evidence([closed], [record("close", 100_000, "2025-03-04T11:00:00.000Z")]))).toMatchObject({
      says: "Hedge h-1 is closed. Since the row: close of 100,000.00 USD. It closed at the size it had before this add.",
    });
  });

  it("records given out of time order are put in order: the last one ended the hedge", () => {
    const records = [
      record("maturity", 90_000, "2025-03-05T09:00:00.000Z"),
      record("decrease", 10_000, "2025-03-04T10:00:05.000Z"),
      record("decrease", 1_000, "2025-03-04T09:59:00.000Z"), // an earlier row's, inside the clock-skew margin
    ];
    expect(verdict(intent("reduce"), evidence([closed], records))).toMatchObject({ kind: "effect", patch: { status: "filled" } });
    expect(verdict(intent("reduce"), evidence([closed], records.slice(0, 2)))).toMatchObject({
      kind: "effect",
      patch: { status: "filled" },
      says: "Hedge h-1 is closed. Since the row: decrease of 10,000.00 USD, maturity of 90,000.00 USD.",
    });
  });

  it("a Reduce is filled only by its own decrease: not by the record that ended the hedge, nor by a record of another kind", () => {
    // 50,000 of 100,000, then it matured at 50,000 with no decrease: the maturity is not the reduce.
    expect(
      verdict(intent("reduce", { notional: 50_000 }), evidence([closed], [record("maturity", 50_000, "2025-03-05T09:00:00.000Z")])),
    ).toMatchObject({ kind: "unclear" });
    // Its only record a decrease of its amount, which cannot have ended the hedge: the end is not shown, so it cannot be told.
    expect(
      verdict(intent("reduce", { notional: 50_000 }), evidence([closed], [record("decrease", 50_000, "2025-03-04T10:00:05.000Z")])),
    ).toMatchObject({ kind: "unclear" });
    const liquidated = [record("liquidation", 10_000, "2025-03-04T10:00:05.000Z"), record("maturity", 90_000, "2025-03-05T09:00:00.000Z")];
    expect(verdict(intent("reduce"), evidence([closed], liquidated))).toMatchObject({ kind: "unclear" });
  });

  it("an Add or Reduce is judged by its own hedge when the evidence lists others", () => {
    const other = hedge({ id: "h-other", notional_usd: 110_000 });
    expect(verdict(intent("add"), evidence([other, hedge({ notional_usd: 100_000 })]))).toMatchObject({ kind: "absent" });
  });

  it("an Open with a single hedge of its reference takes it even when the notional differs (the service may adjust it)", () => {
    const mine = hedge({ id: "h-new", client_reference: "D-1", notional_usd: 9_999.5, opened_at: "2025-03-04T10:00:01.000Z" });
    expect(attributeOpen(intent("open"), [mine])).toEqual([mine]);
    expect(verdict(intent("open"), evidence([mine]))).toMatchObject({ kind: "effect", patch: { hedgeId: "h-new" } });
  });
});
