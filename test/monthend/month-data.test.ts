// fetchHistory's and fetchHedges' paging and their completeness: a read that reaches the window's start is complete; one cut by the page limit or by a service that ignores from/to says so.
import type { HedgingClient } from "../../src/api/client";
import type { ClosedHedge, HistoryQuery, ListQuery } from "../../src/api/schemas";
import { HedgingApiError } from "../../src/api/errors";
import { fetchHedges, fetchHistory, fetchMonthData, type MonthEndClient } from "../../src/monthend/month-data";
import { monthWindow } from "../../src/monthend/month";
import type { LogRecord } from "../../src/trading/log/hedge-log";
import { controlRecord, CONTROLS } from "../../src/trading/log/control-row";
import { closed, hedge, position } from "../support/builders";

const BASE = Date.UTC(2026, 10, 1);
const MINUTE = 60_000;

/** `count` records one minute apart from 1 Nov 2026, each with its own hedge id. */
const records = (count: number) =>
  Array.from({ length: count }, (_, i) => closed({ hedge_id: `h${i}`, closed_at: new Date(BASE + i * MINUTE).toISOString() }));

/** A history endpoint over `all`, newest first, honouring from/to/limit unless told to ignore the window. */
function service(all: ClosedHedge[], { ignoreWindow = false } = {}) {
  const queries: HistoryQuery[] = [];
  return {
    queries,
    history(query: HistoryQuery = {}) {
      queries.push(query);
      const from = !ignoreWindow && query.from ? Date.parse(query.from) : -Infinity;
      const to = !ignoreWindow && query.to ? Date.parse(query.to) : Infinity;
      const data = all
        .filter((r) => Date.parse(r.closed_at) >= from && Date.parse(r.closed_at) < to)
        .sort((a, b) => Date.parse(b.closed_at) - Date.parse(a.closed_at))
        .slice(0, query.limit ?? 100);
      return Promise.resolve({ data: structuredClone(data), meta: {} });
    },
  };
}

describe("fetchHistory", () => {
  it("is complete when it reads every page down to a short one", async () => {
    const read = await fetchHistory(service(records(1_203)), BASE, null);
    expect(read.complete).toBe(true);
    expect(read.incompleteReason).toBeNull();
    expect(new Set(read.records.map((r) => r.hedge_id)).size).toBe(1_203);
  });

  it("is complete when a full page reaches back before the window's start (older records are not wanted)", async () => {
    const read = await fetchHistory(service(records(1_000), { ignoreWindow: true }), BASE + 700 * MINUTE, null);
    expect(read.complete).toBe(true);
    expect(read.records).toHaveLength(300);
  });

  it("reads on when a full page's oldest record is at the window's very start: more records of that instant may follow", async () => {
    const atStart = [0, 1, 2].map((i) => closed({ hedge_id: `start${i}`, closed_at: new Date(BASE).toISOString() }));
    const read = await fetchHistory(service([...records(500).slice(1), ...atStart]), BASE, null);
    expect(read.complete).toBe(true);
    expect(read.records).toHaveLength(502);
    expect(
      read.records
        .slice(-3)
        .map((r) => r.hedge_id)
        .sort(),
    ).toEqual(["start0", "start1", "start2"]);
  });

  it("says it was cut short when the page limit stops it with more to read", async () => {
    const client = service(records(1_203));
    const read = await fetchHistory(client, BASE, null, { maxHistoryPages: 2 });
    expect(client.queries).toHaveLength(2);
    // 500, then 499 new: each page after the first repeats the record at its boundary instant.
    expect(read.records).toHaveLength(999);
    expect(read.complete).toBe(false);
    expect(read.incompleteReason).toMatch(/limit of 2 pages of 500/);
  });

  it("says it was cut short when the service ignores from/to and answers the same newest 500 every time", async () => {
    const read = await fetchHistory(service(records(1_203), { ignoreWindow: true }), BASE, null);
    // Each record once (the repeated pages add nothing, and nothing twice), and the read says it stopped short.
    expect(read.records.map((r) => r.hedge_id)).toEqual(Array.from({ length: 500 }, (_, i) => `h${1202 - i}`));
    expect(read.complete).toBe(false);
    expect(read.incompleteReason).toMatch(/ignore the from\/to filters/);
  });
});

