// Reading the service about rows the service accepted: one row by hedge id or client reference (check), and poll rounds over many rows (pollOnce), including failed hedges, answers without hedge_id, unknown hedges, closed hedges judged by their history, and reads that fail.
import { Journal } from "../../src/trading/journal";
import { intentScope } from "../../src/trading/intent-store";
import { check, MAX_GETS_PER_ROUND, pollOnce } from "../../src/trading/fills";
import { intentFromRow, type Intent } from "../../src/trading/intent";
import { HedgingApiError } from "../../src/api/errors";
import type { HedgingClient } from "../../src/api/client";
import type { ClosedHedge, Hedge, HistoryQuery, ListQuery } from "../../src/api/schemas";
import type { Action } from "../../src/trading/types";
import { closed, hedge } from "../support/builders";
import { useDeskWorlds, world } from "../support/desk-world";

const LOGGED = "2026-11-02T10:00:00.000Z";
const at = (ms: number) => new Date(Date.parse(LOGGED) + ms).toISOString();
const ACCOUNT = "0x00000000000000000000000000000000000000aa";
const KEY_ID = "k-this-api-key";

/** A row the service accepted (status submitted): an Add / Reduce / Close acts on `hedgeId` at notional 100,000 before it. */
function row(action: Action, over: Partial<Intent> = {}): Intent {
  const intent = intentFromRow(
    {
      rowNumber: 2,
      action,
      market: "USDTNGN",
      side: "buy",
      notional: action === "close" ? null : action === "reduce" ? 40_000 : 10_000,
      tenor: action === "open" ? 7 : null,
      clientReference: action === "open" ? "DEAL-1" : null,
    },
    `k-${action}`,
    "sandbox",
    LOGGED,
  );
  return Object.assign(intent, { status: "submitted" as const, hedgeId: "h1", notionalBefore: action === "open" ? null : 100_000 }, over);
}

const serverError = () => new HedgingApiError({ code: "executor_unavailable", status: 503, message: "Try later." });
const notFound = () => new HedgingApiError({ code: "hedge_not_found", status: 404, message: "No such hedge." });

/**
 * A service holding `hedges` (newest last) and closed-hedge `records`: list by status or client reference (newest first,
 * paged by limit and starting_after), get by id (hedge_not_found for an unknown id), history from `from` on. `fail`
 * makes a kind of call fail. Every call is noted.
 */
function service(hedges: Hedge[], records: ClosedHedge[] = [], fail: { list?: boolean; get?: boolean; history?: boolean } = {}) {
  const calls: string[] = [];
  const client = {
    list: jest.fn(async (q: ListQuery) => {
      calls.push(`list ${q.status ?? `ref=${q.client_reference}`}`);
      if (fail.list) throw serverError();
      const newest = [...hedges]
        .reverse()
        .filter(
          (h) => (!q.status || h.status === q.status) && (q.client_reference === undefined || h.client_reference === q.client_reference),
        );
      const from = q.starting_after ? newest.findIndex((h) => h.id === q.starting_after) + 1 : 0;
      return { data: newest.slice(from, from + (q.limit ?? 100)) };
    }),
    get: jest.fn(async (id: string) => {
      calls.push(`get ${id}`);
      if (fail.get) throw serverError();
      const h = hedges.find((x) => x.id === id);
      if (!h) throw notFound();
      return { data: h };
    }),
    history: jest.fn(async (q: HistoryQuery) => {
      calls.push(`history from ${q.from}`);
      if (fail.history) throw serverError();
      return { data: records.filter((r) => !q.from || Date.parse(r.closed_at) >= Date.parse(q.from)) };
    }),
  };
  return { client: client as unknown as HedgingClient, calls };
}

