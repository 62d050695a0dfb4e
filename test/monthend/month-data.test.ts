// fetchHistory's and fetchHedges' paging and their completeness: a read that reaches the window's start is complete; one cut by the page limit or by a service that ignores from/to says so.
import type { HedgingClient } from "../../src/api/client";
import type { ClosedHedge, HistoryQuery, ListQuery } from "../../src/api/schemas";
import { fetchHedges, fetchHistory } from "../../src/monthend/month-data";
import { closed, hedge } from "../support/builders";

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
