// The Hedge Log against the service without a network: an untouched 5,000-row log gives no finding in a bounded number of list pages; each cell compared, read tolerantly; a row of another account; the cut end; and a new log column (a new chain form) that leaves every old row verified.
import type { ClosedHedge, Hedge, ListQuery } from "../../src/api/schemas";
import { MemoryWorkbook, columnLetters } from "../../src/excel/memory-workbook";
import { MemorySheetWriter } from "../../src/excel/recon-sheet";
import { verifyLogChain } from "../../src/monthend/log-chain-check";
import { checkLogAgainstService, type ServiceCheckInput } from "../../src/monthend/log-vs-service";
import type { MonthEndClient } from "../../src/monthend/month-data";
import { reconcileMonth } from "../../src/monthend/run-month-end";
import { CHAIN_FORMS, CHAIN_START, finalHashOf, rowHashOf, type ChainForm } from "../../src/trading/log/log-chain";
import { LOG_HEADERS, LOG_SHEET_NAME, LOG_TABLE_NAME, type LogRecord } from "../../src/trading/log/hedge-log";
import type { PlacedLogRow } from "../../src/trading/workbook";
import { logCells } from "../support/builders";

const ACCOUNT = "0x00000000000000000000000000000000000000aa";
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
function chained(rows: readonly LogRecord[], prev = CHAIN_START): LogRecord[] {
  return rows.map((r) => {
    const row = { ...r, prevHash: prev };
    row.rowHash = rowHashOf(prev, row);
    row.finalHash = finalHashOf(row.rowHash, row);
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

async function monthEnd(rows: readonly LogRecord[], client: MonthEndClient) {
  const wb = workbookWith(rows);
  const { reconciliation } = await reconcileMonth(
    {
      client,
      readLog: () => wb.readLog(),
      readLogRows: () => wb.readLogRows(),
      chainHead: async () => rows[rows.length - 1].rowHash ?? null,
      writer: new MemorySheetWriter(),
      now: () => Date.UTC(2026, 11, 1, 9),
    },
    "2026-11",
  );
  return reconciliation;
}

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
  const forms = CHAIN_FORMS as ChainForm[];
  afterEach(() => {
    while (forms.length > 1) forms.pop();
  });

  it("5,000 rows written before the column: month end's chain check still verifies every one, and the rows written in the new form too", () => {
    // The recipe: the field and its column, then a new form covering it. Old rows get the column empty (or typed in later).
    forms.push({ version: 2, body: [...CHAIN_FORMS[0].body, "counterparty"], final: CHAIN_FORMS[0].final });
    const old = ROWS.map((r, i) => ({ ...r, ...(i % 100 === 0 ? { counterparty: "typed later" } : {}) }) as LogRecord);
    const added = chained(
      Array.from({ length: 20 }, (_, i) => ({ ...openRow(5_000 + i), counterparty: `CP-${i}` }) as LogRecord),
      ROWS[ROWS.length - 1].rowHash!,
    );
    const placed = [...old, ...added].map((record, i) => ({ sheet: LOG_SHEET_NAME, rowNumber: i + 2, record }));
    const report = verifyLogChain(placed, added[added.length - 1].rowHash!);
    expect(report.lines).toEqual([]);
    expect(report.chained).toBe(5_020);
    // The new column is covered on the rows written in its form.
    (placed[5_010].record as LogRecord & { counterparty: string }).counterparty = "edited";
    expect(verifyLogChain(placed, added[added.length - 1].rowHash!).lines.map((l) => [l.kind, l.rowNumber])).toEqual([["edited", 5_012]]);
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