describe("one row: what the service shows about it (check)", () => {
  it("an Open answered with its hedge id is judged by reading that hedge: filled, with the fill's rate and transaction", async () => {
    const { client, calls } = service([hedge({ id: "h1", status: "filled", struck_rate: 1501.5 })]);
    const { verdict } = await check(client, row("open"));
    expect(verdict).toMatchObject({ kind: "effect", patch: { status: "filled", struckRate: 1501.5, fillTxHash: "0xfill" } });
    expect(calls).toEqual(["get h1"]);
  });

  it("an Open answered without hedge_id (the spec allows it) is found by its client reference and takes that hedge's id", async () => {
    const { client, calls } = service([
      hedge({ id: "h-other", client_reference: "DEAL-2", status: "filled", opened_at: at(1_000) }),
      hedge({ id: "h7", status: "filled", opened_at: at(1_000) }),
    ]);
    const { verdict } = await check(client, row("open", { hedgeId: null }));
    expect(verdict).toMatchObject({ kind: "effect", patch: { status: "filled", hedgeId: "h7" } });
    expect(calls).toEqual(["list ref=DEAL-1"]);
  });

  it("an Open with neither hedge id nor client reference cannot be looked up: nothing is asked and nothing is found", async () => {
    const { client, calls } = service([hedge({ id: "h7", status: "filled", opened_at: at(1_000) })]);
    const { verdict } = await check(client, row("open", { hedgeId: null, clientReference: null }));
    expect(verdict.kind).toBe("absent");
    expect(calls).toEqual([]);
  });

  it("a hedge id the service does not know is unclear (hedge_not_found), never 'not on the service' (which would allow a re-send)", async () => {
    const { client } = service([]);
    const { evidence, verdict } = await check(client, row("open", { hedgeId: "h-gone" }));
    expect(evidence.notFound).toBe(true);
    expect(verdict).toMatchObject({ kind: "unclear", says: expect.stringContaining("hedge_not_found") });
  });

  it("an Add whose hedge the service does not know needs no history: one request", async () => {
    const { client, calls } = service([]);
    expect((await check(client, row("add", { hedgeId: "h-gone" }))).verdict.kind).toBe("unclear");
    expect(calls).toEqual(["get h-gone"]);
  });

  it("an Add whose log row lost its hedge id is not looked for by its client reference (that names the deal's Open): unclear, nothing asked", async () => {
    const { client, calls } = service([hedge({ id: "h1", status: "filled", client_reference: "DEAL-1", notional_usd: 110_000 })]);
    const { verdict } = await check(client, row("add", { hedgeId: null, clientReference: "DEAL-1" }));
    expect(verdict).toEqual({ kind: "unclear", says: "The log does not say which hedge this row acts on." });
    expect(calls).toEqual([]);
  });

  it("any other failure to read is passed on: a row is never judged from a read that failed", async () => {
    const { client } = service([hedge({ id: "h1", status: "filled" })], [], { get: true });
    await expect(check(client, row("add"))).rejects.toMatchObject({ code: "executor_unavailable" });
  });

  it("a Reduce whose hedge has since closed is judged from the history read from (a little before) the time it was logged", async () => {
    const hedges = [hedge({ id: "h1", status: "closed", notional_usd: 100_000 })];
    // Its own decrease 30 s after it was logged, then the rest closed a minute later.
    const records = [
      closed({ hedge_id: "h1", exit_type: "decrease", size_usd: 40_000, closed_at: at(30_000) }),
      closed({ hedge_id: "h1", exit_type: "close", size_usd: 60_000, closed_at: at(90_000) }),
    ];
    const { client, calls } = service(hedges, records);
    const { verdict } = await check(client, row("reduce"));
    expect(verdict).toMatchObject({ kind: "effect", patch: { status: "filled" } });
    expect(calls).toEqual(["get h1", `history from ${at(-120_000)}`]);
  });

  it("a filled hedge, or an Open's closed hedge, needs no history: one request", async () => {
    const add = service([hedge({ id: "h1", status: "filled", notional_usd: 110_000 })]);
    expect((await check(add.client, row("add"))).verdict).toMatchObject({ kind: "effect", patch: { status: "filled" } });
    expect(add.calls).toEqual(["get h1"]);
    const open = service([hedge({ id: "h1", status: "closed" })]);
    expect((await check(open.client, row("open"))).verdict).toMatchObject({ kind: "effect", patch: { status: "filled" } });
    expect(open.calls).toEqual(["get h1"]);
  });
});

