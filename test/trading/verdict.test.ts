// Judging a row by what the service shows: an Add/Reduce by the hedge's notional against the notional before it (never a threshold read from text), a closed hedge by its records, an Open by id or by client reference, opening time and notional (never "the newest hedge").
import { attributeOpen, verdict, type Evidence } from "../../src/trading/verdict";
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