describe("fetchHedges", () => {
  /** `count` hedges opened an hour apart back from 30 Nov 2026, newest first, listed in pages (or the first page again, ignoring the cursor). */
  function hedges(count: number, { ignoreCursor = false } = {}) {
    const all = Array.from({ length: count }, (_, i) =>
      hedge({ id: `h${i}`, opened_at: new Date(Date.UTC(2026, 10, 30) - i * 3_600_000).toISOString() }),
    );
    const queries: ListQuery[] = [];
    const client = {
      list(q: ListQuery) {
        queries.push(q);
        const from = !ignoreCursor && q.starting_after ? all.findIndex((h) => h.id === q.starting_after) + 1 : 0;
        return Promise.resolve({ data: all.slice(from, from + (q.limit ?? 100)), meta: {} });
      },
    };
    return { client: client as unknown as Pick<HedgingClient, "list">, queries };
  }

  it("reads pages of 500 with the cursor until one reaches back before the start, and is then complete", async () => {
    const { client, queries } = hedges(2_000);
    // 1,200 hours back from 30 Nov is 11 Oct: the third page (hours 1,000–1,499) reaches past it.
    const read = await fetchHedges(client, Date.UTC(2026, 9, 11));
    expect(read.complete).toBe(true);
    expect(read.hedges).toHaveLength(1_500);
    expect(queries).toEqual([{ limit: 500 }, { limit: 500, starting_after: "h499" }, { limit: 500, starting_after: "h999" }]);
  });

  it("is complete at a short page; cut short at the page limit or by a service that ignores the cursor", async () => {
    expect((await fetchHedges(hedges(700).client, 0)).complete).toBe(true);
    const capped = hedges(2_000);
    const read = await fetchHedges(capped.client, 0, { maxHedgePages: 2 });
    expect([read.complete, read.hedges.length, capped.queries.length]).toEqual([false, 1_000, 2]);
    const ignoring = hedges(2_000, { ignoreCursor: true });
    const again = await fetchHedges(ignoring.client, 0);
    expect([again.complete, again.hedges.length, ignoring.queries.length]).toEqual([false, 500, 2]);
  });
});