describe("a poll round (pollOnce)", () => {
  it("with no row awaiting its fill, asks nothing", async () => {
    const { client, calls } = service([hedge({ id: "h1", status: "submitted" })]);
    const round = await pollOnce(client, []);
    expect(round).toEqual({ judged: [], notFound: [], requests: 0 });
    expect(calls).toEqual([]);
  });

  it("judges a row of a side's chain by the next row, taking the chain once a round; a round of Opens never asks for it", async () => {
    // Add 10,000 on h1 (before 100,000) left, then a Reduce of 40,000 found h1 at 110,000; h1 is now at 70,000.
    const add = row("add", { sentAt: at(1_000) });
    const other = row("add", { idempotencyKey: "k-add-2", hedgeId: "h2", side: "sell", sentAt: at(1_000) });
    const reduce = row("reduce", { idempotencyKey: "k-reduce", sentAt: at(2_000), notionalBefore: 110_000 });
    const { client } = service([
      hedge({ id: "h1", status: "filled", notional_usd: 70_000 }),
      hedge({ id: "h2", status: "filled", side: "sell", notional_usd: 100_000 }),
    ]);
    const chain = jest.fn(() => (r: Intent) => (r === add ? reduce : null));
    const round = await pollOnce(client, [add, other], undefined, undefined, chain);
    expect(chain).toHaveBeenCalledTimes(1);
    const verdictOf = (key: string) => round.judged.find((j) => j.intent.idempotencyKey === key)!.verdict;
    // By the chain: the Reduce found 110,000 = 100,000 + 10,000. Alone, 70,000 would say nothing of this Add.
    expect(verdictOf("k-add")).toMatchObject({ kind: "effect", patch: { status: "filled" } });
    expect(verdictOf("k-add")).toMatchObject({
      patch: { message: expect.stringContaining("next row of this side found the hedge at 110,000.00 USD") },
    });
    // Not there yet against its own Notional before, with no next row.
    expect(verdictOf("k-add-2")).toMatchObject({ kind: "absent" });
    // Without a chain, the Add is judged by the hedge alone: 70,000 is neither 100,000 nor 110,000.
    const alone = await pollOnce(service([hedge({ id: "h1", status: "filled", notional_usd: 70_000 })]).client, [add]);
    expect(alone.judged[0].verdict).toMatchObject({ kind: "unclear" });

    const opens = service([hedge({ id: "h1", status: "submitted" })]);
    const asked = jest.fn(() => () => null);
    const openRound = await pollOnce(opens.client, [row("open", { sentAt: at(1_000) })], undefined, undefined, asked);
    expect(asked).not.toHaveBeenCalled();
    expect(openRound.judged).toHaveLength(1);
  });

  it("an Add whose hedge failed is read by id (it left the filled pages) and judged failed, not left submitted", async () => {
    const { client, calls } = service([hedge({ id: "h0", status: "filled" }), hedge({ id: "h1", status: "failed" })]);
    const round = await pollOnce(client, [row("add")]);
    // Adds only: no submitted pages are read.
    expect(calls).toEqual(["list filled", "get h1"]);
    expect(round.requests).toBe(2);
    expect(round.judged).toEqual([
      {
        intent: expect.objectContaining({ idempotencyKey: "k-add" }),
        verdict: expect.objectContaining({ kind: "effect", patch: expect.objectContaining({ status: "failed" }) }),
      },
    ]);
  });

  it("an Open whose hedge failed is judged failed: nothing was opened", async () => {
    const { client, calls } = service([hedge({ id: "h1", status: "failed" })]);
    const round = await pollOnce(client, [row("open")]);
    expect(calls).toEqual(["list submitted", "list filled", "get h1"]);
    expect(round.judged[0].verdict).toMatchObject({
      kind: "effect",
      patch: { status: "failed", message: expect.stringContaining("nothing was opened") },
    });
  });

  it("an Open answered without hedge_id is found in the pages by its client reference and finalised with that hedge's id", async () => {
    const { client, calls } = service([hedge({ id: "h9", status: "filled", opened_at: at(1_000) })]);
    const round = await pollOnce(client, [row("open", { hedgeId: null })]);
    expect(round.judged[0].verdict).toMatchObject({ kind: "effect", patch: { status: "filled", hedgeId: "h9" } });
    expect(calls).toEqual(["list submitted", "list filled"]);
  });

  it("an Open answered without hedge_id whose hedge failed (in no page) is looked up by its client reference and finalised", async () => {
    const { client, calls } = service([hedge({ id: "h9", status: "failed", opened_at: at(1_000) })]);
    const round = await pollOnce(client, [row("open", { hedgeId: null })]);
    expect(calls).toEqual(["list submitted", "list filled", "list ref=DEAL-1"]);
    expect(round.judged[0].verdict).toMatchObject({ kind: "effect", patch: { status: "failed", hedgeId: "h9" } });
  });

  it("an Open and an Add in one round: the Open's hedge is found in the submitted pages, the Add's in the filled pages, none read by id", async () => {
    const hedges = [
      hedge({ id: "h1", status: "filled", notional_usd: 110_000 }),
      hedge({ id: "h2", side: "sell", status: "submitted", opened_at: at(1_000) }),
    ];
    const { client, calls } = service(hedges);
    const round = await pollOnce(client, [row("add"), row("open", { hedgeId: "h2", side: "sell" })]);
    expect(calls).toEqual(["list submitted", "list filled"]);
    expect(round.judged.map((j) => j.verdict)).toEqual([
      expect.objectContaining({ kind: "effect", patch: expect.objectContaining({ status: "filled" }) }),
      expect.objectContaining({ kind: "effect", patch: expect.objectContaining({ status: "submitted" }) }),
    ]);
  });

  it("reads at most ⌈rows/500⌉ + 1 pages of a status, however many hedges the account holds", async () => {
    // One Add whose hedge failed, in an account with 2,400 filled hedges: 2 filled pages, then its hedge by id.
    const others = Array.from({ length: 2_400 }, (_, i) => hedge({ id: `x${i}`, status: "filled" }));
    const { client, calls } = service([hedge({ id: "h1", status: "failed" }), ...others]);
    const round = await pollOnce(client, [row("add")]);
    expect(calls).toEqual(["list filled", "list filled", "get h1"]);
    expect(round.requests).toBe(3);
    expect(round.judged[0].verdict).toMatchObject({ kind: "effect", patch: { status: "failed" } });
  });

  it("an Open accepted without hedge_id that no list shows yet waits (the list may lag): it is not judged unclear", async () => {
    const { client, calls } = service([hedge({ id: "h-other", client_reference: "DEAL-2", status: "filled", opened_at: at(1_000) })]);
    const round = await pollOnce(client, [row("open", { hedgeId: null })]);
    expect(calls).toEqual(["list submitted", "list filled", "list ref=DEAL-1"]);
    expect(round.judged[0].verdict).toMatchObject({ kind: "absent", settled: false });
  });

  it("a hedge the service does not know is reported as not found (the desk asks again, then the user decides), not judged", async () => {
    const { client } = service([hedge({ id: "h0", status: "filled" })]);
    const gone = row("add", { hedgeId: "h-gone" });
    const round = await pollOnce(client, [gone]);
    expect(round.notFound).toEqual([gone]);
    expect(round.judged).toEqual([]);
  });

  it("a read by id that fails otherwise leaves the row for the next round: neither judged nor 'not found'", async () => {
    const { client } = service([hedge({ id: "h1", status: "failed" })], [], { get: true });
    const round = await pollOnce(client, [row("add")]);
    expect(round).toMatchObject({ judged: [], notFound: [] });
  });

  it(`reads at most ${MAX_GETS_PER_ROUND} hedges by id a round; the other rows wait for the next round`, async () => {
    const n = MAX_GETS_PER_ROUND + 2;
    const hedges = Array.from({ length: n }, (_, i) => hedge({ id: `h${i}`, status: "failed" }));
    const rows = hedges.map((h, i) => row("add", { hedgeId: h.id, idempotencyKey: `k${i}` }));
    const { client, calls } = service(hedges);
    const round = await pollOnce(client, rows);
    expect(calls.filter((c) => c.startsWith("get"))).toHaveLength(MAX_GETS_PER_ROUND);
    expect(round.requests).toBe(1 + MAX_GETS_PER_ROUND);
    expect(round.judged.map((j) => j.intent.idempotencyKey)).toEqual(rows.slice(0, MAX_GETS_PER_ROUND).map((r) => r.idempotencyKey));
  });

  it("when the pages cannot be read this round, the rows are read by id instead", async () => {
    const { client, calls } = service([hedge({ id: "h1", status: "filled", notional_usd: 110_000 })], [], { list: true });
    const round = await pollOnce(client, [row("add")]);
    expect(calls).toEqual(["list filled", "get h1"]);
    expect(round.requests).toBe(2);
    expect(round.judged[0].verdict).toMatchObject({ kind: "effect", patch: { status: "filled" } });
  });

  it("closed hedges of several rows: one history call from the oldest row's time (less the clock skew), each row judged by its own records", async () => {
    const hedges = [
      hedge({ id: "h0", status: "submitted", opened_at: at(-86_400_000) }),
      hedge({ id: "h1", status: "closed" }),
      hedge({ id: "h2", side: "sell", status: "closed" }),
    ];
    const early = row("reduce", { hedgeId: "h1", idempotencyKey: "k-early", notional: 100_000 });
    const late = row("reduce", { hedgeId: "h2", idempotencyKey: "k-late", side: "sell", notional: 100_000, loggedAt: at(3_600_000) });
    // An Open logged a day before, still awaiting its fill: Opens need no history, so it does not widen the read.
    const open = row("open", { hedgeId: "h0", loggedAt: at(-86_400_000) });
    const records = [
      closed({ hedge_id: "h1", exit_type: "decrease", size_usd: 100_000, closed_at: at(30_000) }),
      closed({ hedge_id: "h2", side: "sell", exit_type: "decrease", size_usd: 100_000, closed_at: at(3_630_000) }),
    ];
    const { client, calls } = service(hedges, records);
    const round = await pollOnce(client, [late, open, early]);
    expect(calls.filter((c) => c.startsWith("history"))).toEqual([`history from ${at(-120_000)}`]);
    // The pages (submitted, filled), the two closed hedges by id, one history call.
    expect(round.requests).toBe(5);
    const judged = new Map(round.judged.map((j) => [j.intent.idempotencyKey, j.verdict]));
    // A reduction of the whole hedge closed it.
    expect(judged.get("k-early")).toMatchObject({ kind: "effect", patch: { status: "closed" } });
    expect(judged.get("k-late")).toMatchObject({ kind: "effect", patch: { status: "closed" } });
  });

  it("when the history cannot be read, the closed hedges' rows wait for the next round; the others are judged", async () => {
    const hedges = [hedge({ id: "h1", status: "closed" }), hedge({ id: "h2", side: "sell", status: "filled", notional_usd: 110_000 })];
    const closedOne = row("reduce", { hedgeId: "h1", idempotencyKey: "k-closed" });
    const filledOne = row("add", { hedgeId: "h2", idempotencyKey: "k-filled", side: "sell" });
    const { client } = service(hedges, [], { history: true });
    const round = await pollOnce(client, [closedOne, filledOne]);
    expect(round.judged.map((j) => [j.intent.idempotencyKey, j.verdict.kind])).toEqual([["k-filled", "effect"]]);
  });
});

