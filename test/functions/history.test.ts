// HEDGE.HISTORY([from], [to]) through fake invocations on a manual clock: argument forms, the closed_at window, every page, newest first, date serials, the slow refresh.
import { FakeExcelError, FakeInvocation, installFeeds } from "./fake-invocation";
import { FakeClient } from "../feeds/fake-client";
import type { ClosedHedge, HistoryQuery } from "../../src/api/schemas";
import type { ApiResult } from "../../src/api/sender";
import { history as historyHandler, historyWindow, HISTORY_FIELDS, HISTORY_MAX_PAGES } from "../../src/functions/history";
import { cellStreams } from "../../src/functions/runtime";
import { excelSerial } from "../../src/functions/cells";
import { toExcelDate } from "../../src/trading/cells";
import { closed } from "../support/builders";

/** A client whose history honours from/to (to exclusive) and limit, newest first, like the sandbox's. */
class HistoryClient extends FakeClient {
  records: ClosedHedge[] = [];
  queries: HistoryQuery[] = [];
  /** Like a service that does not know the filters: always the newest records. */
  ignoreWindow = false;
  override history(query: HistoryQuery = {}): Promise<ApiResult<never[]>> {
    this.queries.push(query);
    void super.history(); // counts the call
    const from = query.from && !this.ignoreWindow ? Date.parse(query.from) : -Infinity;
    const to = query.to && !this.ignoreWindow ? Date.parse(query.to) : Infinity;
    const data = this.records
      .filter((r) => Date.parse(r.closed_at) >= from && Date.parse(r.closed_at) < to)
      .sort((a, b) => Date.parse(b.closed_at) - Date.parse(a.closed_at))
      .slice(0, query.limit ?? 100);
    // The base fake's type says "no records"; this one returns some.
    return Promise.resolve({ data: structuredClone(data) as never[], meta: {} });
  }
}

function run(from: unknown, to: unknown) {
  const cell = new FakeInvocation<unknown[][]>();
  historyHandler(cellStreams(), cell as never, from, to);
  return cell;
}

describe("historyWindow", () => {
  it("reads Excel dates and ISO text; a date alone as `to` includes that whole day", () => {
    const nov1 = Date.UTC(2026, 10, 1);
    const dec1 = Date.UTC(2026, 11, 1);
    expect(historyWindow(toExcelDate("2026-11-01T00:00:00Z"), toExcelDate("2026-11-30T00:00:00Z"))).toEqual({ fromMs: nov1, toMs: dec1 });
    expect(historyWindow("2026-11-01", "2026-11-30")).toEqual({ fromMs: nov1, toMs: dec1 });
    expect(historyWindow("2026-11-01T06:30:00Z", "2026-11-02 12:00")).toEqual({
      fromMs: nov1 + 6.5 * 3_600_000,
      toMs: nov1 + 36 * 3_600_000,
    });
    expect(historyWindow(null, undefined)).toEqual({ fromMs: null, toMs: null });
    expect(historyWindow("", "  ")).toEqual({ fromMs: null, toMs: null });
  });

  it("names the argument and the accepted forms when it is not a date, and refuses an empty window", () => {
    expect(() => historyWindow("1/11/2026", null)).toThrow(/from must be a date: an Excel date such as DATE\(2026,11,1\), or ISO text/);
    expect(() => historyWindow(true, null)).toThrow(/from must be a date/);
    expect(() => historyWindow(null, -3)).toThrow(/to must be a date/);
    expect(() => historyWindow("2026-11-30", "2026-11-01")).toThrow(/to must be after from/);
  });
});