describe("fetchHistory's pages", () => {
  it("moves `to` to the oldest record of each page plus 1 ms, from the window given, and asks for 500 a page", async () => {
    const client = service(records(1_203));
    await fetchHistory(client, BASE, BASE + 2_000 * MINUTE);
    expect(client.queries).toEqual([
      { from: new Date(BASE).toISOString(), limit: 500, to: new Date(BASE + 2_000 * MINUTE).toISOString() },
      { from: new Date(BASE).toISOString(), limit: 500, to: new Date(BASE + 703 * MINUTE + 1).toISOString() },
      { from: new Date(BASE).toISOString(), limit: 500, to: new Date(BASE + 204 * MINUTE + 1).toISOString() },
    ]);
    const open = service(records(3));
    await fetchHistory(open, BASE, null);
    expect(open.queries).toEqual([{ from: new Date(BASE).toISOString(), limit: 500 }]);
  });

  it("keeps records at a page's boundary instant once each, even two alike; drops those outside the window or unreadable", async () => {
    // 500 records at one minute each, then two identical records at the boundary instant and one older.
    const all = [
      ...records(499).map((r, i) => ({ ...r, closed_at: new Date(BASE + (10 + i) * MINUTE).toISOString() })),
      closed({ hedge_id: "twin", closed_at: new Date(BASE + 5 * MINUTE).toISOString() }),
      closed({ hedge_id: "twin", closed_at: new Date(BASE + 5 * MINUTE).toISOString() }),
      closed({ hedge_id: "old", closed_at: new Date(BASE + MINUTE).toISOString() }),
    ];
    const read = await fetchHistory(service(all), BASE, null);
    expect(read.records.filter((r) => r.hedge_id === "twin")).toHaveLength(2);
    expect(read.records).toHaveLength(502);
    expect(read.complete).toBe(true);
    // A service that ignores the window: records before `from`, at or after `to`, or without a readable time are left out.
    const outside = [
      closed({ hedge_id: "before", closed_at: new Date(BASE - 1).toISOString() }),
      closed({ hedge_id: "at-to", closed_at: new Date(BASE + 10 * MINUTE).toISOString() }),
      closed({ hedge_id: "in", closed_at: new Date(BASE + 10 * MINUTE - 1).toISOString() }),
      closed({ hedge_id: "from", closed_at: new Date(BASE).toISOString() }),
      closed({ hedge_id: "unreadable", closed_at: "yesterday" }),
    ];
    const windowed = await fetchHistory(service(outside, { ignoreWindow: true }), BASE, BASE + 10 * MINUTE);
    expect(windowed.records.map((r) => r.hedge_id)).toEqual(["in", "from"]);
  });

  it("a full page of records whose times cannot be read brings nothing new: cut short, and said so", async () => {
    const unreadable = Array.from({ length: 500 }, (_, i) => closed({ hedge_id: `u${i}`, closed_at: "not a time" }));
    const read = await fetchHistory({ history: () => Promise.resolve({ data: unreadable, meta: {} }) } as never, BASE, null);
    expect([read.records.length, read.complete]).toEqual([0, false]);
    expect(read.incompleteReason).toBe(
      "a full page of 500 brought no record not already read (the service may ignore the from/to filters)",
    );
  });

  it("reads at most 40 pages by default, and says so", async () => {
    // Every page full, each just before the last one's `to` (a page a minute back): never short, never past the start.
    let queries = 0;
    const client = {
      history(q: HistoryQuery) {
        queries++;
        const to = q.to ? Date.parse(q.to) : BASE + 100_000 * MINUTE;
        return Promise.resolve({
          data: Array.from({ length: 500 }, (_, i) =>
            closed({ hedge_id: `p${queries}-${i}`, closed_at: new Date(to - 1 - i).toISOString() }),
          ),
          meta: {},
        });
      },
    };
    const read = await fetchHistory(client as never, BASE, null);
    expect(queries).toBe(40);
    expect(read.incompleteReason).toBe("it stopped at the limit of 40 pages of 500 records");
  });
});

describe("fetchHistory's edges", () => {
  it("a record at the instant just after a page's oldest (the next page's `to`) is not read again from a service that ignores `to`", async () => {
    // With the extra record, the first page is it and records 1,202 … 704: its oldest closed at minute 704.
    const all = [...records(1_203), closed({ hedge_id: "edge", closed_at: new Date(BASE + 704 * MINUTE + 1).toISOString() })];
    const read = await fetchHistory(service(all, { ignoreWindow: true }), BASE, null);
    expect(read.records.filter((r) => r.hedge_id === "edge")).toHaveLength(1);
    expect(read.records).toHaveLength(500);
  });

  it("gives the records newest first whatever order a page has", async () => {
    const mixed = [records(3)[1], records(3)[0], records(3)[2]];
    const read = await fetchHistory({ history: () => Promise.resolve({ data: mixed, meta: {} }) } as never, BASE, null);
    expect(read.records.map((r) => r.hedge_id)).toEqual(["h2", "h1", "h0"]);
  });
});

describe("fetchHedges' defaults and stops", () => {
  it("reads at most 40 pages by default; a page of new hedges all since the start goes on", async () => {
    const all = Array.from({ length: 21_000 }, (_, i) => hedge({ id: `h${i}`, opened_at: new Date(BASE - i * 1_000).toISOString() }));
    let calls = 0;
    const client = {
      list(q: ListQuery) {
        calls++;
        const from = q.starting_after ? all.findIndex((h) => h.id === q.starting_after) + 1 : 0;
        return Promise.resolve({ data: all.slice(from, from + (q.limit ?? 100)), meta: {} });
      },
    } as unknown as Pick<HedgingClient, "list">;
    const read = await fetchHedges(client, 0);
    expect([calls, read.hedges.length, read.complete]).toEqual([40, 20_000, false]);
    // A hedge without an opening time is not "before the start": the read goes on to the short page.
    // A full page whose oldest hedge opened at the very start is not yet past it: the next page is read.
    const atStart = Array.from({ length: 600 }, (_, i) =>
      hedge({ id: `s${i}`, opened_at: new Date(BASE + (499 - i) * 1_000).toISOString() }),
    );
    let pages = 0;
    const paged = {
      list(q: ListQuery) {
        pages++;
        const from = q.starting_after ? atStart.findIndex((h) => h.id === q.starting_after) + 1 : 0;
        return Promise.resolve({ data: atStart.slice(from, from + 500), meta: {} });
      },
    } as unknown as Pick<HedgingClient, "list">;
    expect((await fetchHedges(paged, BASE)).hedges).toHaveLength(600);
    expect(pages).toBe(2);
    const undated = { list: () => Promise.resolve({ data: [hedge({ id: "x", opened_at: null as unknown as string })], meta: {} }) };
    expect((await fetchHedges(undated as unknown as Pick<HedgingClient, "list">, BASE)).complete).toBe(true);
  });
});

