// The Hedge Log against the service without a network: an untouched 5,000-row log gives no finding in a bounded number of list pages; each cell compared, read tolerantly; a row of another account; the cut end; and a new log column (a new chain form) that leaves every old row verified.
import type { ClosedHedge, Hedge, ListQuery } from "../../src/api/schemas";
import { MemoryWorkbook, columnLetters } from "../../src/excel/memory-workbook";
import { MemorySheetWriter } from "../../src/excel/recon-sheet";
import { verifyLogChain } from "../../src/monthend/log-chain-check";
import { checkLogAgainstService, type ServiceCheckInput } from "../../src/monthend/log-vs-service";
import type { MonthEndClient } from "../../src/monthend/month-data";
import { reconcileMonth } from "../../src/monthend/run-month-end";
import { CHAIN_FORMS, CHAIN_START, finalHashOf, rowHashOf } from "../../src/trading/log/log-chain";
import { LOG_COLUMNS, LOG_HEADERS, LOG_SHEET_NAME, LOG_TABLE_NAME, type LogRecord } from "../../src/trading/log/hedge-log";
import type { PlacedLogRow } from "../../src/trading/workbook";
import { logCells } from "../support/builders";

const ACCOUNT = "0x00000000000000000000000000000000000000aa";

const COLUMNS_MODULE = "../../src/trading/log/log-columns";
/** A body column of the next chain form (2), as the recipe in src/README.md writes one. */
const COUNTERPARTY = { field: "counterparty", header: "Counterparty", kind: "text", numberFormat: "@", width: 120, part: "body", chain: 2 };

