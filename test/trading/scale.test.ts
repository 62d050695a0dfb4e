// At reduced scale, what issue 10 asks of trading: a preview quotes each distinct question once, shows its first figures before the rest, can be cancelled and says how many rows are priced; fill polling costs about ⌈N/500⌉ status-filtered list pages per round, not one call per hedge.
import { defaultAccounts } from "../../src/sandbox/accounts";
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { INSPECT_ASK_MAX } from "../../src/trading/desk/resume-planner";
import { Journal } from "../../src/trading/journal";
import { intentScope } from "../../src/trading/intent-store";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { nextPollDelayMs, pollOnce, PAGE_SIZE } from "../../src/trading/fills";
import { intentFromRow, type Intent } from "../../src/trading/intent";
import type { HedgingClient } from "../../src/api/client";
import type { Hedge, ListQuery } from "../../src/api/schemas";
import type { AttemptEvent } from "../../src/api/sender";
import type { Preview } from "../../src/trading/types";
import type { CellValue } from "../../src/trading/cells";
import type { RunningSandbox } from "../../src/sandbox/server";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { start } from "../sandbox/helpers";
import { sandboxWorld } from "../support/sandbox-world";
import { useDeskWorlds, world } from "../support/desk-world";

describe("a preview that scales", () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await start({ accounts: defaultAccounts(), fillMs: 50 });
  });
  afterAll(() => sb.close());

  const AMOUNTS = [1_000, 2_000, 3_000, 4_000, 5_000];
  async function addPreview(options: { concurrency?: number; cancelAfterFirst?: boolean } = {}) {
    const quotes: AttemptEvent[] = [];
    const { client, desk: deskOf } = sandboxWorld(sb, DEMO_API_KEY, {
      clientOptions: { onAttempt: (e) => e.path === "/quotes" && quotes.push(e) },
      intentStore: null,
    });
    const opened = await client.open({ market: "USDTNGN", side: "buy", notional_usd: 100_000, tenor_days: 7, client_reference: "SCALE" });
    for (let i = 0; i < 100 && (await client.get(opened.data.hedge_id!)).data.status !== "filled"; i++)
      await new Promise((r) => setTimeout(r, 20));
    // 100 Add rows on one side asking 5 distinct questions (same market, side, amount and tenor).
    const grid: CellValue[][] = [
      ["Market", "Side", "Amount"],
      ...Array.from({ length: 100 }, (_, i) => ["USDTNGN", "buy", AMOUNTS[i % 5]]),
    ];
    const workbook = new MemoryWorkbook({ sheets: { Rows: grid } }).select("Rows", "A2:C101");
    const desk = await deskOf({ workbook, concurrency: options.concurrency ?? 4 });
    const read = await desk.readRows("add");
    const partials: Preview[] = [];
    const abort = new AbortController();
    const preview = await desk.preview("add", read.rows, {
      signal: abort.signal,
      onProgress: (p) => {
        partials.push(p);
        if (options.cancelAfterFirst && p.totals.priced > 0) abort.abort(new Error("Cancelled by the user."));
      },
    });
    desk.stop();
    return { preview, partials, quotes };
  }

  beforeEach(() => sb.reset());

  it("quotes each distinct question once, every row of it gets the figures, and the first figures come before the rest", async () => {
    const { preview, partials, quotes } = await addPreview();
    expect(quotes).toHaveLength(5);
    expect(preview.quoteRequests).toBe(5);
    expect(preview.totals).toMatchObject({ rows: 100, priced: 100 });
    expect(preview.lines.every((l) => l.quote?.notional_usd === l.row.notional)).toBe(true);
    // Figures stream: a first partial preview with some rows priced, before all were.
    const firstPriced = partials.find((p) => p.totals.priced > 0)!;
    expect(firstPriced.totals.priced).toBeLessThan(100);
    expect(firstPriced.totals.priced % 20).toBe(0); // a question's rows all at once
  });

  it("Cancel stops the pricing: the rows priced keep their figures, the others are not sent, and the totals say how many are priced", async () => {
    const { preview, quotes } = await addPreview({ concurrency: 1, cancelAfterFirst: true });
    expect(preview.cancelled).toBe(true);
    expect(quotes.length).toBeLessThan(5);
    expect(preview.totals.priced).toBe(20);
    const unpriced = preview.lines.filter((l) => !l.quote);
    expect(unpriced).toHaveLength(80);
    expect(unpriced.every((l) => l.blockers.includes("Not priced: the preview was cancelled."))).toBe(true);
    expect(preview.totals.notionalUsd).toBe(20 * AMOUNTS[0]);
  });
});