describe("fetchMonthData", () => {
  const NOV = monthWindow("2026-11");
  const ACCOUNT = "0xaa";
  const row = (over: Partial<LogRecord>): LogRecord => ({
    loggedAt: "2026-11-10T09:00:00.000Z",
    environment: "sandbox",
    action: "open",
    market: "USDTNGN",
    side: "buy",
    notional: 1,
    tenor: 7,
    clientReference: null,
    idempotencyKey: "k",
    status: "filled",
    hedgeId: null,
    orderTxHash: null,
    fillTxHash: null,
    struckRate: null,
    filledAt: null,
    errorCode: null,
    message: null,
    account: ACCOUNT,
    ...over,
  });

  /** A service whose hedge list holds `listed` (newest first; `repeat`: it ignores the cursor) and answers `get` from `known`. */
  function monthService(
    opts: { listed?: ReturnType<typeof hedge>[]; repeat?: boolean; known?: ReturnType<typeof hedge>[]; failGet?: string } = {},
  ) {
    const calls: string[] = [];
    const listed = opts.listed ?? [];
    const client = {
      environment: "sandbox",
      account: async () => (calls.push("account"), { data: { account_address: ACCOUNT }, meta: {} }),
      positions: async () => (calls.push("positions"), { data: [position()], meta: {} }),
      history: async () => (
        calls.push("history"),
        { data: [closed({ hedge_id: "hist", client_reference: "REF-HIST", closed_at: "2026-11-20T00:00:00.000Z" })], meta: {} }
      ),
      get: async (id: string) => {
        calls.push(`get ${id}`);
        if (id === opts.failGet) throw new HedgingApiError({ code: "service_unavailable", message: "down", status: 503 });
        const h = (opts.known ?? []).find((k) => k.id === id);
        if (!h) throw new HedgingApiError({ code: "hedge_not_found", message: "no", status: 404 });
        return { data: h, meta: {} };
      },
      list: async (q: ListQuery) => {
        calls.push(`list ${q.status ?? q.client_reference ?? (q.starting_after ? "after" : "all")}`);
        if (q.client_reference) return { data: (opts.known ?? []).filter((h) => h.client_reference === q.client_reference), meta: {} };
        if (q.status) return { data: listed.filter((h) => h.status === q.status), meta: {} };
        if (opts.repeat) return { data: listed.slice(0, 500), meta: {} };
        const from = q.starting_after ? listed.findIndex((h) => h.id === q.starting_after) + 1 : 0;
        return { data: listed.slice(from, from + 500), meta: {} };
      },
    } as unknown as MonthEndClient;
    return { client, calls };
  }

  it("reads the account, the history, positions and hedges, with a progress line for each, and returns them", async () => {
    const { client, calls } = monthService({ listed: [hedge({ id: "a", status: "filled" })] });
    const progress: string[] = [];
    const log = [row({})];
    const data = await fetchMonthData(client, NOV, log, { now: () => 42, onProgress: (m) => progress.push(m) });
    expect(progress).toEqual(["Reading the account…", "Reading the hedge history…", "Reading positions and hedges…"]);
    expect(calls.slice(0, 2)).toEqual(["account", "history"]);
    expect(data).toMatchObject({
      environment: "sandbox",
      accountAddress: ACCOUNT,
      window: NOV,
      generatedAtMs: 42,
      historyComplete: true,
      historyIncompleteReason: null,
      positions: [position()],
      hedgesComplete: true,
      log,
    });
    expect(data.hedges.map((h) => h.id)).toEqual(["a"]);
    expect(data.history.map((r) => r.hedge_id)).toEqual(["hist"]);
    expect(Math.abs((await fetchMonthData(client, NOV, [])).generatedAtMs - Date.now())).toBeLessThan(5_000);
  });

  it("asks for a log row's client reference the service did not list: rows of this environment and account since the read's start only", async () => {
    const known = [hedge({ id: "by-ref", client_reference: "REF-1", status: "filled" })];
    const { client, calls } = monthService({ known, listed: [hedge({ id: "listed", client_reference: "REF-LISTED", status: "filled" })] });
    const progress: string[] = [];
    const log = [
      row({ clientReference: "REF-1" }),
      row({ clientReference: "REF-LISTED", idempotencyKey: "k-l" }), // a listed hedge holds it
      row({ clientReference: "REF-1", idempotencyKey: "k2" }), // asked once
      row({ clientReference: "REF-HIST" }), // known from the history
      row({ clientReference: "REF-ID", hedgeId: "h-named" }), // has a hedge id
      row({ clientReference: "REF-OLD", loggedAt: "2026-10-01T00:00:00.000Z" }), // before the read's start (8 days before the month)
      row({ clientReference: "REF-PROD", environment: "production" }),
      row({ clientReference: "REF-OTHER", account: "0xbb" }),
      // A control row (issue 40): its Client reference is "from → to", never a deal's, never looked up.
      controlRecord(
        {
          control: CONTROLS.liveApproval,
          from: "on",
          to: "off",
          by: "fp-0000000000000001",
          at: "2026-11-10T09:00:00.000Z",
          environment: "sandbox",
          account: ACCOUNT,
          hash: null,
          preparedBy: null,
          message: "LIVE trades need approval: off.",
        },
        "k-c",
      ),
    ];
    const data = await fetchMonthData(client, NOV, log, { onProgress: (m) => progress.push(m) });
    expect(calls.filter((c) => c.startsWith("list REF") || c.startsWith("get "))).toEqual(["list REF-1"]);
    expect(progress).toContain("Looking up 1 client references named in the log…");
    expect(data.hedges.map((h) => h.id)).toContain("by-ref");
    // Nothing to look up: no line.
    const quiet: string[] = [];
    await fetchMonthData(monthService().client, NOV, [], { onProgress: (m) => quiet.push(m) });
    expect(quiet.some((m) => m.startsWith("Looking up"))).toBe(false);
  });

  it("pages cut short: asks for each hedge id of a recent row the pages and the history did not show; not found is an answer", async () => {
    const listed = Array.from({ length: 500 }, (_, i) => hedge({ id: `l${i}`, status: "closed", opened_at: "2026-11-25T00:00:00.000Z" }));
    const known = [hedge({ id: "h-old", status: "filled" })];
    const { client, calls } = monthService({ listed, repeat: true, known });
    const progress: string[] = [];
    const log = [
      row({ hedgeId: "h-old" }),
      row({ hedgeId: "h-old", idempotencyKey: "k2" }),
      row({ hedgeId: "h-gone" }),
      row({ hedgeId: "l3" }), // listed
      row({ hedgeId: "hist" }), // in the history
      row({ hedgeId: "h-ancient", loggedAt: "2026-10-01T00:00:00.000Z" }),
      row({ hedgeId: "h-edge", loggedAt: "2026-10-24T00:00:00.000Z" }), // exactly 8 days before the month: recent still
      row({ hedgeId: "h-prod", environment: "production" }),
    ];
    const data = await fetchMonthData(client, NOV, log, { onProgress: (m) => progress.push(m) });
    expect(data.hedgesComplete).toBe(false);
    expect(calls.filter((c) => c.startsWith("get ")).sort()).toEqual(["get h-edge", "get h-gone", "get h-old"]);
    expect(progress).toContain("Looking up 3 hedges named in the log…");
    expect(data.hedges.map((h) => h.id)).toContain("h-old");
    expect(data.hedges.map((h) => h.id)).not.toContain("h-gone");
    // Any other error stops the run rather than flag wrongly.
    const failing = monthService({ listed, repeat: true, known, failGet: "h-old" });
    await expect(fetchMonthData(failing.client, NOV, log)).rejects.toMatchObject({ code: "service_unavailable" });
    // Pages cut short, every row's hedge shown: nothing asked, no line.
    const shown = monthService({ listed, repeat: true, known });
    const quiet: string[] = [];
    await fetchMonthData(shown.client, NOV, [row({ hedgeId: "l3" }), row({ hedgeId: "hist", idempotencyKey: "k2" })], {
      onProgress: (m) => quiet.push(m),
    });
    expect(shown.calls.filter((c) => c.startsWith("get "))).toEqual([]);
    expect(quiet.some((m) => m.startsWith("Looking up"))).toBe(false);
    // Complete pages: no hedge is asked for by itself.
    const complete = monthService({ known });
    await fetchMonthData(complete.client, NOV, log);
    expect(complete.calls.filter((c) => c.startsWith("get "))).toEqual([]);
  });

  it("reads hedges back from 8 days before the month, or before the oldest row of this account still pending", async () => {
    // One hedge an hour back from 30 Nov, 2,000 of them (back to 7 Sep): the pages stop at the first one older than the start.
    const listed = Array.from({ length: 2_000 }, (_, i) =>
      hedge({ id: `h${i}`, status: "closed", opened_at: new Date(Date.UTC(2026, 10, 30) - i * 3_600_000).toISOString() }),
    );
    const pages = async (log: LogRecord[]) => {
      const { client, calls } = monthService({ listed });
      await fetchMonthData(client, NOV, log);
      return calls.filter((c) => c === "list all" || c === "list after").length;
    };
    // 8 days before 1 Nov is 24 Oct: 37 days back from 30 Nov = 888 hours, on the second page.
    expect(await pages([])).toBe(2);
    // A row pending since 1 Oct (+8 days: 23 Sep, 1,608 hours back): the fourth page.
    expect(await pages([row({ status: "submitted", loggedAt: "2026-10-01T00:00:00.000Z" })])).toBe(4);
    expect(await pages([row({ status: "needs_decision", loggedAt: "2026-10-01T00:00:00.000Z" })])).toBe(4);
    // Not pending, another account's, another environment's, or an unreadable time: the month's start.
    expect(await pages([row({ status: "filled", loggedAt: "2026-10-01T00:00:00.000Z" })])).toBe(2);
    expect(await pages([row({ status: "submitted", loggedAt: "2026-10-01T00:00:00.000Z", account: "0xbb" })])).toBe(2);
    expect(await pages([row({ status: "submitted", loggedAt: "2026-10-01T00:00:00.000Z", environment: "PRODUCTION" })])).toBe(2);
    expect(await pages([row({ status: "submitted", loggedAt: "soon" })])).toBe(2);
    expect(await pages([row({ status: "submitted", loggedAt: "2026-10-01T00:00:00.000Z", environment: "SANDBOX" })])).toBe(4);
  });

  it("adds the hedges of the filled and submitted lists (open ones the pages may have missed)", async () => {
    const listed = [hedge({ id: "f", status: "filled" }), hedge({ id: "s", status: "submitted" }), hedge({ id: "c", status: "closed" })];
    const { client, calls } = monthService({ listed });
    const data = await fetchMonthData(client, NOV, []);
    expect(calls).toEqual(expect.arrayContaining(["list filled", "list submitted"]));
    expect(data.hedges.map((h) => h.id).sort()).toEqual(["c", "f", "s"]);
    // Hedges only the status lists show (the pages stopped before them).
    const base = monthService().client;
    const lists = {
      ...base,
      list: async (q: ListQuery) => ({ data: q.status ? [hedge({ id: `only-${q.status}`, status: q.status })] : [], meta: {} }),
    } as unknown as MonthEndClient;
    expect((await fetchMonthData(lists, NOV, [])).hedges.map((h) => h.id)).toEqual(["only-filled", "only-submitted"]);
  });
});