describe("HEDGE.HISTORY", () => {
  it("spills a header row and every record closed in the window, newest first, with times as date serials", async () => {
    const client = new HistoryClient();
    client.records = [
      closed({ hedge_id: "oct", closed_at: "2026-10-31T23:59:59Z" }),
      closed({ hedge_id: "a", closed_at: "2026-11-02T10:00:00Z", net_pnl_usd: 1.5 }),
      closed({ hedge_id: "b", closed_at: "2026-11-30T23:00:00Z", client_reference: null }),
      closed({ hedge_id: "dec", closed_at: "2026-12-01T00:00:00Z" }),
    ];
    const { advance } = installFeeds({}, client);
    const cell = run("2026-11-01", "2026-11-30");
    await advance();
    const spill = cell.value;
    expect(spill[0]).toEqual([...HISTORY_FIELDS]);
    const rows = spill.slice(1).map((r) => Object.fromEntries(HISTORY_FIELDS.map((f, i) => [f, r[i]])));
    expect(rows.map((r) => r.hedge_id)).toEqual(["b", "a"]);
    expect(rows[1]).toMatchObject({
      closed_at: excelSerial("2026-11-02T10:00:00Z"),
      opened_at: excelSerial("2026-11-02T09:00:00.000Z"),
      net_pnl_usd: 1.5,
      exit_type: "close",
    });
    expect(rows[0].client_reference).toBe("");
  });

  it("reads every page when the window holds more than 500 records", async () => {
    const client = new HistoryClient();
    const base = Date.UTC(2026, 10, 1);
    client.records = Array.from({ length: 1_203 }, (_, i) =>
      closed({ hedge_id: `h${i}`, closed_at: new Date(base + Math.floor(i / 3) * 60_000).toISOString() }),
    );
    const { advance } = installFeeds({}, client);
    const cell = run(null, null);
    await advance();
    const ids = cell.value.slice(1).map((r) => r[HISTORY_FIELDS.indexOf("hedge_id")]);
    expect(ids).toHaveLength(1_203);
    expect(new Set(ids).size).toBe(1_203);
    expect(client.queries.length).toBeGreaterThanOrEqual(3);
  });

  it("ends with a LIST CUT row when the records could not all be read, and only then", async () => {
    const base = Date.UTC(2026, 10, 1);
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => closed({ hedge_id: `h${i}`, closed_at: new Date(base + i * 1_000).toISOString() }));
    const lastRow = async (client: HistoryClient) => {
      const { advance } = installFeeds({}, client);
      const cell = run(null, null);
      await advance();
      return { spill: cell.value, last: cell.value[cell.value.length - 1] };
    };

    // More than the pages one cell reads: the newest 5,000, then the row that says the list stops there.
    const capped = new HistoryClient();
    capped.records = many(HISTORY_MAX_PAGES * 500 + 7);
    const cut = await lastRow(capped);
    const listed = cut.spill.slice(1, -1);
    // 500 on the first page, 499 new on each next one (it repeats the record at its boundary): 4,991 of 5,007.
    expect(listed).toHaveLength(500 + (HISTORY_MAX_PAGES - 1) * 499);
    expect(new Set(listed.map((r) => r[HISTORY_FIELDS.indexOf("hedge_id")])).size).toBe(listed.length);
    expect(cut.last[0]).toBe(`LIST CUT at ${listed.length} records`);
    expect(cut.last[1]).toMatch(/older ones are missing: it stopped at the limit of 10 pages.*Narrow the window with from and to/);
    expect(cut.last).toHaveLength(HISTORY_FIELDS.length);

    // A service that ignores from/to: the same newest 500 every time, and the row says why.
    const deaf = new HistoryClient();
    deaf.ignoreWindow = true;
    deaf.records = many(1_200);
    const same = await lastRow(deaf);
    expect(same.spill).toHaveLength(1 + 500 + 1);
    expect(same.last[0]).toBe("LIST CUT at 500 records");
    expect(same.last[1]).toMatch(/may ignore the from\/to filters/);

    // Everything read: no such row.
    const whole = new HistoryClient();
    whole.records = many(1_000);
    const all = await lastRow(whole);
    expect(all.spill).toHaveLength(1 + 1_000);
    expect(String(all.last[0])).not.toMatch(/LIST CUT/);
  });

  it("refreshes slowly: one request a minute however many cells show the same window", async () => {
    const client = new HistoryClient();
    const { advance } = installFeeds({}, client);
    const many = Array.from({ length: 50 }, () => run("2026-11-01", null));
    await advance();
    await advance(59_000);
    expect(client.queries).toHaveLength(1);
    client.records = [closed({ closed_at: "2026-11-03T00:00:00Z" })];
    await advance(1_000);
    expect(client.queries).toHaveLength(2);
    for (const cell of many) expect(cell.value).toHaveLength(2);
  });

  it("shows #VALUE! naming the argument and sends nothing for a bad date", async () => {
    const client = new HistoryClient();
    const { advance } = installFeeds({}, client);
    const cell = run("yesterday", null);
    await advance();
    expect(cell.last).toBeInstanceOf(FakeExcelError);
    expect(cell.error.code).toBe("#VALUE!");
    expect(cell.error.message).toMatch(/^from must be a date/);
    expect(client.queries).toHaveLength(0);
  });
});