describe("fill polling by pages", () => {
  /** A service of `hedges` (newest last) answering list (status, limit, starting_after) and get; it counts the calls. */
  function service(hedges: Hedge[]) {
    const calls: string[] = [];
    const client = {
      list: jest.fn(async (q: ListQuery) => {
        calls.push(`list ${q.status ?? "*"}${q.starting_after ? " after" : ""}`);
        const newest = [...hedges].reverse().filter((h) => !q.status || h.status === q.status);
        const from = q.starting_after ? newest.findIndex((h) => h.id === q.starting_after) + 1 : 0;
        return { data: newest.slice(from, from + (q.limit ?? 100)) };
      }),
      get: jest.fn(async (id: string) => {
        calls.push("get");
        return { data: hedges.find((h) => h.id === id)! };
      }),
    };
    return { client: client as unknown as HedgingClient, calls };
  }
  const hedge = (i: number, status: string): Hedge =>
    ({
      id: `h${i}`,
      market: `M${i}`,
      side: "buy",
      notional_usd: 1_000,
      tenor_days: 7,
      status,
      opened_at: "2025-03-04T10:00:00.000Z",
    }) as unknown as Hedge;
  const submitted = (i: number): Intent => {
    const intent = intentFromRow(
      { rowNumber: i, action: "open", market: `M${i}`, side: "buy", notional: 1_000, tenor: 7, clientReference: `R${i}` },
      `k${i}`,
      "sandbox",
      "2025-03-04T09:59:00.000Z",
    );
    return Object.assign(intent, { status: "submitted" as const, hedgeId: `h${i}` });
  };

  it("1,200 rows awaiting their fill cost ⌈1200/500⌉ list pages a round, not 1,200 calls", async () => {
    const N = 1_200;
    const { client, calls } = service(Array.from({ length: N }, (_, i) => hedge(i, "submitted")));
    const round = await pollOnce(
      client,
      Array.from({ length: N }, (_, i) => submitted(i)),
    );
    expect(calls).toEqual(["list submitted", "list submitted after", "list submitted after"]);
    expect(round.requests).toBe(Math.ceil(N / PAGE_SIZE));
    expect(round.judged).toHaveLength(N);
  });

  it("once some filled and some failed: the submitted pages, the filled pages, and one read by id per hedge that left both", async () => {
    const N = 1_200;
    const hedges = Array.from({ length: N }, (_, i) => hedge(i, i % 2 ? "filled" : "submitted"));
    hedges[7].status = "failed";
    const { client, calls } = service(hedges);
    const round = await pollOnce(
      client,
      Array.from({ length: N }, (_, i) => submitted(i)),
    );
    expect(calls.filter((c) => c.startsWith("list"))).toHaveLength(4); // 600 submitted: 2 pages; 599 filled: 2 pages
    expect(calls.filter((c) => c === "get")).toHaveLength(1);
    expect(round.requests).toBeLessThanOrEqual(Math.ceil(N / PAGE_SIZE) + 2);
    const filled = round.judged.filter((j) => j.verdict.kind === "effect" && j.verdict.patch.status === "filled");
    expect(filled).toHaveLength(599);
    expect(round.judged.find((j) => j.intent.idempotencyKey === "k7")!.verdict).toMatchObject({
      kind: "effect",
      patch: { status: "failed" },
    });
  });

  it("polling 10,000 rows keeps to about 10 requests a second: a round of many pages waits longer before the next", async () => {
    const N = 10_000;
    const { client } = service(Array.from({ length: N }, (_, i) => hedge(i, "submitted")));
    const round = await pollOnce(
      client,
      Array.from({ length: N }, (_, i) => submitted(i)),
    );
    const waitMs = nextPollDelayMs(500, round.requests);
    expect(round.requests).toBe(20);
    expect((round.requests / waitMs) * 1000).toBeLessThanOrEqual(10);
    // A small batch keeps the desk's interval, so it is seen filled soon after its fill.
    expect(nextPollDelayMs(500, 1)).toBe(500);
  });

  it("a service that ignores the page cursor repeats its first page: paging stops instead of looping", async () => {
    const hedges = Array.from({ length: 600 }, (_, i) => hedge(i, "submitted"));
    const { client, calls } = service(hedges);
    (client.list as jest.Mock).mockImplementation(async () => {
      calls.push("list");
      return { data: [...hedges].reverse().slice(0, PAGE_SIZE) };
    });
    const round = await pollOnce(
      client,
      Array.from({ length: 600 }, (_, i) => submitted(i)),
    );
    expect(calls.filter((c) => c === "list").length).toBeLessThanOrEqual(4);
    expect(round.judged.length).toBeGreaterThanOrEqual(500);
  });
});

describe("opening with a long unfinished list", () => {
  useDeskWorlds();
  it("asks the service about the newest rows only; the others say Resume asks first", async () => {
    const ACCOUNT = "0x00000000000000000000000000000000000000aa";
    const workbook = new MemoryWorkbook();
    const store = new MemoryIntentStore();
    const journal = new Journal(workbook, { store, scope: intentScope("sandbox", ACCOUNT) });
    await journal.load();
    const rows = Array.from({ length: INSPECT_ASK_MAX + 5 }, (_, i) => {
      const at = new Date(Date.parse("2026-11-23T08:00:00.000Z") + i * 1_000).toISOString();
      const intent = intentFromRow(
        { rowNumber: i + 2, action: "open", market: `M${i}`, side: "buy", notional: 1_000, tenor: 7, clientReference: `R${i}` },
        `k${i}`,
        "sandbox",
        at,
        ACCOUNT,
      );
      return Object.assign(intent, { keyId: "k-this-key", sentAt: at });
    });
    await journal.append(rows);
    const asked: string[] = [];
    const client = {
      environment: "sandbox",
      keyId: "k-this-key",
      account: async () => ({ data: { account_address: ACCOUNT } }),
      list: async (q: ListQuery) => {
        asked.push(q.client_reference ?? "");
        return { data: [] };
      },
    } as unknown as HedgingClient;
    const plan = await (await world({ client, workbook, intentStore: store }).desk()).inspect();
    expect(plan.items).toHaveLength(INSPECT_ASK_MAX + 5);
    expect(asked).toHaveLength(INSPECT_ASK_MAX);
    expect(asked).not.toContain("R0");
    expect(plan.items.slice(0, 5).map((i) => [i.row.idempotencyKey, i.step])).toEqual(
      ["k0", "k1", "k2", "k3", "k4"].map((k) => [k, "ask"]),
    );
    expect(plan.items[5].step).toBe("decide"); // asked: sent long ago, not on the service
  });
});
