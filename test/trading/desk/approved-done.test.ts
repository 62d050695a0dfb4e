// What an approved batch's Add, Reduce and Close lines find on their side's hedge before they are sent (desk/approved-done.ts), as a table: untouched (sent), done up to a line (recorded), fits both readings or none (refused), and when the service is not asked at all.
import type { HedgingClient } from "../../../src/api/client";
import type { Hedge } from "../../../src/api/schemas";
import { doneOnService, type ApprovedLine, type DoneLine } from "../../../src/trading/desk/approved-done";
import { nextStep } from "../../../src/trading/desk/rule";
import { intentFromRow } from "../../../src/trading/intent";
import type { TradeRow } from "../../../src/trading/types";
import { hedge } from "../../support/builders";
import { PAGE_SIZE } from "../../../src/trading/fills";

/** A service whose open hedges are `held` (listed by their status, or by client reference); counts its list requests. */
function service(held: Hedge[]) {
  const asked = { lists: 0 };
  const client = {
    list: async (query: { status?: string; client_reference?: string }) => {
      asked.lists++;
      if (query.client_reference) return { data: held.filter((h) => h.client_reference === query.client_reference) };
      return { data: held.filter((h) => h.status === query.status) };
    },
  } as unknown as HedgingClient;
  return { client, asked };
}

const row = (action: TradeRow["action"], notional: number | null, side: TradeRow["side"] = "buy", rowNumber = 2): TradeRow => ({
  action,
  market: "USDTNGN",
  side,
  notional,
  tenor: null,
  clientReference: null,
  rowNumber,
});
const line = (r: TradeRow, index: number, before: number | null): ApprovedLine => ({ row: r, index, key: `k-${index}`, before });
const buyAt = (notional: number) => hedge({ id: "hb", side: "buy", notional_usd: notional, status: "filled" });

/**
 * What the desk records a line done elsewhere as: the recovery rule's step for it (rule.ts's done_elsewhere rows), its
 * patch (the Message aside, which is what the service shows) and what the service shows.
 */
function recorded(d: DoneLine | undefined) {
  const intent = intentFromRow(row("add", 1), "k", "sandbox", "2026-11-27T09:00:00.000Z");
  const facts = { neverSent: true, fresh: true, sentBy: "this_key", sentAgoMs: Infinity, doubt: null, mayAskAgain: true } as const;
  const step = d && nextStep(intent, d, facts);
  if (step?.kind !== "adopt") return undefined;
  const { message, ...patch } = step.patch;
  expect(message).toBe(d!.says);
  return { patch, says: d!.says };
}

async function judged(lines: ApprovedLine[], held: Hedge[]) {
  const { client, asked } = service(held);
  const found = await doneOnService(client, lines, "2026-11-27T09:00:00.000Z", "sandbox", null);
  const done = [...found.done].map(([i, d]) => [i, recorded(d)?.patch.status, d.says]);
  const refused = [...found.refused].map(([i, why]) => [i, why]);
  return { done, refused, asked: asked.lists };
}