describe("the desk polling fills", () => {
  useDeskWorlds();
  beforeEach(() => jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"], now: Date.parse(LOGGED) + 1_000 }));
  afterEach(() => jest.useRealTimers());

  /** A row this computer journalled and the service accepted (status submitted), resumed by a desk polling `hedges`. */
  async function resumed(intent: Intent, hedges: Hedge[]) {
    const { workbook, store, desk: deskOf } = world();
    const journal = new Journal(workbook, { store, scope: intentScope("sandbox", ACCOUNT) });
    Object.assign(intent, { status: "submitting", account: ACCOUNT, keyId: KEY_ID });
    const { hedgeId, notionalBefore } = intent;
    Object.assign(intent, { hedgeId: null, notionalBefore: null });
    await journal.append([intent]);
    journal.update(intent, { sentAt: LOGGED, hedgeId, notionalBefore });
    journal.update(intent, { status: "submitted" });
    await journal.flush();
    const { client, calls } = service(hedges);
    Object.assign(client, { environment: "sandbox", keyId: KEY_ID, account: async () => ({ data: { account_address: ACCOUNT } }) });
    const desk = await deskOf({ client });
    await desk.resume();
    await jest.advanceTimersByTimeAsync(5_000);
    desk.stop();
    return { log: await workbook.readLog(), calls };
  }

  it("an Add whose hedge failed ends failed in the Hedge Log, not submitted for ever", async () => {
    const { log } = await resumed(row("add"), [hedge({ id: "h1", status: "failed" })]);
    expect(log).toEqual([expect.objectContaining({ idempotencyKey: "k-add", status: "failed" })]);
  });

  it("an Open accepted without a hedge_id ends filled in the Hedge Log with the hedge's id, found by its client reference", async () => {
    const { log } = await resumed(row("open", { hedgeId: null }), [hedge({ id: "h9", status: "filled", opened_at: at(1_000) })]);
    expect(log).toEqual([expect.objectContaining({ status: "filled", hedgeId: "h9", fillTxHash: "0xfill" })]);
  });
});