/** The chain and the check loaded afresh over LOG_COLUMNS with `extra` appended (as test/trading/log/new-column.test.ts does). */
function withColumnAdded(extra: object) {
  let loaded: {
    chain: typeof import("../../src/trading/log/log-chain");
    chainCheck: typeof import("../../src/monthend/log-chain-check");
    check: typeof import("../../src/monthend/log-vs-service");
  };
  jest.isolateModules(() => {
    jest.doMock(COLUMNS_MODULE, () => {
      const real = jest.requireActual<typeof import("../../src/trading/log/log-columns")>(COLUMNS_MODULE);
      return { ...real, LOG_COLUMNS: [...real.LOG_COLUMNS, extra] };
    });
    /* eslint-disable @typescript-eslint/no-require-imports */
    loaded = {
      chain: require("../../src/trading/log/log-chain"),
      chainCheck: require("../../src/monthend/log-chain-check"),
      check: require("../../src/monthend/log-vs-service"),
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  jest.dontMock(COLUMNS_MODULE);
  return loaded!;
}
const START = Date.UTC(2026, 10, 2, 9); // November 2026
const iso = (ms: number) => new Date(ms).toISOString();

/** Row i: an open of its own hedge `h-i` (buy or sell), logged a minute apart, filled 2 s later, as the add-in writes it. */
function openRow(i: number): LogRecord {
  return {
    loggedAt: iso(START + i * 60_000),
    environment: "sandbox",
    action: "open",
    market: "USDTNGN",
    side: i % 2 ? "sell" : "buy",
    notional: 10_000 + i,
    tenor: 7,
    clientReference: `DEAL-${i}`,
    idempotencyKey: `key-${i}`,
    status: "filled",
    hedgeId: `h-${i}`,
    orderTxHash: `0xorder${i}`,
    fillTxHash: `0xfill${i}`,
    struckRate: 1500 + i / 1_000_000,
    filledAt: iso(START + i * 60_000 + 2_000),
    errorCode: null,
    message: "Filled.",
    account: ACCOUNT,
    notionalBefore: null,
    sentAt: iso(START + i * 60_000 + 100),
    decision: null,
    decidedAt: null,
  };
}

/** The hedge the service shows for an open row: the same cells in its own words (upper-case hashes, times without milliseconds). */
function hedgeOf(r: LogRecord): Hedge {
  return {
    id: r.hedgeId!,
    client_reference: r.clientReference,
    market: r.market,
    side: r.side as Hedge["side"],
    notional_usd: r.notional!,
    tenor_days: r.tenor!,
    status: "filled",
    order_tx_hash: r.orderTxHash!.toUpperCase(),
    fill_tx_hash: r.fillTxHash,
    struck_rate: r.struckRate,
    opened_at: new Date(Date.parse(r.loggedAt) + 500).toISOString().replace(/\.\d+Z$/, "Z"),
    filled_at: r.filledAt!.replace(".000Z", "+00:00"),
    maturity_at: iso(Date.parse(r.loggedAt) + 7 * 86_400_000),
  };
}

/** Rows linked and sealed in sheet order. */
function chained(rows: readonly LogRecord[], prev = CHAIN_START, chain = { rowHashOf, finalHashOf }): LogRecord[] {
  return rows.map((r) => {
    const row = { ...r, prevHash: prev };
    row.rowHash = chain.rowHashOf(prev, row);
    row.finalHash = chain.finalHashOf(row.rowHash, row);
    prev = row.rowHash;
    return row;
  });
}

/** A service holding these hedges, newest first, in pages (`starting_after`); every call counted. */
function serviceOf(hedges: readonly Hedge[], history: readonly ClosedHedge[] = []) {
  const calls: string[] = [];
  const newestFirst = [...hedges].reverse();
  const client = {
    environment: "sandbox",
    account: async () => (calls.push("account"), { data: { account_address: ACCOUNT }, meta: {} }),
    positions: async () => (calls.push("positions"), { data: [], meta: {} }),
    history: async () => (calls.push("history"), { data: [...history], meta: {} }),
    get: async (id: string) => {
      calls.push(`get ${id}`);
      throw new Error("no request per row");
    },
    list: async (q: ListQuery) => {
      calls.push(`list ${q.status ?? "all"}`);
      let from = 0;
      if (q.starting_after) from = newestFirst.findIndex((h) => h.id === q.starting_after) + 1;
      const data = newestFirst
        .slice(from)
        .filter((h) => (!q.status || h.status === q.status) && (!q.client_reference || h.client_reference === q.client_reference))
        .slice(0, q.limit ?? 100);
      return { data, meta: {} };
    },
  } as unknown as MonthEndClient;
  return { client, calls };
}

const ROWS = chained(Array.from({ length: 5_000 }, (_, i) => openRow(i)));
const HEDGES = ROWS.map(hedgeOf);

function workbookWith(rows: readonly LogRecord[]): MemoryWorkbook {
  const wb = new MemoryWorkbook().setSheet(LOG_SHEET_NAME, [[...LOG_HEADERS], ...rows.map(logCells)]);
  return wb.addTable(LOG_TABLE_NAME, LOG_SHEET_NAME, `A1:${columnLetters(LOG_HEADERS.length - 1)}${rows.length + 1}`);
}

async function monthEnd(rows: readonly LogRecord[], client: MonthEndClient, writer = new MemorySheetWriter()) {
  const wb = workbookWith(rows);
  const { reconciliation } = await reconcileMonth(
    {
      client,
      readLog: () => wb.readLog(),
      readLogRows: () => wb.readLogRows(),
      chainHead: async () => rows[rows.length - 1].rowHash ?? null,
      writer,
      now: () => Date.UTC(2026, 11, 1, 9),
    },
    "2026-11",
  );
  return reconciliation;
}

/** One open row and its hedge, placed at sheet row 2, with whatever is changed in either. */
function check(row: Partial<LogRecord> = {}, hedge: Partial<Hedge> = {}, more: Partial<ServiceCheckInput> = {}) {
  const r = { ...openRow(1), ...row };
  const rows: PlacedLogRow[] = [{ sheet: LOG_SHEET_NAME, rowNumber: 2, record: r }];
  return checkLogAgainstService({
    rows,
    environment: "sandbox",
    accountAddress: ACCOUNT,
    hedges: [{ ...hedgeOf(openRow(1)), ...hedge }],
    history: [],
    hedgesComplete: true,
    ...more,
  })
    .lines.filter((l) => l.kind !== "cut_off") // the end of a one-row log: below
    .map((l) => [l.kind, l.field, l.logSays, l.serviceSays]);
}

describe("each cell the service knows, read tolerantly", () => {
  it("an untouched row: hashes in another case, times in another form or a few hundred ms apart, the same rate to the last bits", () => {
    expect(check()).toEqual([]);
    expect(check({ filledAt: "2026-11-02T09:01:02.400Z", struckRate: 1500.000001 + 1e-13 })).toEqual([]);
  });

  it.each([
    ["Market", { market: "EURUSD" }, "EURUSD", "USDTNGN"],
    ["Side", { side: "buy" }, "buy", "sell"],
    ["Tenor (days)", { tenor: 3 }, "3", "7"],
    ["Client reference", { clientReference: "OTHER" }, "OTHER", "DEAL-1"],
    ["Order tx hash", { orderTxHash: "0xforged" }, "0xforged", "0XORDER1"],
    ["Order tx hash", { orderTxHash: null }, "(empty)", "0XORDER1"],
    ["Fill tx hash", { fillTxHash: "0xother" }, "0xother", "0xfill1"],
    ["Filled at (UTC)", { filledAt: "2026-11-02T09:01:03.000Z" }, "2026-11-02T09:01:03.000Z", "2026-11-02T09:01:02+00:00"],
    ["Struck rate", { struckRate: 1500.0011 }, "1500.0011", "1500.000001"],
    ["Struck rate", { struckRate: null }, "(empty)", "1500.000001"],
    ["Notional (USD)", { notional: 10_001.01 }, "10001.01", "10001"],
    ["Status", { status: "failed" }, "failed", "filled"],
  ])("%s: a difference at its row, named by its column", (field, row, logSays, serviceSays) => {
    expect(check(row as Partial<LogRecord>)).toEqual([["differs", field, logSays, serviceSays]]);
  });

  it("read tolerantly: text in another case or with spaces around, a service that left a field out, a row without a tenor", () => {
    expect(check({ market: " usdtngn ", side: "SELL " })).toEqual([]);
    expect(check({}, { market: " USDTNGN ", side: " sell" })).toEqual([]);
    expect(check({}, { client_reference: null, fill_tx_hash: null, filled_at: null, struck_rate: null })).toEqual([]);
    expect(check({ tenor: null })).toEqual([]);
    expect(check({ tenor: undefined })).toEqual([]);
  });

  it("an empty cell the service fills is a difference, shown as (empty)", () => {
    expect(check({ market: null as unknown as string })).toEqual([["differs", "Market", "(empty)", "USDTNGN"]]);
    expect(check({ orderTxHash: "" })).toEqual([["differs", "Order tx hash", "(empty)", "0XORDER1"]]);
    expect(check({ filledAt: undefined })).toEqual([["differs", "Filled at (UTC)", "(empty)", "2026-11-02T09:01:02+00:00"]]);
  });

  it("a notional within half a cent is the service's; a struck rate changed at its sixth decimal is not", () => {
    expect(check({ notional: 10_001.004 })).toEqual([]);
    expect(check({ notional: 10_000.994 })).toEqual([["differs", "Notional (USD)", "10000.994", "10001"]]);
    expect(check({ struckRate: 1500.000002 })).toEqual([["differs", "Struck rate", "1500.000002", "1500.000001"]]);
    // What a cell keeps of a rate (15 significant digits) is the same rate.
    expect(check({ struckRate: Number((1500 + 1 / 1_000_000 + 1e-11).toPrecision(15)) })).toEqual([]);
    expect(check({ struckRate: 0.000666 }, { struck_rate: 0.000667 })).toEqual([["differs", "Struck rate", "0.000666", "0.000667"]]);
  });

  it("rows of this environment and account are compared whatever the case of either; a row without a key (typed: the chain flags it) is not", () => {
    expect(check({ environment: "Sandbox", struckRate: 1 }, {}, { environment: "SANDBOX" })).toEqual([
      ["differs", "Struck rate", "1", "1500.000001"],
    ]);
    expect(check({ account: ACCOUNT.toUpperCase().replace("0X", "0x"), struckRate: 1 })).toEqual([
      ["differs", "Struck rate", "1", "1500.000001"],
    ]);
    const typed = { ...openRow(1), idempotencyKey: " ", struckRate: 1 };
    const report = checkLogAgainstService({
      rows: [{ sheet: LOG_SHEET_NAME, rowNumber: 2, record: typed }],
      environment: "sandbox",
      accountAddress: ACCOUNT,
      hedges: [hedgeOf(openRow(1))],
      history: [],
      hedgesComplete: false,
    });
    expect([report.compared, report.complete, report.lines]).toEqual([0, false, []]);
  });

  it("a hedge the service has closed: its rate is still compared, its notional (now the close's) is not", () => {
    expect(check({ struckRate: 1, notional: 5 }, { status: "closed" })).toEqual([["differs", "Struck rate", "1", "1500.000001"]]);
  });

  it("a row given up on while the service still works on its hedge: nothing to compare yet", () => {
    const pending = { status: "submitted", fill_tx_hash: null, filled_at: null, struck_rate: null } as Partial<Hedge>;
    expect(check({ status: "failed", orderTxHash: null, fillTxHash: null, filledAt: null, struckRate: null }, pending)).toEqual([]);
  });

  it("a status the service contradicts the other way; an unfinished or refused row's outcome is not compared", () => {
    expect(check({}, { status: "failed" })).toEqual([["differs", "Status", "filled", "failed"]]);
    expect(check({ status: "submitted", struckRate: null, fillTxHash: null, filledAt: null })).toEqual([]);
    expect(check({ status: "failed", struckRate: null }, { status: "failed" })).toEqual([]);
  });

  it("after an add the struck rate is a blend; the Open and its Adds less its Reduces are the hedge's notional", () => {
    const withRow = (action: string, status = "filled") =>
      checkLogAgainstService({
        rows: [
          { sheet: LOG_SHEET_NAME, rowNumber: 2, record: { ...openRow(1), struckRate: 1400, notional: 1 } },
          {
            sheet: LOG_SHEET_NAME,
            rowNumber: 3,
            record: { ...openRow(2), action, status, hedgeId: "h-1", side: "sell", tenor: null, fillTxHash: null, filledAt: null },
          },
        ],
        environment: "sandbox",
        accountAddress: ACCOUNT,
        hedges: [hedgeOf(openRow(1))],
        history: [],
        hedgesComplete: true,
      }).lines.map((l) => [l.rowNumber, l.field]);
    // The open's notional 1 and an add of 10,002 are not the hedge's 10,001: flagged at the Open and at its one Add; and
    // the blend 1500.000001 of 1 at 1400 and 10,002 leaves the add a rate 7 % from the open's.
    expect(withRow("add")).toEqual([
      [2, "Struck rate"],
      [2, "Notional (USD)"],
      [3, "Notional (USD)"],
    ]);
    // A reduction keeps the rate: the open's own is compared; 1 less 10,002 is not the hedge's notional either, and the
    // whole history (none given here: all of it) shows no reduction for the Reduce.
    expect(withRow("reduce")).toEqual([
      [2, "Struck rate"],
      [2, "Notional (USD)"],
      [3, "Logged at (UTC)"],
    ]);
    expect(withRow("add", "failed")).toEqual([
      [2, "Struck rate"],
      [2, "Notional (USD)"],
    ]);
  });

  it("a row logged or sent after the service opened its hedge (beyond 2 minutes of clock skew) was written afterwards", () => {
    expect(check({ loggedAt: "2026-11-02T09:03:00.000Z" })).toEqual([]); // 2 minutes after: clock skew
    expect(check({ loggedAt: "2026-11-02T09:03:00.000Z", sentAt: "2026-11-02T09:11:00.000Z" })).toEqual([
      ["logged_after", "Sent at (UTC)", "2026-11-02T09:11:00.000Z", "opened 2026-11-02T09:01:00Z"],
    ]);
    expect(check({ loggedAt: "2026-11-02T09:04:00.000Z", sentAt: null })).toEqual([
      ["logged_after", "Logged at (UTC)", "2026-11-02T09:04:00.000Z", "opened 2026-11-02T09:01:00Z"],
    ]);
  });

  it("an add before its hedge opened cannot be; a fill it recorded is its hedge's", () => {
    const add = {
      action: "add",
      tenor: null,
      clientReference: null,
      orderTxHash: "0xaddorder",
      fillTxHash: null,
      filledAt: null,
      struckRate: null,
    };
    expect(check({ ...add, loggedAt: "2026-11-02T09:10:00.000Z" })).toEqual([]);
    expect(check({ ...add, loggedAt: "2026-11-02T08:50:00.000Z" })).toEqual([
      ["logged_after", "Logged at (UTC)", "2026-11-02T08:50:00.000Z", "opened 2026-11-02T09:01:00Z"],
    ]);
    expect(check({ ...add, loggedAt: "2026-11-02T09:00:00.000Z", fillTxHash: "0xfill1", filledAt: "2026-11-02T09:01:02Z" })).toEqual([]);
    expect(check({ ...add, loggedAt: "2026-11-02T09:00:00.000Z", fillTxHash: "0xfill9", filledAt: "2026-11-02T09:05:02Z" })).toEqual([
      ["differs", "Fill tx hash", "0xfill9", "0xfill1"],
      ["differs", "Filled at (UTC)", "2026-11-02T09:05:02Z", "2026-11-02T09:01:02+00:00"],
    ]);
  });

  it("an add's recorded fill is compared when either its fill tx hash or its fill time is there", () => {
    const add = { action: "add", tenor: null, clientReference: null, struckRate: null, loggedAt: "2026-11-02T09:05:00.000Z" };
    expect(check({ ...add, fillTxHash: "0xfill1", filledAt: null })).toEqual([
      ["differs", "Filled at (UTC)", "(empty)", "2026-11-02T09:01:02+00:00"],
    ]);
    expect(check({ ...add, fillTxHash: null, filledAt: "2026-11-02T09:01:02Z" })).toEqual([
      ["differs", "Fill tx hash", "(empty)", "0xfill1"],
    ]);
    expect(check({ ...add, fillTxHash: "0xfill1", filledAt: "2026-11-02T09:01:02Z" }, { filled_at: null })).toEqual([]);
  });

  it("an add logged up to 2 minutes before its hedge opened is clock skew; any earlier cannot be", () => {
    const add = { action: "add", tenor: null, clientReference: null, fillTxHash: null, filledAt: null, struckRate: null };
    expect(check({ ...add, loggedAt: "2026-11-02T08:59:00.000Z" })).toEqual([]);
    expect(check({ ...add, loggedAt: "2026-11-02T08:58:59.999Z" })).toEqual([
      ["logged_after", "Logged at (UTC)", "2026-11-02T08:58:59.999Z", "opened 2026-11-02T09:01:00Z"],
    ]);
  });

  it("a row of another account that names this account's hedge: its Account was changed; rows of another environment are not looked at", () => {
    expect(check({ account: "0xbb" })).toEqual([["differs", "Account", "0xbb", ACCOUNT]]);
    expect(check({ account: "0xbb", hedgeId: "h-unknown" })).toEqual([]);
    expect(check({ environment: "production", side: "sell" })).toEqual([]);
    expect(check({ account: "0xbb" }, {}, { accountAddress: null })).toEqual([]);
  });
});

describe("what the sheet says of each finding", () => {
  const said = (row: Partial<LogRecord> = {}, hedge: Partial<Hedge> = {}) =>
    checkLogAgainstService({
      rows: [{ sheet: LOG_SHEET_NAME, rowNumber: 7, record: { ...openRow(1), ...row } }],
      environment: "sandbox",
      accountAddress: ACCOUNT,
      hedges: [{ ...hedgeOf(openRow(1)), ...hedge }],
      history: [],
      hedgesComplete: true,
    })
      .lines.filter((l) => l.kind !== "cut_off")
      .map((l) => [l.sheet, l.rowNumber, l.message]);

  it("each difference names its row and column, both values, and why a value is compared only sometimes", () => {
    expect(said({ market: "EURUSD", struckRate: 1, notional: 5 })).toEqual([
      [LOG_SHEET_NAME, 7, "Row 7: Market: the log says EURUSD, the service USDTNGN."],
      [LOG_SHEET_NAME, 7, "Row 7: Struck rate: the log says 1, the service 1500.000001. (The hedge's own: the log shows no add on it.)"],
      [
        LOG_SHEET_NAME,
        7,
        "Row 7: Notional (USD): the log says 5, the service 10001. (The Open comes to 5.00; the service's hedge h-1 took 10,001.00: its notional 10,001.00 and its reductions.)",
      ],
    ]);
    expect(said({ status: "failed" })).toEqual([
      [LOG_SHEET_NAME, 7, "Row 7: Status: the log says failed, the service filled. The service holds the hedge: it is real money."],
    ]);
    expect(said({}, { status: "failed" })).toEqual([
      [LOG_SHEET_NAME, 7, "Row 7: Status: the log says filled, the service failed. Nothing was opened."],
    ]);
    expect(said({ orderTxHash: "0xother" })).toEqual([
      [LOG_SHEET_NAME, 7, "Row 7: Order tx hash: the log says 0xother, the service 0XORDER1."],
    ]);
    // A hedge never goes back from filled: a row filled whose hedge is still in flight was not written from the service's answer.
    expect(said({}, { status: "submitted", fill_tx_hash: null, filled_at: null, struck_rate: null })).toEqual([
      [LOG_SHEET_NAME, 7, "Row 7: Status: the log says filled, the service submitted. The service has not filled it."],
    ]);
  });

  it("a row written after the service acted says why it cannot be the add-in's, and a row of another account names both", () => {
    expect(said({ loggedAt: "2026-11-02T09:04:00.000Z", sentAt: null })).toEqual([
      [
        LOG_SHEET_NAME,
        7,
        "Row 7: Logged at (UTC) 2026-11-02T09:04:00.000Z is after the service opened hedge h-1 (2026-11-02T09:01:00Z): the add-in writes a row before its request leaves, so this row was written afterwards (typed or forged), or this computer's clock was more than 2 minutes fast.",
      ],
    ]);
    const add = { action: "add", tenor: null, clientReference: null, fillTxHash: null, filledAt: null, struckRate: null };
    expect(said({ ...add, loggedAt: "2026-11-02T08:50:00.000Z" })).toEqual([
      [
        LOG_SHEET_NAME,
        7,
        "Row 7: Logged at (UTC) 2026-11-02T08:50:00.000Z, before the service opened hedge h-1 (2026-11-02T09:01:00Z): a row cannot act on a hedge before it exists.",
      ],
    ]);
    expect(said({ account: "0xbb" })).toEqual([
      [LOG_SHEET_NAME, 7, `Row 7: Account: the row names account 0xbb, but its hedge h-1 is this key's account's (${ACCOUNT}).`],
    ]);
  });
});

describe("the service's actions after the newest row", () => {
  const base = (rows: LogRecord[], hedges: Hedge[], history: ClosedHedge[] = []) =>
    checkLogAgainstService({
      rows: rows.map((record, i) => ({ sheet: LOG_SHEET_NAME, rowNumber: i + 2, record })),
      environment: "sandbox",
      accountAddress: ACCOUNT,
      hedges,
      history,
      hedgesComplete: true,
    }).lines.filter((l) => l.kind === "cut_off");
  const closed = (h: Hedge, exit: string, atMs: number, size = h.notional_usd): ClosedHedge => ({
    market: h.market,
    side: h.side,
    size_usd: size,
    collateral_usdc: 100,
    entry_price: 1500,
    exit_price: 1501,
    opened_at: h.opened_at!,
    closed_at: iso(atMs),
    exit_type: exit,
    gross_pnl_usd: 1,
    net_pnl_usd: 1,
    carry_usd: 0,
    fees_usd: 0,
    hedge_id: h.id,
    client_reference: h.client_reference,
  });

  it("the log's own Open is its hedge's opening even when the hedge opened after it: by hedge id, or by client reference while it has no id", () => {
    const later = (r: LogRecord) => ({ ...hedgeOf(r), opened_at: iso(Date.parse(r.loggedAt) + 5_000) }); // 5 s after the newest row
    const byId = { ...openRow(0), clientReference: null };
    expect(base([byId], [later(openRow(0))])).toEqual([]);
    // Filled, its hedge opened 11 minutes after it was logged (sent again after a doubt): still its own, whatever the window.
    expect(base([byId], [{ ...hedgeOf(openRow(0)), opened_at: iso(Date.parse(byId.loggedAt) + 11 * 60_000) }])).toEqual([]);
    const byRef = { ...openRow(0), hedgeId: null, status: "submitted" };
    expect(base([byRef], [later(openRow(0))])).toEqual([]);
    // Neither the id nor the reference: an Open without either sends nothing the service shows (null is no reference).
    const other = { ...openRow(0), hedgeId: "h-other", clientReference: null };
    expect(base([other], [{ ...later(openRow(0)), client_reference: null }]).map((l) => l.kind)).toEqual(["cut_off"]);
    // An Add, Reduce or Close never sends an open.
    expect(base([{ ...openRow(0), action: "add" }], [later(openRow(0))]).map((l) => l.kind)).toEqual(["cut_off"]);
  });

  it("a reduction is the log's only on the hedge its row names (or, without an id, its market and side), from 10 minutes before", () => {
    const open = openRow(0);
    const reduce = (over: Partial<LogRecord>) => ({ ...openRow(1), action: "reduce", side: open.side, hedgeId: "h-0", ...over });
    const hedge = hedgeOf(open);
    const t = Date.parse(openRow(1).loggedAt) + 60_000;
    const decrease = (over: Partial<ClosedHedge> = {}) => ({ ...closed(hedge, "decrease", t, 1_000), ...over });
    expect(base([open, reduce({})], [hedge], [decrease()])).toEqual([]);
    // Another hedge's reduction of the same market and side: not this row's.
    expect(base([open, reduce({})], [hedge], [decrease({ hedge_id: "h-9" })]).length).toBe(1);
    // A row without a hedge id: its market and side, not another market's.
    expect(base([open, reduce({ hedgeId: null, status: "submitted" })], [hedge], [decrease({ hedge_id: null })])).toEqual([]);
    expect(
      base([open, reduce({ hedgeId: null, status: "submitted" })], [hedge], [decrease({ hedge_id: null, market: "USDTKES" })]).length,
    ).toBe(1);
    // A final row logged exactly 10 minutes before the reduction sent it; a millisecond earlier, not.
    const at = (ms: number) => reduce({ loggedAt: iso(ms) });
    expect(base([open, at(t - 10 * 60_000)], [hedge], [decrease()])).toEqual([]);
    expect(base([open, at(t - 10 * 60_000 - 1)], [hedge], [decrease()]).length).toBe(1);
  });

  it("of rows logged at the same newest instant, the first in the sheet is named", () => {
    const rows = [openRow(0), { ...openRow(1), loggedAt: openRow(0).loggedAt }];
    const cut = base(rows, [...rows.map(hedgeOf), hedgeOf(openRow(2))]);
    expect(cut.map((l) => l.message)).toEqual([
      expect.stringContaining(`after the newest row of the log (row 2, logged ${rows[0].loggedAt})`),
    ]);
  });

  it("an open the log never sent, after its newest row, is named at the log's last row; the log's own later fills are not", () => {
    const rows = [openRow(0), openRow(1)];
    const hedges = [...rows.map(hedgeOf), hedgeOf(openRow(2))];
    const cut = base(rows, hedges);
    expect(cut.map((l) => [l.rowNumber, l.serviceSays])).toEqual([
      [3, `an open of USDTNGN buy 10,002.00 (hedge h-2, client reference DEAL-2) at ${hedges[2].opened_at}`],
    ]);
    expect(cut[0].message).toBe(
      `Row 3: the service shows an open of USDTNGN buy 10,002.00 (hedge h-2, client reference DEAL-2) at ${hedges[2].opened_at}, after the newest row of the log (row 3, logged ${rows[1].loggedAt}), and no row sent it: rows were cut off the end, or it was traded outside this workbook since.`,
    );
    // Named by client reference alone (no hedge id yet: the row is still submitted) it is the log's.
    expect(base([openRow(0), { ...openRow(1), hedgeId: null, status: "submitted" }], hedges.slice(0, 2))).toEqual([]);
  });

  it("a reduction or close is the log's when a Reduce or Close on its hedge was logged within 10 minutes before it, each row once; maturity is the service's own", () => {
    const open = openRow(0);
    const h = hedgeOf(open);
    const reduceAt = START + 5 * 60_000;
    const reduce: LogRecord = { ...openRow(5), action: "reduce", side: "buy", hedgeId: "h-0", tenor: null, clientReference: null };
    const rows = [open, reduce];
    expect(base(rows, [h], [closed(h, "decrease", reduceAt + 3_000, 5)])).toEqual([]);
    // A second reduction, 20 minutes on: no row sent it.
    const second = base(rows, [h], [closed(h, "decrease", reduceAt + 3_000, 5), closed(h, "decrease", reduceAt + 20 * 60_000, 5)]);
    expect(second.map((l) => l.serviceSays)).toEqual([`a decrease of USDTNGN buy 5.00 (hedge h-0) at ${iso(reduceAt + 20 * 60_000)}`]);
    // A reduce row logged 11 minutes before a record does not explain it; a close record is a Reduce's or a Close's.
    expect(base(rows, [h], [closed(h, "decrease", reduceAt + 11 * 60_000, 5)])).toHaveLength(1);
    expect(base(rows, [h], [closed(h, "close", reduceAt + 60_000)])).toEqual([]);
    expect(base([open], [h], [closed(h, "maturity", START + 7 * 86_400_000)])).toEqual([]);
    // A record without a hedge id is matched by market and side.
    expect(base(rows, [h], [{ ...closed(h, "decrease", reduceAt + 3_000, 5), hedge_id: null }])).toEqual([]);
    expect(base(rows, [h], [{ ...closed(h, "decrease", reduceAt + 3_000, 5), hedge_id: null, side: "sell" }])).toHaveLength(1);
  });

  it("the newest row is the one logged last, wherever it stands; an unreadable time is never the newest", () => {
    const hedges = [hedgeOf(openRow(0)), hedgeOf(openRow(1)), hedgeOf(openRow(2))];
    // Sorted newest first by hand: the newest row is sheet row 2; the finding stands at the log's last row.
    const sorted = base([openRow(1), openRow(0)], hedges);
    expect(sorted.map((l) => [l.rowNumber, l.logSays])).toEqual([[3, `newest row logged ${openRow(1).loggedAt}`]]);
    expect(sorted[0].message).toContain(`after the newest row of the log (row 2, logged ${openRow(1).loggedAt})`);
    const unreadableFirst = base([{ ...openRow(0), loggedAt: "yesterday" }, openRow(1)], hedges);
    expect(unreadableFirst.map((l) => [l.rowNumber, l.logSays])).toEqual([[3, `newest row logged ${openRow(1).loggedAt}`]]);
  });

  it("an action at the very instant of the newest row is not after it; the ones after are listed oldest first", () => {
    const open = { ...openRow(0), loggedAt: "2026-11-02T09:00:00.000Z" };
    const at = (id: string, openedAt: string) => ({ ...hedgeOf(openRow(0)), id, client_reference: null, opened_at: openedAt });
    // The service lists newest first.
    const hedges = [at("h-late", "2026-11-02T09:30:00Z"), at("h-soon", "2026-11-02T09:00:01Z"), at("h-same", "2026-11-02T09:00:00Z")];
    expect(base([open], [hedgeOf(openRow(0)), ...hedges]).map((l) => l.serviceSays)).toEqual([
      "an open of USDTNGN buy 10,000.00 (hedge h-soon) at 2026-11-02T09:00:01Z",
      "an open of USDTNGN buy 10,000.00 (hedge h-late) at 2026-11-02T09:30:00Z",
    ]);
  });

  it("a reduction is a Reduce's only; each row sends one action; a row still pending may have sent a later one", () => {
    const open = openRow(0);
    const h = hedgeOf(open);
    const reduceAt = START + 5 * 60_000;
    const row = (action: string, over: Partial<LogRecord> = {}): LogRecord => ({
      ...openRow(5),
      action,
      side: "buy",
      hedgeId: "h-0",
      tenor: null,
      clientReference: null,
      ...over,
    });
    const says = (rows: LogRecord[], history: ClosedHedge[]) => base(rows, [h], history).map((l) => l.serviceSays);
    expect(says([open, row("close")], [closed(h, "decrease", reduceAt + 3_000, 5)])).toEqual([
      `a decrease of USDTNGN buy 5.00 (hedge h-0) at ${iso(reduceAt + 3_000)}`,
    ]);
    expect(says([open, row("reduce")], [closed(h, "decrease", reduceAt + 3_000, 5), closed(h, "decrease", reduceAt + 6_000, 7)])).toEqual([
      `a decrease of USDTNGN buy 7.00 (hedge h-0) at ${iso(reduceAt + 6_000)}`,
    ]);
    expect(says([open, row("reduce", { status: "submitted" })], [closed(h, "decrease", reduceAt + 30 * 60_000, 5)])).toEqual([]);
    expect(says([open, row("reduce")], [{ ...closed(h, "close", reduceAt + 9 * 60_000), hedge_id: null }])).toEqual([]);
    expect(says([open], [{ ...closed(h, "close", reduceAt), hedge_id: null }])).toEqual([
      `a close of USDTNGN buy 10,000.00 at ${iso(reduceAt)}`,
    ]);
  });

  it("an empty log, or one whose newest time cannot be read, has no end to cut", () => {
    expect(base([], [hedgeOf(openRow(0))])).toEqual([]);
    expect(base([{ ...openRow(0), loggedAt: "yesterday" }], [hedgeOf(openRow(1))])).toEqual([]);
  });
});

describe("a new log column never breaks old seals (a new chain form)", () => {
  it("5,000 rows written before the column: month end's chain check still verifies every one, and the rows written in the new form too", () => {
    // The recipe: the field and its column (one line of LOG_COLUMNS), which makes a new form covering it; the modules
    // are loaded afresh with it, so no other test sees it. Old rows get the column empty (or typed in later).
    const m = withColumnAdded(COUNTERPARTY);
    expect(m.chain.CHAIN_FORMS.map((f) => f.version)).toEqual([1, 2]);
    const old = ROWS.map((r, i) => ({ ...r, ...(i % 100 === 0 ? { counterparty: "typed later" } : {}) }) as LogRecord);
    const added = chained(
      Array.from({ length: 20 }, (_, i) => ({ ...openRow(5_000 + i), counterparty: `CP-${i}` }) as LogRecord),
      ROWS[ROWS.length - 1].rowHash!,
      m.chain,
    );
    const placed = [...old, ...added].map((record, i) => ({ sheet: LOG_SHEET_NAME, rowNumber: i + 2, record }));
    const report = m.chainCheck.verifyLogChain(placed, added[added.length - 1].rowHash!);
    expect(report.lines).toEqual([]);
    expect(report.chained).toBe(5_020);
    // The new column is covered on the rows written in its form.
    (placed[5_010].record as LogRecord & { counterparty: string }).counterparty = "edited";
    expect(m.chainCheck.verifyLogChain(placed, added[added.length - 1].rowHash!).lines.map((l) => [l.kind, l.rowNumber])).toEqual([
      ["edited", 5_012],
    ]);
    // The shared modules still know one form.
    expect(CHAIN_FORMS).toHaveLength(1);
    expect(verifyLogChain(placed, added[added.length - 1].rowHash!).lines.map((l) => l.kind)).toContain("edited");
  }, 60_000);
});

describe("a hedge's rows rewritten with their hashes recomputed, on a computer without the journal", () => {
  const at = (min: number, ms = 0) => iso(START + min * 60_000 + ms);
  const act = (i: number, action: string, over: Partial<LogRecord>): LogRecord => ({
    ...openRow(i),
    action,
    tenor: null,
    orderTxHash: `0x${action}order${i}`,
    fillTxHash: null,
    filledAt: null,
    struckRate: null,
    message: "Filled.",
    ...over,
  });
  /**
   * Sheet rows 2–6: hedge h-0 opened (100,000 buy) and closed; hedge h-1 opened (50,000 sell at 1500), added to (50,000:
   * the service's blend 1505), reduced by 30,000 and still open at 70,000. Every cell as the add-in writes it.
   */
  const story = (): LogRecord[] => [
    { ...openRow(0), notional: 100_000, clientReference: "DEAL-A", struckRate: 1500 },
    { ...openRow(1), notional: 50_000, clientReference: "DEAL-B", struckRate: 1500 },
    act(2, "add", { side: "sell", notional: 50_000, hedgeId: "h-1", clientReference: "DEAL-B", notionalBefore: 50_000 }),
    act(3, "reduce", { side: "sell", notional: 30_000, hedgeId: "h-1", clientReference: null, notionalBefore: 100_000 }),
    act(4, "close", { side: "buy", notional: null, hedgeId: "h-0", clientReference: "CLOSE-A", status: "closed", notionalBefore: 100_000 }),
  ];
  const open = story();
  const hedges: Hedge[] = [
    { ...hedgeOf(open[0]), status: "closed" },
    { ...hedgeOf(open[1]), notional_usd: 70_000, struck_rate: 1505 },
  ];
  const record = (h: Hedge, exit: string, size: number, closedAt: string): ClosedHedge => ({
    market: h.market,
    side: h.side,
    size_usd: size,
    collateral_usdc: 100,
    entry_price: h.struck_rate!,
    exit_price: 1506,
    opened_at: h.opened_at!,
    closed_at: closedAt,
    exit_type: exit,
    gross_pnl_usd: 1,
    net_pnl_usd: 1,
    carry_usd: 0,
    fees_usd: 0,
    hedge_id: h.id,
    client_reference: h.client_reference,
  });
  const history = [record(hedges[0], "close", 100_000, at(4, 3_000)), record(hedges[1], "decrease", 30_000, at(3, 3_000))];

  /** Month end over the rows, edited by `edit` before the whole chain is recomputed (so it verifies), without this computer's head. */
  async function rehashed(edit: (rows: LogRecord[]) => void = () => undefined) {
    const rows = story();
    edit(rows);
    const wb = workbookWith(chained(rows));
    const { reconciliation } = await reconcileMonth(
      {
        client: serviceOf(hedges, history).client,
        readLog: () => wb.readLog(),
        readLogRows: () => wb.readLogRows(),
        chainHead: async () => null,
        writer: new MemorySheetWriter(),
        now: () => Date.UTC(2026, 11, 1, 9),
      },
      "2026-11",
    );
    expect(reconciliation.chain!.lines).toEqual([]); // the chain alone cannot tell
    return reconciliation.service!;
  }
  const found = async (edit: (rows: LogRecord[]) => void) =>
    (await rehashed(edit)).lines.map((l) => [l.rowNumber, l.field, l.kind, l.logSays, l.serviceSays]);

  it("untouched: no finding; each cell counted in its class", async () => {
    const service = await rehashed();
    expect(service.lines).toEqual([]);
    // Open h-0: 15 checked; Open h-1: 15 (its rate by the blend); the Add: 7 of every row + its 3 fill cells + its amount
    // (its hedge's only Add); the Reduce: 7 + 3 + its amount (its record); the Close: 7 + 3. 28 cells a row, the rest sealed.
    expect(service.cells).toEqual({ checked: 15 + 15 + 11 + 11 + 10, sealed: 5 * 28 - 62, workbookOnly: 0 });
  });

  it("an Open's notional raised tenfold after its hedge closed: flagged at the Open against the history's size", async () => {
    expect(await found((rows) => (rows[0].notional = 1_000_000))).toEqual([[2, "Notional (USD)", "differs", "1000000", "100000"]]);
  });

  it("the struck rate of a hedge that had an Add: the service's blend leaves the Add a rate no market gives", async () => {
    expect(await found((rows) => (rows[1].struckRate = 1400))).toEqual([[3, "Struck rate", "differs", "1400", "blended 1505"]]);
  });

  it("an Add and a Reduce raised together (the net unchanged): the Reduce against its record, the Open and its Add against what the hedge took", async () => {
    expect(
      await found((rows) => {
        rows[2].notional = 60_000;
        rows[3].notional = 40_000;
      }),
    ).toEqual([
      [3, "Notional (USD)", "differs", "50000", "100000"],
      [4, "Notional (USD)", "differs", "60000", "100000"],
      [5, "Notional (USD)", "differs", "40000", "30000"],
    ]);
  });

  it("an Open's Logged at and Sent at moved three days earlier: both flagged against when its hedge opened", async () => {
    const earlier = (t: string | null | undefined) => iso(Date.parse(t!) - 3 * 86_400_000);
    const lines = await found((rows) => {
      rows[1].loggedAt = earlier(rows[1].loggedAt);
      rows[1].sentAt = earlier(rows[1].sentAt);
    });
    expect(lines.map((l) => l.slice(0, 3))).toEqual([
      [3, "Logged at (UTC)", "logged_long_before"],
      [3, "Sent at (UTC)", "logged_long_before"],
    ]);
  });

  it("a Reduce's Logged at and Sent at moved three days earlier: before its hedge opened, and no reduction then", async () => {
    const earlier = (t: string | null | undefined) => iso(Date.parse(t!) - 3 * 86_400_000);
    const lines = await found((rows) => {
      rows[3].loggedAt = earlier(rows[3].loggedAt);
      rows[3].sentAt = earlier(rows[3].sentAt);
    });
    expect(lines.map((l) => l.slice(0, 3))).toEqual([
      [5, "Logged at (UTC)", "logged_after"],
      [5, "Sent at (UTC)", "logged_after"],
      [5, "Logged at (UTC)", "differs"],
    ]);
  });

  it("a Close's Sent at moved a quarter of an hour later: its closing record is not within 10 minutes after it", async () => {
    const lines = await found((rows) => (rows[4].sentAt = at(19)));
    expect(lines.map((l) => l.slice(0, 3))).toEqual([[6, "Sent at (UTC)", "differs"]]);
  });

  it("every row's client reference against its hedge's: an Open's cleared, an Add's and a Close's set to another hedge's deal", async () => {
    expect(await found((rows) => (rows[0].clientReference = null))).toEqual([[2, "Client reference", "differs", "(empty)", "DEAL-A"]]);
    expect(await found((rows) => (rows[2].clientReference = "DEAL-A"))).toEqual([
      [4, "Client reference", "differs", "DEAL-A", "hedge h-0's"],
    ]);
    expect(await found((rows) => (rows[4].clientReference = "DEAL-B"))).toEqual([
      [6, "Client reference", "differs", "DEAL-B", "hedge h-1's"],
    ]);
  });

  it("what the service cannot answer is sealed, not checked: a Reduce's order transaction, a Close's own reference, an Add's amount among several", async () => {
    const untouched = (await rehashed()).cells;
    const edited = await rehashed((rows) => {
      rows[3].orderTxHash = "0xforged";
      rows[4].clientReference = "CLOSE-OTHER";
    });
    expect(edited.lines).toEqual([]);
    expect(edited.cells).toEqual(untouched);
    // A second Add on h-1 (the two come to the same 50,000): their own amounts are sealed; the sum is still checked.
    const twoAdds = await rehashed((rows) => {
      rows[2].notional = 20_000;
      rows.splice(
        3,
        0,
        act(2, "add", { side: "sell", notional: 30_000, hedgeId: "h-1", idempotencyKey: "key-add-2", loggedAt: at(2, 500) }),
      );
    });
    expect(twoAdds.lines).toEqual([]);
    expect(twoAdds.cells.checked).toBe(untouched.checked + 10 - 1);
  });
});

describe("the edges of a hedge's rows taken together", () => {
  const at = (min: number, ms = 0) => iso(START + min * 60_000 + ms);
  /** An Add, Reduce or Close of hedge h-1 (sell), logged `min` minutes after START. */
  const act = (min: number, action: string, over: Partial<LogRecord> = {}): LogRecord => ({
    ...openRow(min),
    side: "sell",
    action,
    tenor: null,
    clientReference: null,
    hedgeId: "h-1",
    orderTxHash: `0x${action}${min}`,
    fillTxHash: null,
    filledAt: null,
    struckRate: null,
    ...over,
  });
  const open1 = (over: Partial<LogRecord> = {}): LogRecord => ({ ...openRow(1), notional: 50_000, struckRate: 1500, ...over });
  const hedge1 = (over: Partial<Hedge> = {}): Hedge => ({ ...hedgeOf(openRow(1)), notional_usd: 50_000, struck_rate: 1500, ...over });
  const rec = (exit: string, size: number, closedAt: string, over: Partial<ClosedHedge> = {}): ClosedHedge => ({
    market: "USDTNGN",
    side: "sell",
    size_usd: size,
    collateral_usdc: 1,
    entry_price: 1500,
    exit_price: 1501,
    opened_at: hedge1().opened_at!,
    closed_at: closedAt,
    exit_type: exit,
    gross_pnl_usd: 0,
    net_pnl_usd: 0,
    carry_usd: 0,
    fees_usd: 0,
    hedge_id: "h-1",
    client_reference: "DEAL-1",
    ...over,
  });
  const run = (rows: LogRecord[], hedge: Hedge, history: ClosedHedge[] = [], more: Partial<ServiceCheckInput> = {}) =>
    checkLogAgainstService({
      rows: rows.map((record, i) => ({ sheet: LOG_SHEET_NAME, rowNumber: i + 2, record })),
      environment: "sandbox",
      accountAddress: ACCOUNT,
      hedges: [hedge],
      history,
      hedgesComplete: true,
      ...more,
    });
  const lines = (...args: Parameters<typeof run>) =>
    run(...args)
      .lines.filter((l) => l.kind !== "cut_off")
      .map((l) => [l.rowNumber, l.field, l.kind]);
  const checked = (...args: Parameters<typeof run>) => run(...args).cells.checked;

  it("without a whole history, an open hedge's notional against the Open and Adds less the Reduces", () => {
    const rows = [open1(), act(2, "add", { notional: 30_000 }), act(3, "reduce", { notional: 20_000 })];
    const hedge = hedge1({ notional_usd: 60_000, struck_rate: 1500 });
    expect(lines(rows, hedge, [], { historyWholeFromMs: null })).toEqual([]);
    expect(lines(rows, hedge1({ notional_usd: 60_001, struck_rate: 1500 }), [], { historyWholeFromMs: null })).toEqual([
      [2, "Notional (USD)", "differs"],
      [3, "Notional (USD)", "differs"],
    ]);
    // A hedge opened before the history's whole part is not covered either: its Reduce is not looked for in the records.
    expect(lines(rows, hedge, [], { historyWholeFromMs: START + 61_000 })).toEqual([]);
    // With the whole history, the hedge shows no reduction: the Open and its Add are more than it took, and the Reduce has
    // no record (flagged at its time).
    expect(lines(rows, hedge, [], { historyWholeFromMs: START })).toEqual([
      [2, "Notional (USD)", "differs"],
      [3, "Notional (USD)", "differs"],
      [4, "Logged at (UTC)", "differs"],
    ]);
  });

  it("a closed hedge's amounts only with its records; a pending row, an Open without an amount or not final: none", () => {
    const closed = hedge1({ status: "closed" });
    expect(lines([open1({ notional: 1 })], closed, [], { historyWholeFromMs: null })).toEqual([]);
    expect(lines([open1({ notional: 1 })], closed, [rec("close", 50_000, at(9))])).toEqual([[2, "Notional (USD)", "differs"]]);
    expect(lines([open1({ notional: 1 })], hedge1({ status: "submitted", struck_rate: null }))).toEqual([[2, "Status", "differs"]]);
    const pending = act(2, "add", { notional: 5, status: "submitted" });
    expect(lines([open1({ notional: 1 }), pending], hedge1())).toEqual([]);
    expect(lines([open1({ notional: null }), act(2, "add", { notional: 5 })], hedge1())).toEqual([]);
    expect(lines([open1({ notional: 1, status: "submitted" })], hedge1())).toEqual([]);
    expect(lines([open1(), act(2, "add", { notional: null })], hedge1())).toEqual([]);
    expect(lines([open1({ notional: 1 }), act(2, "reduce", { notional: null })], hedge1())).toEqual([]);
  });

  it("the Notional finding says what the Open and its Adds come to and what the hedge took", () => {
    const rows = [open1(), act(2, "add", { notional: 30_000 })];
    const [first, second] = run(rows, hedge1({ notional_usd: 70_000 })).lines;
    expect([first.logSays, first.serviceSays, second.rowNumber, second.logSays]).toEqual(["50000", "70000", 3, "30000"]);
    expect(first.message).toBe(
      "Row 2: Notional (USD): the log says 50000, the service 70000. (The Open and its 1 Add(s) come to 80,000.00; the service's hedge h-1 took 70,000.00: its notional 70,000.00 and its reductions.)",
    );
    const reduced = run([open1(), act(2, "reduce", { notional: 10_000 })], hedge1({ notional_usd: 39_000 }), [], {
      historyWholeFromMs: null,
    });
    expect(reduced.lines[0].message).toMatch(/took 39,000\.00: its notional, the Open and Adds less the Reduces\.\)$/);
    const closed = run([open1({ notional: 1 })], hedge1({ status: "closed" }), [
      rec("decrease", 20_000, at(5)),
      rec("close", 30_000, at(9)),
    ]);
    expect(closed.lines.map((l) => [l.field, l.serviceSays])).toContainEqual(["Notional (USD)", "50000"]);
    expect(closed.lines.find((l) => l.field === "Notional (USD)")!.message).toMatch(/took 50,000\.00: its closed-hedge records\.\)$/);
  });

  it("several Adds: only their sum is known, flagged at the Open alone", () => {
    const rows = [open1(), act(2, "add", { notional: 10_000 }), act(3, "add", { notional: 10_000 })];
    expect(lines(rows, hedge1({ notional_usd: 75_000 }))).toEqual([[2, "Notional (USD)", "differs"]]);
    expect(lines(rows, hedge1({ notional_usd: 70_000 }))).toEqual([]);
  });

  it("a Reduce against its record: the amount, the time window on both sides, its Sent at; each record used once", () => {
    const hedge = hedge1({ notional_usd: 30_000 });
    const reduce = (over: Partial<LogRecord> = {}) => act(5, "reduce", { notional: 20_000, sentAt: at(5, 100), ...over });
    expect(lines([open1(), reduce()], hedge, [rec("decrease", 20_000, at(5, 3_000))])).toEqual([]);
    expect(lines([open1(), reduce()], hedge, [rec("decrease", 20_000, at(15))])).toEqual([]); // 10 minutes after: still its
    expect(lines([open1(), reduce()], hedge, [rec("decrease", 20_000, at(15, 1))])).toEqual([[3, "Logged at (UTC)", "differs"]]);
    expect(lines([open1(), reduce()], hedge, [rec("decrease", 20_000, at(3, 100))])).toEqual([]); // 2 minutes before its Sent at: clock skew
    expect(lines([open1(), reduce()], hedge, [rec("decrease", 20_000, at(3, -1))])).toEqual([[3, "Logged at (UTC)", "differs"]]);
    // A cent more reduced: the Reduce's amount, and so what the Open took with it.
    expect(lines([open1(), reduce()], hedge, [rec("decrease", 20_000.01, at(6))])).toEqual([
      [2, "Notional (USD)", "differs"],
      [3, "Notional (USD)", "differs"],
    ]);
    expect(lines([open1(), reduce({ sentAt: at(-5) })], hedge, [rec("decrease", 20_000, at(6))])).toEqual([
      [3, "Sent at (UTC)", "logged_after"],
      [3, "Sent at (UTC)", "differs"],
    ]);
    // Two Reduces, one record: the second finds none.
    const two = [open1(), reduce(), reduce({ loggedAt: at(6), idempotencyKey: "k2" })];
    expect(lines(two, hedge1({ notional_usd: 30_000 }), [rec("decrease", 20_000, at(6, 500))])).toEqual([
      [4, "Logged at (UTC)", "differs"],
    ]);
    const said = run([open1(), reduce()], hedge, [rec("decrease", 20_000, at(20))]).lines[0];
    expect(said.serviceSays).toBe(`decrease of 20,000.00 at ${at(20)}`);
    expect(said.message).toBe(
      `Row 3: Logged at (UTC): the service shows no reduction of hedge h-1 from 2 minutes before this row to 10 minutes after it (its records: decrease of 20,000.00 at ${at(20)}): its time or its amount was changed, or no such reduction was made.`,
    );
    expect(run([open1(), reduce()], hedge).lines.find((l) => l.rowNumber === 3)!.serviceSays).toBe("none");
  });

  it("a Reduce that took the whole hedge: against the record that ended it, at least 99 % of it", () => {
    const closed = hedge1({ status: "closed" });
    const whole = (notional: number) => act(5, "reduce", { notional, status: "closed" });
    const ended = [rec("decrease", 50_000, at(5, 500))];
    expect(lines([open1(), whole(50_000)], closed, ended)).toEqual([]);
    expect(lines([open1(), whole(60_000)], closed, ended)).toEqual([]);
    expect(lines([open1(), whole(49_500)], closed, ended)).toEqual([]);
    expect(lines([open1(), whole(49_499)], closed, ended)).toEqual([[3, "Notional (USD)", "differs"]]);
    expect(lines([open1(), whole(49_499.996)], closed, ended)).toEqual([]); // within half a cent of 99 %
    // Exactly 99 % less half a cent (12,222.04 of 12,345.50: a tie in binary too) is still within.
    expect(lines([open1({ notional: 12_345.5 }), whole(12_222.04)], closed, [rec("decrease", 12_345.5, at(5, 500))])).toEqual([]);
    // Ended by a close, not by this reduction: no record for it.
    expect(lines([open1(), whole(50_000)], closed, [rec("close", 50_000, at(5, 500))])).toEqual([[3, "Logged at (UTC)", "differs"]]);
    const message = run([open1(), whole(40_000)], closed, ended).lines[0].message;
    expect(message).toBe(
      `Row 3: Notional (USD): the log says 40000, the service 50000. (The service's decrease of hedge h-1 at ${at(5, 500)}.)`,
    );
  });

  it("a Close against the record that ended its hedge: a close or decrease within the window; maturity is not its", () => {
    const closed = hedge1({ status: "closed" });
    const close = (over: Partial<LogRecord> = {}) => act(5, "close", { notional: null, status: "closed", sentAt: at(5, 100), ...over });
    expect(lines([open1(), close()], closed, [rec("close", 50_000, at(5, 900))])).toEqual([]);
    expect(lines([open1(), close()], closed, [rec("close", 50_000, at(16))])).toEqual([[3, "Logged at (UTC)", "differs"]]);
    expect(lines([open1(), close()], closed, [rec("maturity", 50_000, at(16_000))])).toEqual([]);
    expect(lines([open1(), close({ sentAt: at(20) })], closed, [rec("close", 50_000, at(6))])).toEqual([[3, "Sent at (UTC)", "differs"]]);
    // Still open at the service: no closing record to compare with; a Close not final is not compared.
    expect(lines([open1(), close()], hedge1())).toEqual([]);
    expect(lines([open1(), close({ status: "submitted" })], closed, [rec("close", 50_000, at(16))])).toEqual([]);
    const said = run([open1(), close()], closed, [rec("close", 50_000, at(16))]).lines[0];
    expect([said.logSays, said.serviceSays]).toEqual([at(5), `close at ${at(16)}`]);
    expect(said.message).toBe(
      `Row 3: Logged at (UTC): the service closed hedge h-1 at ${at(16)}, not within 10 minutes after this Close was logged (nor 2 minutes before): its time was changed.`,
    );
    const sent = run([open1(), close({ sentAt: at(20) })], closed, [rec("close", 50_000, at(6))]).lines[0];
    expect([sent.logSays, sent.serviceSays]).toEqual([at(20), `close at ${at(6)}`]);
    expect(sent.message).toBe(
      `Row 3: Sent at (UTC): the service's close it asked for is dated ${at(6)}, not within 10 minutes after ${at(20)}: its time was changed.`,
    );
  });

  it("the Open's rate with Adds: the blend recomputed with each add's share of the notional then (a reduce keeps the rate)", () => {
    // 50,000 at 1500, reduced by 30,000, then 20,000 added at 1560: the blend is 1530 (half each). Weighing the add
    // against the 50,000 opened (the reduction forgotten) would leave the add 1605, 7 % away.
    const rows = [open1(), act(2, "reduce", { notional: 30_000 }), act(3, "add", { notional: 20_000 })];
    expect(lines(rows, hedge1({ notional_usd: 40_000, struck_rate: 1530 }), [], { historyWholeFromMs: null })).toEqual([]);
    // The bound: the adds' rate at most 5 % of the blend from the open's (1538.4 leaves 1576.8) is the market's; a little more is not.
    expect(lines([open1(), act(2, "add", { notional: 50_000 })], hedge1({ notional_usd: 100_000, struck_rate: 1538.4 }))).toEqual([]);
    expect(lines([open1(), act(2, "add", { notional: 50_000 })], hedge1({ notional_usd: 100_000, struck_rate: 1538.5 }))).toEqual([
      [2, "Struck rate", "differs"],
    ]);
    expect(lines([open1(), act(2, "add", { notional: 50_000 })], hedge1({ notional_usd: 100_000, struck_rate: 1463.5 }))).toEqual([]);
    expect(lines([open1(), act(2, "add", { notional: 50_000 })], hedge1({ notional_usd: 100_000, struck_rate: 1463.3 }))).toEqual([
      [2, "Struck rate", "differs"],
    ]);
    const said = run([open1(), act(2, "add", { notional: 50_000 })], hedge1({ notional_usd: 100_000, struck_rate: 1600 })).lines[0];
    expect([said.logSays, said.serviceSays]).toEqual(["1500", "blended 1600"]);
    expect(said.message).toBe(
      "Row 2: Struck rate: the log says 1500, the service blended 1600. (The service shows the blend of the Open and its Adds; recomputed from the log's amounts, this rate, which leaves its 1 Add(s) a rate of 1700.0000: more than 5% from the Open's.)",
    );
    const empty = run([open1({ struckRate: null }), act(2, "add", { notional: 50_000 })], hedge1({ notional_usd: 100_000 })).lines[0];
    expect(empty.message).toBe(
      "Row 2: Struck rate: the log says (empty), the service blended 1500. (The service shows the blend of the Open and its Adds; recomputed from the log's amounts, this rate: more than 5% from the Open's.)",
    );
    // Each add weighed by the notional then: after a reduction (30,000 of 50,000), an add of 10,000 at 1600 is a third of
    // the blend, 6.7 % from the Open's (weighing the reduction as an add would leave it 1575 and pass); of two adds of
    // 50,000 at 1600, the second is a third of the blend (counting the first as taken away would leave it 1566.67).
    const reducedThenAdded = [open1(), act(2, "reduce", { notional: 30_000 }), act(3, "add", { notional: 10_000 })];
    expect(lines(reducedThenAdded, hedge1({ notional_usd: 30_000, struck_rate: 1533.33 }), [], { historyWholeFromMs: null })).toEqual([
      [2, "Struck rate", "differs"],
    ]);
    const twoAdds = [open1(), act(2, "add", { notional: 50_000 }), act(3, "add", { notional: 50_000 })];
    expect(lines(twoAdds, hedge1({ notional_usd: 150_000, struck_rate: 1566.67 }))).toEqual([[2, "Struck rate", "differs"]]);
    // Not compared: amounts not known, a hedge not held, a service without a rate.
    expect(lines([open1({ struckRate: 1 }), act(2, "add", { notional: null })], hedge1())).toEqual([]);
    expect(lines([open1({ struckRate: 1 })], hedge1({ status: "failed" }))).toEqual([[2, "Status", "differs"]]);
    expect(lines([open1({ struckRate: 1 })], hedge1({ struck_rate: undefined }))).toEqual([]);
  });

  it("an Add's, Reduce's or Close's client reference: its own unless it names another hedge's deal (from the hedges or the records)", () => {
    const rows = (ref: string) => [open1(), act(2, "add", { notional: 0.001, clientReference: ref })];
    const input = { hedges: [hedge1(), { ...hedgeOf(openRow(7)), id: "h-7", client_reference: "DEAL-7" }] };
    expect(lines(rows("DEAL-1"), hedge1(), [], input)).toEqual([]);
    expect(lines(rows("MY-ADD"), hedge1(), [], input)).toEqual([]);
    expect(lines(rows("DEAL-7"), hedge1(), [], input)).toEqual([[3, "Client reference", "differs"]]);
    expect(run(rows("DEAL-7"), hedge1(), [], input).lines[0].message).toBe(
      "Row 3: Client reference: the log says DEAL-7, the service hedge h-7's. It names the deal of hedge h-7, not of the hedge this row acts on (h-1).",
    );
    // Known only from a record of a hedge no longer listed; a record without a hedge id names none.
    expect(lines(rows("OLD-9"), hedge1(), [rec("close", 1, at(-60), { hedge_id: "h-9", client_reference: "OLD-9" })])).toEqual([
      [3, "Client reference", "differs"],
    ]);
    const unnamed = rec("close", 1, at(-60), { hedge_id: null, client_reference: "OLD-9", side: "buy" });
    expect(lines(rows("OLD-9"), hedge1(), [unnamed])).toEqual([]);
  });

  it("an Open's Sent at at most 27 minutes, its Logged at at most a day, before its hedge opened", () => {
    const opened = Date.parse(hedge1().opened_at!);
    const before = (ms: number) => iso(opened - ms);
    const row = (loggedAt: string, sentAt: string) => [open1({ loggedAt, sentAt })];
    expect(lines(row(before(27 * 60_000), before(27 * 60_000)), hedge1())).toEqual([]);
    expect(lines(row(before(27 * 60_000), before(27 * 60_000 + 1_000)), hedge1())).toEqual([[2, "Sent at (UTC)", "logged_long_before"]]);
    expect(lines(row(before(86_400_000), before(60_000)), hedge1())).toEqual([]);
    expect(lines(row(before(86_400_000 + 1_000), before(60_000)), hedge1())).toEqual([[2, "Logged at (UTC)", "logged_long_before"]]);
    const [logged, sent] = run(row(before(3 * 86_400_000), before(3 * 86_400_000)), hedge1()).lines;
    expect(logged.message).toBe(
      `Row 2: Logged at (UTC) ${before(3 * 86_400_000)} is long before the service opened hedge h-1 (${hedge1().opened_at}): a row is sent when it is logged, or when the pane opens again after a stop (a day at most), so its time was changed.`,
    );
    expect(sent.message).toBe(
      `Row 2: Sent at (UTC) ${before(3 * 86_400_000)} is long before the service opened hedge h-1 (${hedge1().opened_at}): a request is sent again with its key only within 27 minutes of its first, so its time was changed.`,
    );
    expect([sent.logSays, sent.serviceSays]).toEqual([before(3 * 86_400_000), `opened ${hedge1().opened_at}`]);
  });

  it("the history covers a hedge opened at the very instant it is whole from; records are taken in time order whatever order they come in", () => {
    const rows = [open1(), act(2, "add", { notional: 30_000 }), act(3, "reduce", { notional: 20_000 })];
    const opened = Date.parse(hedge1().opened_at!);
    expect(lines(rows, hedge1({ notional_usd: 60_000 }), [], { historyWholeFromMs: opened })).toEqual([
      [2, "Notional (USD)", "differs"],
      [3, "Notional (USD)", "differs"],
      [4, "Logged at (UTC)", "differs"],
    ]);
    // Reduced, then closed; the service lists the records newest first.
    const closed = hedge1({ status: "closed" });
    const story = [open1(), act(3, "reduce", { notional: 20_000 }), act(5, "close", { notional: null, status: "closed" })];
    expect(lines(story, closed, [rec("close", 30_000, at(5, 900)), rec("decrease", 20_000, at(3, 500))])).toEqual([]);
  });

  it("Reduces are matched to records in the order they were logged, wherever they stand in the sheet", () => {
    const rows = [open1(), act(6, "reduce", { notional: 5_000 }), act(5, "reduce", { notional: 20_000 })];
    const records = [rec("decrease", 20_000, at(5, 500)), rec("decrease", 5_000, at(6, 500))];
    expect(lines(rows, hedge1({ notional_usd: 25_000 }), records)).toEqual([]);
  });

  it("findings stand in sheet order, a hedge's own among its rows'; another account's row naming the hedge counts no cell checked", () => {
    const rows = [open1({ notional: 1 }), act(2, "add", { notional: 20_000, market: "EURUSD" })];
    expect(lines(rows, hedge1({ notional_usd: 70_000 }))).toEqual([
      [2, "Notional (USD)", "differs"],
      [3, "Market", "differs"],
      [3, "Notional (USD)", "differs"],
    ]);
    expect(checked([open1(), open1({ account: "0xbb", idempotencyKey: "theirs" })], hedge1())).toBe(15);
  });

  it("a partial Reduce is never matched to the record that ended the hedge, nor to a close record", () => {
    // Ended whole by a decrease: the Reduce of 20,000 logged then has no partial record of its own.
    const rows = [open1(), act(5, "reduce", { notional: 20_000 })];
    expect(lines(rows, hedge1({ status: "closed" }), [rec("decrease", 50_000, at(5, 500))])).toEqual([[3, "Logged at (UTC)", "differs"]]);
    // A close record on a hedge the service still lists open (read between two answers) is no reduction either.
    expect(lines(rows, hedge1({ notional_usd: 30_000 }), [rec("close", 20_000, at(5, 500))])).toEqual([[3, "Logged at (UTC)", "differs"]]);
  });

  it("amounts not known (an Open without its amount): no Reduce or Close is judged against the records either", () => {
    const closed = hedge1({ status: "closed" });
    const rows = [open1({ notional: null }), act(3, "reduce", { notional: 20_000 }), act(5, "close", { notional: null, status: "closed" })];
    expect(lines(rows, closed, [rec("close", 30_000, at(50))])).toEqual([]);
  });

  it("a second Open naming the same hedge (a copy) and a failed Add are compared cell by cell, their amounts not", () => {
    const copy = open1({ idempotencyKey: "copy" });
    expect(checked([open1(), copy], hedge1())).toBe(15 + 14);
    const rows = [open1(), act(2, "add", { notional: 0 }), act(3, "add", { notional: 7, status: "failed" })];
    expect(checked(rows, hedge1())).toBe(15 + 11 + 10);
  });

  it("a row is sealed in the chain form it was written in: a column a later form covers is the workbook's only on older rows", () => {
    const [old] = chained([open1({ hedgeId: "h-unknown" })]);
    // The log's way loaded afresh over LOG_COLUMNS with a body column of chain form 2 appended (as the recipe writes a
    // new column): the shared list is never changed, so no other test can see the column.
    const m = withColumnAdded(COUNTERPARTY);
    expect(m.chain.CHAIN_FORMS[1]).toEqual({ version: 2, body: [...CHAIN_FORMS[0].body, "counterparty"], final: CHAIN_FORMS[0].final });
    const row = { ...open1({ hedgeId: "h-unknown", idempotencyKey: "k-new" }), counterparty: "CP" } as LogRecord;
    const [newer] = chained([row], CHAIN_START, m.chain);
    const result = m.check.checkLogAgainstService({
      rows: [old, newer].map((record, i) => ({ sheet: LOG_SHEET_NAME, rowNumber: i + 2, record })),
      environment: "sandbox",
      accountAddress: ACCOUNT,
      hedges: [hedge1()],
      history: [],
      hedgesComplete: true,
    });
    expect(result.cells).toEqual({ checked: 0, sealed: 28 + 29, workbookOnly: 1 });
    // Row by row: the older row's new cell is the workbook's only, the newer row's is sealed.
    const cellsOf = (record: LogRecord) =>
      m.check.checkLogAgainstService({
        rows: [{ sheet: LOG_SHEET_NAME, rowNumber: 2, record }],
        environment: "sandbox",
        accountAddress: ACCOUNT,
        hedges: [hedge1()],
        history: [],
        hedgesComplete: true,
      }).cells;
    expect([cellsOf(old), cellsOf(newer)]).toEqual([
      { checked: 0, sealed: 28, workbookOnly: 1 },
      { checked: 0, sealed: 29, workbookOnly: 0 },
    ]);
    // The modules every other test uses still know one form and no such column.
    expect(CHAIN_FORMS).toHaveLength(1);
    expect(LOG_COLUMNS.some((c) => (c.field as string) === "counterparty")).toBe(false);
  });

  it("a Reduce logged as closing a hedge the service still holds open: no record ended it, and the records it has are listed", () => {
    const history = [rec("decrease", 10_000, at(30)), rec("decrease", 5_000, at(40))];
    const rows = [open1(), act(2, "reduce", { notional: 20_000, status: "closed" })];
    const found = run(rows, hedge1({ notional_usd: 35_000 }), history).lines.filter((l) => l.field === "Logged at (UTC)");
    expect(found.map((l) => [l.rowNumber, l.serviceSays])).toEqual([
      [3, `decrease of 10,000.00 at ${at(30)}, decrease of 5,000.00 at ${at(40)}`],
    ]);
  });

  it("the cells counted in each class: by action, by what the service shows, by what the chain holds", () => {
    const base = checked([open1()], hedge1());
    expect(base).toBe(15);
    // A row logged filled while the service has not filled its hedge: its fill is not compared.
    expect(checked([open1()], hedge1({ status: "submitted" }))).toBe(10);
    expect(checked([open1()], hedge1({ client_reference: null }))).toBe(14);
    expect(checked([open1({ status: "submitted" })], hedge1())).toBe(9); // 7 + tenor + reference: no outcome, no amount
    expect(checked([open1({ status: "failed" })], hedge1({ status: "failed" }))).toBe(10); // + status
    expect(checked([open1()], hedge1({ status: "closed" }), [], { historyWholeFromMs: null })).toBe(14); // no amount
    expect(checked([open1(), act(2, "add", { notional: null })], hedge1())).toBe(13 + 10); // no amount, no blend; the Add's 10
    expect(checked([open1(), act(2, "add", { notional: 0 })], hedge1())).toBe(15 + 11);
    const twoAdds = [open1(), act(2, "add", { notional: 0 }), act(3, "add", { notional: 0 })];
    expect(checked(twoAdds, hedge1())).toBe(15 + 10 + 10);
    expect(checked([open1(), act(2, "reduce", { notional: 0 })], hedge1(), [], { historyWholeFromMs: null })).toBe(15 + 10);
    expect(checked([open1(), act(2, "reduce", { notional: 0, status: "failed" })], hedge1())).toBe(15 + 10);
    expect(checked([open1(), act(2, "close", { notional: null })], hedge1())).toBe(15 + 10);
    // Not this account's, another environment, no key, a hedge the service did not show: nothing checked.
    expect(checked([open1({ account: "0xbb" })], hedge1())).toBe(0);
    expect(checked([open1({ environment: "production" })], hedge1())).toBe(0);
    expect(checked([open1({ idempotencyKey: "" })], hedge1())).toBe(0);
    expect(checked([open1({ hedgeId: "h-unknown" })], hedge1())).toBe(0);
    expect(checked([open1({ hedgeId: null })], hedge1())).toBe(0);
    // Sealed: a row's body and links once linked, its outcome and seal once sealed; the rest is the workbook's only.
    const [linked] = chained([open1({ hedgeId: "h-unknown" })]);
    expect(run([linked], hedge1()).cells).toEqual({ checked: 0, sealed: 28, workbookOnly: 0 });
    expect(run([{ ...linked, finalHash: null }], hedge1()).cells).toEqual({ checked: 0, sealed: 15, workbookOnly: 13 });
    expect(run([{ ...linked, rowHash: null, finalHash: "x" }], hedge1()).cells).toEqual({ checked: 0, sealed: 0, workbookOnly: 28 });
    // An edited row (its link no longer holds) is still judged in the newest form.
    expect(run([{ ...linked, market: "EDITED" }], hedge1()).cells).toEqual({ checked: 0, sealed: 28, workbookOnly: 0 });
  });
});

describe("the recon sheet's table of the log against the service", () => {
  it("names each finding's kind in words the user reads, at its sheet and row", async () => {
    const rows = chained([
      { ...openRow(0), sentAt: iso(START + 10 * 60_000) }, // sent 10 minutes after its hedge opened
      { ...openRow(1), loggedAt: iso(START - 2 * 86_400_000), sentAt: null }, // logged two days before it opened
      { ...openRow(2), struckRate: 1600 },
    ]);
    const hedges = [...[0, 1, 2].map((i) => hedgeOf(openRow(i))), hedgeOf(openRow(9))]; // h-9: after the newest row, no row sent it
    const writer = new MemorySheetWriter();
    await monthEnd(rows, serviceOf(hedges).client, writer);
    const grid = writer.sheets.get("Hedge Recon 2026-11")!.values;
    const header = grid.findIndex((r) => r[0] === "Hedge Log against the service");
    const end = grid.findIndex((r, i) => i > header && r[0] === "");
    expect(grid.slice(header + 1, end < 0 ? undefined : end).map((r) => r.slice(0, 4))).toEqual([
      ["Logged after the service acted", LOG_SHEET_NAME, 2, "Sent at (UTC)"],
      ["Logged long before the service acted", LOG_SHEET_NAME, 3, "Logged at (UTC)"],
      ["Differs from the service", LOG_SHEET_NAME, 4, "Struck rate"],
      ["Rows cut off the end", LOG_SHEET_NAME, 4, ""],
    ]);
  });
});

// Last in the file: the slowest cases (mutation runs stop at a mutant's first failing test, in file order).
describe("an untouched log of 5,000 rows against the service", () => {
  it("gives no finding, compares every row, and reads the service in 11 pages of hedges: no request per row", async () => {
    const { client, calls } = serviceOf(HEDGES);
    const recon = await monthEnd(ROWS, client);
    expect(recon.chain!.lines).toEqual([]);
    // Each Open: 15 cells checked (environment, account, hedge id, market, side, logged at, sent at, tenor, client
    // reference, status, order and fill tx hash, filled at, struck rate, notional); the other 13 are sealed (action, key,
    // the approval's three, error code, message, notional before, decision and its time, the three hashes).
    expect(recon.service).toEqual({
      compared: 5_000,
      complete: true,
      lines: [],
      cells: { checked: 5_000 * 15, sealed: 5_000 * 13, workbookOnly: 0 },
    });
    expect(15 + 13).toBe(LOG_HEADERS.length);
    expect(recon.differences).toEqual([]);
    // 10 full pages and the short one that ends the list; the two status lists; account, positions, history.
    expect(calls.filter((c) => c === "list all")).toHaveLength(11);
    expect(calls.filter((c) => c.startsWith("get "))).toEqual([]);
    expect(calls).toHaveLength(16);
  }, 60_000);

  it("flags one edited struck rate (seal recomputed) among them, at its sheet row", async () => {
    const rows = ROWS.map((r) => ({ ...r }));
    rows[4321].struckRate = 1501.5;
    rows[4321].finalHash = finalHashOf(rows[4321].rowHash!, rows[4321]);
    const recon = await monthEnd(rows, serviceOf(HEDGES).client);
    expect(recon.chain!.lines).toEqual([]);
    expect(recon.service!.lines.map((l) => [l.kind, l.sheet, l.rowNumber, l.field, l.logSays, l.serviceSays])).toEqual([
      ["differs", LOG_SHEET_NAME, 4323, "Struck rate", "1501.5", String(HEDGES[4321].struck_rate)],
    ]);
  }, 60_000);
});