describe("an approved batch's side, judged against its hedge now", () => {
  const addThenReduce = [line(row("add", 20_000), 0, 100_000), line(row("reduce", 30_000, "buy", 3), 1, 120_000)];

  it.each([
    ["at the notional before the first line: nothing done, every line sent", 100_000, [], []],
    ["at the first line's notional after: that line done, the next sent", 120_000, [[0, "filled"]], []],
    [
      "at the last line's notional after: both done",
      90_000,
      [
        [0, "filled"],
        [1, "filled"],
      ],
      [],
    ],
  ])("%s", async (_, now, done, refused) => {
    const got = await judged(addThenReduce, [buyAt(now)]);
    expect(got.done.map(([i, status]) => [i, status])).toEqual(done);
    expect(got.refused).toEqual(refused);
  });

  it("at a notional the batch does not explain: every line of the side refused, naming the notionals it expected", async () => {
    const got = await judged(addThenReduce, [buyAt(105_000)]);
    expect(got.done).toEqual([]);
    expect(got.refused.map(([i]) => i)).toEqual([0, 1]);
    expect(got.refused[0][1]).toBe(
      "The USDTNGN buy hedge hb is at 105,000.00 USD: that is none of 100,000.00 USD, 120,000.00 USD, 90,000.00 USD (the side's notional before its rows, as prepared, and after each). Something else changed the side since the batch was prepared, so this row was not sent: check the side on the service, then prepare the batch again.",
    );
  });

  it("at a notional that is both the side's before and a line's after (an Add then a Reduce of the same amount): refused, the service cannot tell", async () => {
    const both = [line(row("add", 30_000), 0, 100_000), line(row("reduce", 30_000, "buy", 3), 1, 130_000)];
    const got = await judged(both, [buyAt(100_000)]);
    expect(got.done).toEqual([]);
    expect(got.refused.map(([i]) => i)).toEqual([0, 1]);
    expect(got.refused[1][1]).toMatch(
      /^The USDTNGN buy hedge hb is at 100,000\.00 USD: both the notional before this side's rows and after one of them, as prepared \(100,000\.00 USD, 130,000\.00 USD, 100,000\.00 USD\), so the service cannot tell whether they were done\. This row was not sent/,
    );
  });

  it("a Close with no hedge open on its side: done, recorded closed without a hedge id", async () => {
    const { client } = service([]);
    const found = await doneOnService(client, [line(row("close", null), 0, 80_000)], "2026-11-27T09:00:00.000Z", "sandbox", null);
    expect(found.refused.size).toBe(0);
    expect(recorded(found.done.get(0))).toEqual({
      patch: { status: "closed", notionalBefore: 80_000 },
      says: "Done already by another approval of this batch: No USDTNGN buy hedge is open (this close as prepared: closed).",
    });
  });

  it("a Close whose side's hedge is still at its notional before: sent (nothing done)", async () => {
    const got = await judged([line(row("close", null), 0, 80_000)], [buyAt(80_000)]);
    expect(got).toEqual({ done: [], refused: [], asked: 1 });
  });

  it("a Reduce of at least 99 % of the hedge closes it: with no hedge open, done as closed", async () => {
    const got = await judged([line(row("reduce", 99_000), 0, 100_000)], []);
    expect(got.done.map(([i, status]) => [i, status])).toEqual([[0, "closed"]]);
  });

  it("a done Add or partial Reduce names the hedge it found, and its sum as prepared", async () => {
    const { client } = service([buyAt(120_000)]);
    const found = await doneOnService(client, [line(row("add", 20_000), 0, 100_000)], "2026-11-27T09:00:00.000Z", "sandbox", null);
    expect(recorded(found.done.get(0))).toEqual({
      patch: { status: "filled", notionalBefore: 100_000, hedgeId: "hb" },
      says: "Done already by another approval of this batch: The USDTNGN buy hedge hb is at 120,000.00 USD (this add as prepared: 100,000.00 USD + 20,000.00 USD).",
    });
  });

  it("a done Reduce names the hedge it found, and its difference as prepared", async () => {
    const { client } = service([buyAt(90_000)]);
    const found = await doneOnService(client, [line(row("reduce", 30_000), 0, 120_000)], "2026-11-27T09:00:00.000Z", "sandbox", null);
    expect(recorded(found.done.get(0))).toEqual({
      patch: { status: "filled", notionalBefore: 120_000, hedgeId: "hb" },
      says: "Done already by another approval of this batch: The USDTNGN buy hedge hb is at 90,000.00 USD (this reduce as prepared: 120,000.00 USD − 30,000.00 USD).",
    });
  });

  it("sides are judged each on its own hedge: a changed side refuses its lines only", async () => {
    const sell = hedge({ id: "hs", side: "sell", notional_usd: 40_000, status: "filled" });
    const got = await judged(
      [line(row("reduce", 10_000, "sell"), 0, 50_000), line(row("add", 5_000, "buy", 3), 1, 70_000)],
      [sell, buyAt(71_000)],
    );
    expect(got.done.map(([i, status]) => [i, status])).toEqual([[0, "filled"]]);
    expect(got.refused.map(([i]) => i)).toEqual([1]);
  });

  it("a side whose hedge the listing shows only among the submitted ones is judged on it, not as closed (every side looked for before the listing stops)", async () => {
    const sell = hedge({ id: "hs", side: "sell", notional_usd: 50_000, status: "submitted" });
    const got = await judged(
      [line(row("reduce", 10_000), 0, 100_000), line(row("reduce", 10_000, "sell", 3), 1, 50_000)],
      [buyAt(100_000), sell],
    );
    expect(got).toEqual({ done: [], refused: [], asked: 2 });
  });

  it("a listing cut short (every page full, the side not in it): the side is not judged, its lines go on their keys", async () => {
    let page = 0;
    const client = {
      list: async () => ({
        data: Array.from({ length: PAGE_SIZE }, (_, i) => hedge({ id: `x-${page}-${i}`, market: `M${page++}X${i}`, status: "filled" })),
      }),
    } as unknown as HedgingClient;
    const found = await doneOnService(client, [line(row("close", null), 0, 80_000)], "2026-11-27T09:00:00.000Z", "sandbox", null);
    expect([found.done.size, found.refused.size]).toEqual([0, 0]);
  });

  it("an Open of the batch found done by its client reference, then an Add of its side: the Open stays filled, the Add is judged against the hedge it opened", async () => {
    const opened = hedge({
      id: "hn",
      side: "buy",
      notional_usd: 70_000,
      status: "filled",
      client_reference: "NEW-1",
      opened_at: "2026-11-27T09:01:00.000Z",
    });
    const { client } = service([opened]);
    const openRow = { ...row("open", 50_000), tenor: 7 as const, clientReference: "NEW-1" };
    const found = await doneOnService(
      client,
      [line(openRow, 0, null), line(row("add", 20_000, "buy", 3), 1, 50_000)],
      "2026-11-27T09:00:00.000Z",
      "sandbox",
      null,
    );
    expect([...found.done].map(([i, d]) => [i, recorded(d)?.patch.status])).toEqual([
      [0, "filled"],
      [1, "filled"],
    ]);
    expect(found.refused.size).toBe(0);
  });

  it("an Open of the batch the service does not show by its client reference: not done, sent (its side's later lines are not judged)", async () => {
    const { client, asked } = service([buyAt(50_000)]);
    const openRow = { ...row("open", 50_000), tenor: 7 as const, clientReference: "NEW-1" };
    const found = await doneOnService(
      client,
      [line(openRow, 0, null), line(row("add", 20_000, "buy", 3), 1, 50_000)],
      "2026-11-27T09:00:00.000Z",
      "sandbox",
      null,
    );
    expect([found.done.size, found.refused.size, asked.lists]).toEqual([0, 0, 1]);
  });

  it("an Open of the batch found by its client reference means the batch was executed: every line not shown done is refused, naming that Open", async () => {
    const opened = hedge({
      id: "hn",
      side: "buy",
      notional_usd: 50_000,
      status: "filled",
      client_reference: "NEW-1",
      opened_at: "2026-11-27T09:01:00.000Z",
    });
    const sell = hedge({ id: "hs", side: "sell", notional_usd: 40_000, status: "filled" });
    const { client } = service([opened, sell]);
    const open = (market: string, clientReference: string) => ({ ...row("open", 50_000), market, tenor: 7 as const, clientReference });
    const found = await doneOnService(
      client,
      [line(open("USDTKES", "NEW-2"), 0, null), line(open("USDTNGN", "NEW-1"), 1, null), line(row("reduce", 10_000, "sell", 4), 2, 40_000)],
      "2026-11-27T09:00:00.000Z",
      "sandbox",
      null,
    );
    expect([...found.done].map(([i, d]) => [i, recorded(d)])).toEqual([
      [
        1,
        {
          patch: expect.objectContaining({ status: "filled", hedgeId: "hn" }),
          says: "Done already by another approval of this batch: Hedge hn is filled at 50,000.00 USD.",
        },
      ],
    ]);
    const reason =
      "This batch was executed already: its Open of USDTNGN buy with client reference NEW-1 is on the service (found by its client reference), so no row of it is sent again. Check the sides on the service; prepare a new batch for anything still wanted.";
    expect([...found.refused]).toEqual([
      [0, reason],
      [2, reason],
    ]);
  });

  it.each([
    ["a line without its notional before (a batch prepared before they were kept)", [line(row("add", 20_000), 0, null)]],
    [
      "a side opened by an Open of the batch not found done",
      [line({ ...row("open", 50_000), tenor: 7 }, 0, null), line(row("add", 5_000, "buy", 3), 1, 50_000)],
    ],
  ])("%s: the side is not judged (its keys alone decide), and no list is read", async (_, lines) => {
    const got = await judged(lines, [buyAt(120_000)]);
    expect(got).toEqual({ done: [], refused: [], asked: 0 });
  });
});
