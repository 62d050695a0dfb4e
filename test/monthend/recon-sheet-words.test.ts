// The recon sheet as its reader sees it (reconContent over a month with every section filled): each section's title, the summary's labels and figures, each table's headers with its rows under them in their formats, the totals, the sentences of empty tables, the chain's and the check's lines, and the column widths.
import { reconcile } from "../../src/monthend/reconcile";
import {
  chainItems,
  reconContent,
  CHAIN_COLUMNS,
  CONTROL_COLUMNS,
  DIFFERENCE_COLUMNS,
  OPEN_COLUMNS,
  PROGRAM_COLUMNS,
  REALIZED_COLUMNS,
  SERVICE_COLUMNS,
  SIDE_TIME_COLUMNS,
} from "../../src/monthend/recon-layout";
import type { Reconciliation } from "../../src/monthend/recon-model";
import { toExcelDate, type CellValue } from "../../src/trading/cells";
import { FORMATS, type SheetContent } from "../../src/trading/sheet-content";
import { closed, hedge, logRow, monthData, position } from "../support/builders";

const d = (iso: string) => toExcelDate(iso);
const { text: T, usd: U, rate: R, date: D, count: C, general: G } = FORMATS;

/** A row without its trailing empty cells (values) or trailing General cells (formats). */
const trimmed = <X>(row: readonly X[], empty: X): X[] => {
  const out = [...row];
  while (out.length > 0 && out[out.length - 1] === empty) out.pop();
  return out;
};
const rowsOf = (c: SheetContent) => c.values.map((r) => trimmed<CellValue>(r, ""));
const formatsOf = (c: SheetContent) => c.formats.map((r) => trimmed(r, G as string));

/** November with two hedges ended (one rolled, one not), an open position, three differences, a control row, the chain and the check against the service. */
function fullMonth(): Reconciliation {
  const base = reconcile(
    monthData({
      history: [
        closed(),
        closed({
          hedge_id: "s1",
          client_reference: "DEAL-S",
          side: "sell",
          size_usd: 40_000,
          collateral_usdc: 4_040,
          entry_price: 1490,
          exit_price: 1480,
          gross_pnl_usd: 270.27,
          carry_usd: 3.5,
          fees_usd: 40,
          net_pnl_usd: 233.77,
          opened_at: "2026-11-13T00:00:00.000Z",
          closed_at: "2026-11-20T00:00:00.000Z",
          exit_type: "maturity",
        }),
      ],
      hedges: [
        hedge(),
        hedge({
          id: "s1",
          client_reference: "DEAL-S",
          side: "sell",
          notional_usd: 40_000,
          opened_at: "2026-11-13T00:00:00.000Z",
          filled_at: "2026-11-13T00:00:01.000Z",
        }),
        hedge({
          id: "o1",
          client_reference: "DEAL-O",
          side: "sell",
          status: "filled",
          notional_usd: 50_000,
          opened_at: "2026-11-20T06:00:00.000Z",
          filled_at: "2026-11-20T06:00:00.000Z",
        }),
      ],
      positions: [position()],
      log: [
        logRow({ hedgeId: "o1", clientReference: "DEAL-O", side: "sell", notional: 50_000, loggedAt: "2026-11-20T06:00:00.000Z" }),
        logRow(),
        logRow({ action: "close", notional: null, status: "closed", loggedAt: "2026-11-05T09:00:00Z" }),
        logRow({ hedgeId: "ghost", clientReference: "GHOST", loggedAt: "2026-11-07T10:00:00.000Z", idempotencyKey: "key-ghost" }),
        // A Logged at typed over by hand: a pending row is in scope whatever its time, and its cell shows what was typed.
        logRow({ hedgeId: null, clientReference: "LATER", status: "submitting", loggedAt: "last Tuesday", idempotencyKey: "key-later" }),
      ],
    }),
  );
  const [buyEnd, sellEnd] = base.sideTime;
  return {
    ...base,
    sideTime: [
      { ...buyEnd, cost: { sizeUsd: 100_000, feesUsd: 100, carryUsd: 20, exitImpactUsd: 350.5, costUsd: 470.5 } },
      { ...sellEnd, cost: { sizeUsd: 40_000, feesUsd: 40, carryUsd: -3.5, exitImpactUsd: null, costUsd: null } },
    ],
    programs: [
      {
        market: "USDTNGN",
        side: "buy",
        hedges: 1,
        fromMs: Date.parse("2026-11-02T09:00:02.000Z"),
        toMs: Date.parse("2026-11-05T09:00:00.000Z"),
        days: 3,
        notionalUsd: 100_000,
        tenor: 7,
        mode: "early",
        realizedUsd: 470.5,
        quotedUsd: 400.25,
        quotedHedges: 1,
      },
      {
        market: "USDTNGN",
        side: "sell",
        hedges: 1,
        fromMs: Date.parse("2026-11-13T00:00:01.000Z"),
        toMs: Date.parse("2026-11-20T00:00:00.000Z"),
        days: 7,
        notionalUsd: 40_000,
        tenor: 3,
        mode: "at maturity",
        realizedUsd: null,
        quotedUsd: 30,
        quotedHedges: 3,
      },
    ],
    controls: [
      {
        loggedAt: "2026-11-10T08:00:00.000Z",
        environment: "sandbox",
        account: "0xACCOUNT",
        control: "LIVE trades need approval",
        from: "on",
        to: "off",
        by: "fp:1a2b",
        hash: null,
        flag: "LIVE approval unticked: LIVE trades could be sent without a second key for the rest of the period.",
      },
    ],
    chain: {
      rows: 5,
      chained: 5,
      headKnown: false,
      lines: [{ kind: "edited", sheet: "Hedge Log", rowNumber: 4, message: "Row 4 was edited after it was written." }],
    },
    service: {
      compared: 3,
      complete: true,
      lines: [
        {
          kind: "differs",
          field: "Struck rate",
          sheet: "Hedge Log",
          rowNumber: 3,
          logSays: "1500",
          serviceSays: "1501",
          message: "Row 3: Struck rate: the log says 1500, the service 1501.",
        },
        { kind: "cut_off", field: null, sheet: null, rowNumber: null, logSays: "", serviceSays: "", message: "Rows cut off." },
      ],
      cells: { checked: 40, sealed: 25, workbookOnly: 7 },
    },
    counts: { ...base.counts, controls: 1, controlFlags: 1, chainFindings: 1, serviceFindings: 2 },
  };
}

describe("the recon sheet, as its reader sees it", () => {
  const content = reconContent(fullMonth());
  const rows = rowsOf(content);
  const formats = formatsOf(content);
  /** The rows of the section whose title starts so, its title row left out. */
  const section = (title: string) => {
    const s = content.sections.find((x) => x.title.startsWith(title))!;
    return { rows: rows.slice(s.firstRow + 1, s.lastRow + 1), formats: formats.slice(s.firstRow + 1, s.lastRow + 1), first: s.firstRow };
  };
  const PROGRAM_NOTE_START = "Program cost: per market side, the hedges that ended in the period";

  it("has its sections in order, a blank row between them, titles, table headers and totals in bold", () => {
    expect(content.name).toBe("Hedge Recon 2026-11");
    expect(content.sections).toEqual([
      { title: "Hedge reconciliation 2026-11", firstRow: 0, lastRow: 20 },
      { title: "Realized: hedges closed in the period", firstRow: 22, lastRow: 28 },
      { title: "Open positions at 2026-12-01 10:00 UTC", firstRow: 30, lastRow: 33 },
      { title: "Rolls and unhedged time: each hedge that ended in the period", firstRow: 35, lastRow: 43 },
      { title: "Controls changed in the period", firstRow: 45, lastRow: 47 },
      { title: "Differences with the Hedge Log", firstRow: 49, lastRow: 60 },
    ]);
    for (const s of content.sections.slice(1)) expect(rows[s.firstRow - 1]).toEqual([]);
    expect(content.boldRows).toEqual([0, 22, 23, 26, 27, 28, 30, 31, 33, 35, 36, 40, 45, 46, 49, 50, 55, 58]);
    expect(content.values.every((r) => r.length === 16) && content.formats.every((r) => r.length === 16)).toBe(true);
  });

  it("sums the month up first: where, when, every count, each class of the log's cells, and the notes", () => {
    const summary = section("Hedge reconciliation");
    expect(rows[0]).toEqual(["Hedge reconciliation 2026-11"]);
    expect(summary.rows).toEqual([
      ["Environment", "sandbox"],
      ["Account address", "0xACCOUNT"],
      ["Period start (UTC)", d("2026-11-01T00:00:00.000Z")],
      ["Period end (UTC, exclusive)", d("2026-12-01T00:00:00.000Z")],
      ["Generated at (UTC)", d("2026-12-01T10:00:00.000Z")],
      ["Hedges closed in the period", 2],
      ["Open positions", 1],
      ["Service hedges in the period", 3],
      ["Log rows matched", 5],
      ["Differences", 3],
      ["Actions pending", 1],
      ["Rolls", 1],
      ["Hedge ends not reopened", 1],
      ["Control rows", 1],
      ["Hedge Log chain findings", 1],
      ["Hedge Log against the service findings", 2],
      ["Log cells checked against the service", 40],
      ["Log cells sealed (held only by the hash chain)", 25],
      ["Log cells in the workbook only", 7],
      [
        "Note",
        "Open positions, hedge states and notionals are as of the time generated: the service does not give them as of a past date.",
      ],
    ]);
    expect(summary.formats).toEqual([[T, T], [T, T], [T, D], [T, D], [T, D], ...Array.from({ length: 14 }, () => [T, C]), [T, T]]);
  });

  it("lists the hedges closed, newest first, each cell under its header, then the totals per side and for all under their amounts", () => {
    const realized = section("Realized");
    expect(realized.rows).toEqual([
      [
        "Closed at (UTC)",
        "Opened at (UTC)",
        "Hedge id",
        "Client reference",
        "Market",
        "Side",
        "Size (USD)",
        "Collateral (USDC)",
        "Entry price",
        "Exit price",
        "Gross P&L (USD)",
        "Carry (USD)",
        "Fees (USD)",
        "Net P&L (USD)",
        "Exit type",
      ],
      [
        d("2026-11-20T00:00:00.000Z"),
        d("2026-11-13T00:00:00.000Z"),
        "s1",
        "DEAL-S",
        "USDTNGN",
        "sell",
        40_000,
        4_040,
        1490,
        1480,
        270.27,
        3.5,
        40,
        233.77,
        "maturity",
      ],
      [
        d("2026-11-05T09:00:00.000Z"),
        d("2026-11-02T09:00:00.000Z"),
        "h1",
        "DEAL-1",
        "USDTNGN",
        "buy",
        100_000,
        10_100,
        1500,
        1510,
        666.67,
        -20,
        100,
        546.67,
        "close",
      ],
      ["Total buy (1)", "", "", "", "", "", 100_000, "", "", "", 666.67, -20, 100, 546.67],
      ["Total sell (1)", "", "", "", "", "", 40_000, "", "", "", 270.27, 3.5, 40, 233.77],
      ["Total (2)", "", "", "", "", "", 140_000, "", "", "", 936.94, -16.5, 140, 780.44],
    ]);
    expect(realized.formats[0]).toEqual(Array.from({ length: 15 }, () => T));
    expect(realized.formats[1]).toEqual([D, D, T, T, T, T, U, U, R, R, U, U, U, U, T]);
    expect(realized.formats[3]).toEqual([T, G, G, G, G, G, U, G, G, G, U, U, U, U]);
  });

  it("lists the open positions with their hedge and its opening, then their total", () => {
    const open = section("Open positions");
    expect(open.rows).toEqual([
      [
        "Market",
        "Side",
        "Hedge id",
        "Client reference",
        "Opened at (UTC)",
        "Size (USD)",
        "Collateral (USDC)",
        "Entry price",
        "Mark price",
        "Unrealized gross P&L (USD)",
        "Accrued carry (USD)",
        "Unrealized net P&L (USD)",
        "Closing fee (USD)",
        "Net margin (USD)",
        "Maturity (UTC)",
      ],
      [
        "USDTNGN",
        "sell",
        "o1",
        "DEAL-O",
        d("2026-11-20T06:00:00.000Z"),
        50_000,
        5_050,
        1505,
        1500,
        166.11,
        -3.2,
        162.91,
        25,
        5_187.91,
        d("2026-12-03T09:00:00.000Z"),
      ],
      ["Total (1)", "", "", "", "", 50_000, "", "", "", 166.11, -3.2, 162.91],
    ]);
    expect(open.formats[1]).toEqual([T, T, T, T, D, U, U, R, R, U, U, U, U, U, D]);
    expect(open.formats[2]).toEqual([T, G, G, G, G, U, G, G, G, U, U, U]);
  });

  it('lists each hedge that ended with what followed and what it cost, a cost not priced read "not known", then each side\'s program against ROLLCOST', () => {
    const rolls = section("Rolls and unhedged time");
    expect(rolls.rows).toEqual([
      [
        "Market",
        "Side",
        "Hedge id",
        "Client reference",
        "Ended at (UTC)",
        "Ended by",
        "Followed by",
        "Next hedge id",
        "Next client reference",
        "Next filled at (UTC)",
        "Unhedged for",
        "Unhedged (hours)",
        "Fees (USD)",
        "Carry (USD)",
        "Exit impact (USD)",
        "Cost (USD)",
      ],
      [
        "USDTNGN",
        "buy",
        "h1",
        "DEAL-1",
        d("2026-11-05T09:00:00.000Z"),
        "close",
        "Unhedged to the month's end",
        "",
        "",
        "",
        "25 d 15 h",
        615,
        100,
        20,
        350.5,
        470.5,
      ],
      [
        "USDTNGN",
        "sell",
        "s1",
        "DEAL-S",
        d("2026-11-20T00:00:00.000Z"),
        "maturity",
        "Roll",
        "o1",
        "DEAL-O",
        d("2026-11-20T06:00:00.000Z"),
        "6 h 00 min",
        6,
        40,
        -3.5,
        "not known",
        "not known",
      ],
      [],
      [
        "Program cost",
        "Side",
        "Hedges ended",
        "From (UTC)",
        "To (UTC)",
        "Days",
        "Notional (USD)",
        "Tenor (days)",
        "Roll",
        "Realized (USD)",
        "ROLLCOST quotes (USD)",
        "Realized − quoted (USD)",
        "ROLLCOST hedges",
      ],
      ["USDTNGN", "buy", 1, d("2026-11-02T09:00:02.000Z"), d("2026-11-05T09:00:00.000Z"), 3, 100_000, 7, "early", 470.5, 400.25, 70.25, 1],
      [
        "USDTNGN",
        "sell",
        1,
        d("2026-11-13T00:00:01.000Z"),
        d("2026-11-20T00:00:00.000Z"),
        7,
        40_000,
        3,
        "at maturity",
        "not known",
        30,
        "not known",
        3,
      ],
      [
        "Note",
        expect.stringMatching(
          new RegExp(
            `^${PROGRAM_NOTE_START}.*with Roll within 24, from quotes asked when this sheet was made; ROLLCOST's entry impact is left out on both sides`,
          ),
        ),
      ],
    ]);
    expect(rolls.formats[1]).toEqual([T, T, T, T, D, T, T, T, T, D, T, R, U, U, U, U]);
    // Made before the month's end, a side not reopened is still flat when the sheet was generated.
    const during = fullMonth();
    const still = rowsOf(reconContent({ ...during, sideTime: [{ ...during.sideTime[0], stillUnhedged: true }] }));
    expect(still[still.findIndex((r) => r[6] === "Followed by") + 1][6]).toBe("Unhedged: still flat when generated");
    expect(rolls.formats[5]).toEqual([T, T, C, D, D, C, U, C, T, U, U, U, C]);
  });

  it("lists the control rows of the period with their flag", () => {
    expect(section("Controls changed").rows).toEqual([
      ["Logged at (UTC)", "Control", "From", "To", "By", "Environment", "Hash", "Flag"],
      [
        d("2026-11-10T08:00:00.000Z"),
        "LIVE trades need approval",
        "on",
        "off",
        "fp:1a2b",
        "sandbox",
        "",
        "LIVE approval unticked: LIVE trades could be sent without a second key for the rest of the period.",
      ],
    ]);
    expect(section("Controls changed").formats[1]).toEqual([D, T, T, T, T, T, T, T]);
  });

  it("lists each difference in words with its row's cells (a Logged at typed over shown as typed), then the chain's findings and the check against the service", () => {
    const diff = section("Differences with the Hedge Log");
    expect(diff.rows).toEqual([
      [
        "Difference",
        "Hedge id",
        "Client reference",
        "Market",
        "Side",
        "Log action",
        "Logged at (UTC)",
        "Idempotency key",
        "Log says",
        "Service says",
        "Amount (USD)",
        "What it means",
      ],
      [
        "Log action unknown to the service",
        "ghost",
        "GHOST",
        "USDTNGN",
        "buy",
        "open",
        d("2026-11-07T10:00:00.000Z"),
        "key-ghost",
        "filled",
        "hedge id not found",
        "",
        "The service does not know hedge ghost: was this row copied from another workbook or environment?",
      ],
      [
        "Service hedge with no log row",
        "s1",
        "DEAL-S",
        "USDTNGN",
        "sell",
        "",
        "",
        "",
        "no row",
        "closed (maturity)",
        40_000,
        "The service has this hedge but the Hedge Log does not: it was traded outside this workbook (another workbook, another tool), or its log rows were deleted.",
      ],
      [
        "Action still pending",
        "",
        "LATER",
        "USDTNGN",
        "buy",
        "open",
        "last Tuesday",
        "key-later",
        "submitting",
        "no hedge id yet",
        "",
        "Not confirmed yet: open the Hedge pane and press Resume (the service is asked before anything is sent again).",
      ],
      [],
      ["Hedge Log chain", "Sheet", "Row", "What it means"],
      ["Edited after it was written", "Hedge Log", 4, "Row 4 was edited after it was written."],
      [],
      ["Hedge Log against the service", "Sheet", "Row", "Column", "Log says", "Service says", "What it means"],
      [
        "Differs from the service",
        "Hedge Log",
        3,
        "Struck rate",
        "1500",
        "1501",
        "Row 3: Struck rate: the log says 1500, the service 1501.",
      ],
      ["Rows cut off the end", "", "", "", "", "", "Rows cut off."],
    ]);
    expect(diff.formats[1]).toEqual([T, T, T, T, T, T, D, T, T, T, U, T]);
    expect(diff.formats[6]).toEqual([T, T, C, T]);
    expect(diff.formats[9]).toEqual([T, T, C, T, T, T, T]);
  });

  it("gives each column the width of the widest table in it, the summary's first two at least 150 and 120", () => {
    const tables = [
      REALIZED_COLUMNS,
      OPEN_COLUMNS,
      SIDE_TIME_COLUMNS,
      PROGRAM_COLUMNS,
      CONTROL_COLUMNS,
      DIFFERENCE_COLUMNS,
      CHAIN_COLUMNS,
      SERVICE_COLUMNS,
    ];
    const widest = (i: number) => Math.max(...tables.map((t) => (t[i] as { width: number } | undefined)?.width ?? 0));
    expect(content.columnWidths).toHaveLength(16);
    content.columnWidths.forEach((w, i) => expect(w).toBe(Math.max(widest(i), i === 0 ? 150 : i === 1 ? 120 : 0) || 64));
    expect(content.columnWidths.slice(0, 2)).toEqual([150, 140]);
  });
});

describe("a quiet month's sheet says what each empty table means", () => {
  const quiet = (over: Partial<Reconciliation> = {}) =>
    rowsOf(reconContent({ ...reconcile(monthData({ accountAddress: null })), ...over }));
  /** The row after the header row whose first cell is `header`. */
  const under = (rows: CellValue[][], header: string) => rows[rows.findIndex((r) => r[0] === header) + 1];

  it("one sentence under each table's headers, the account not configured, no program table, and the chain not checked", () => {
    const rows = quiet();
    expect(rows[2]).toEqual(["Account address", "not configured"]);
    expect(under(rows, "Closed at (UTC)")).toEqual(["No hedge closed in the period."]);
    expect(rows.filter((r) => String(r[0]).startsWith("Total"))).toEqual([
      ["Total buy (0)", "", "", "", "", "", 0, "", "", "", 0, 0, 0, 0],
      ["Total sell (0)", "", "", "", "", "", 0, "", "", "", 0, 0, 0, 0],
      ["Total (0)", "", "", "", "", "", 0, "", "", "", 0, 0, 0, 0],
      ["Total (0)", "", "", "", "", 0, "", "", "", 0, 0, 0],
    ]);
    expect(rows[rows.findIndex((r) => r[0] === "Market" && r[4] === "Opened at (UTC)") + 1]).toEqual(["No open position."]);
    expect(rows[rows.findIndex((r) => r[0] === "Market" && r[4] === "Ended at (UTC)") + 1]).toEqual(["No hedge ended in the period."]);
    expect(rows.some((r) => r[0] === "Program cost" || (r[0] === "Note" && String(r[1]).startsWith("Program cost")))).toBe(false);
    expect(under(rows, "Logged at (UTC)")).toEqual(["No control row in the period: no control was changed from this workbook's pane."]);
    expect(under(rows, "Difference")).toEqual([
      "None of these differences: every log action of the period has its hedge at the service and every service hedge its log rows, with the same status and net notional (the log's other cells: the chain and the check against the service, below).",
    ]);
    expect(under(rows, "Hedge Log chain")).toEqual(["The Hedge Log's hash chain was not checked."]);
    // Neither check ran: the summary names neither, and the check against the service has no table.
    expect(rows.filter((r) => /^(Hedge Log chain findings|Hedge Log against the service|Log cells)/.test(String(r[0])))).toEqual([]);
    expect(rows.at(-1)).toEqual(["The Hedge Log's hash chain was not checked."]);
  });

  it("a chain that holds says so, and whether its end could be seen; an empty log has no chain to check", () => {
    const holds = (headKnown: boolean, lines: NonNullable<Reconciliation["chain"]>["lines"] = []) =>
      quiet({ chain: { rows: 4, chained: 3, headKnown, lines } }).slice(-2);
    expect(holds(true)).toEqual([
      ["Hedge Log chain", "Sheet", "Row", "What it means"],
      [
        "Chain holds",
        "",
        "",
        "No edit found in Excel: the hashes of the 3 rows of the chain hold, none deleted, inserted or moved; its last row is the newest this computer wrote. The hashes are not secret: a rewrite that recomputes them holds too, so the sealed cells rest on the chain alone; the cells the service knows are checked below.",
      ],
    ]);
    expect(holds(false)[1][3]).toBe(
      "No edit found in Excel: the hashes of the 3 rows of the chain hold, none deleted, inserted or moved (this computer's journal holds no newest row of this log, so rows cut off its end could not be seen). The hashes are not secret: a rewrite that recomputes them holds too, so the sealed cells rest on the chain alone; the cells the service knows are checked below.",
    );
    // A row before the chain is only not judged: the chain after it still holds.
    const before = { kind: "before_chain" as const, sheet: "Hedge Log", rowNumber: 2, message: "Row 2 is older than the chain." };
    expect(holds(true, [before]).map((r) => r.slice(0, 3))).toEqual([
      ["Before the chain: not judged", "Hedge Log", 2],
      ["Chain holds", "", ""],
    ]);
    // A finding: no "Chain holds" line.
    const edited = { kind: "edited" as const, sheet: "Hedge Log", rowNumber: 3, message: "Row 3 was edited." };
    expect(chainItems({ rows: 4, chained: 3, headKnown: true, lines: [before, edited] }).map((i) => i.label)).toEqual([
      "Before the chain: not judged",
      "Edited after it was written",
    ]);
    // Nothing chained (a log written before the chain): its rows before the chain, no "holds".
    expect(chainItems({ rows: 1, chained: 0, headKnown: false, lines: [before] }).map((i) => i.label)).toEqual([
      "Before the chain: not judged",
    ]);
    expect(quiet({ chain: { rows: 0, chained: 0, headKnown: false, lines: [] } }).slice(-1)).toEqual([
      ["The Hedge Log has no rows: no chain to check."],
    ]);
  });

  it("a check against the service that found nothing says how many cells of each class it did and did not check, and when the service's hedges could not all be read", () => {
    const service = (complete: boolean) =>
      quiet({ service: { compared: 12, complete, lines: [], cells: { checked: 150, sealed: 60, workbookOnly: 9 } } }).slice(-2);
    expect(service(true)).toEqual([
      ["Hedge Log against the service", "Sheet", "Row", "Column", "Log says", "Service says", "What it means"],
      [
        "No difference in the 150 cells checked against the service (12 row(s) compared with the hedges the service shows); no action of the service after the newest row. Not checked against the service: 60 sealed cells (held only by the hash chain) and 9 cells in the workbook only.",
      ],
    ]);
    expect(service(false)[1][0]).toBe(
      "No difference in the 150 cells checked against the service (12 row(s) compared with the hedges the service shows (the service's hedges could not all be read: rows whose hedge was not read were not compared)); no action of the service after the newest row. Not checked against the service: 60 sealed cells (held only by the hash chain) and 9 cells in the workbook only.",
    );
  });

  it("a month not over says so, and a cut-short history is the first line", () => {
    const rows = quiet({
      notes: ["The month is not over: the realized section covers it up to the time generated."],
      historyIncomplete: "Read in part.",
    });
    expect(rows[1]).toEqual(["WARNING: history incomplete", "Read in part."]);
    expect(rows.filter((r) => r[0] === "Note")).toEqual([
      ["Note", "The month is not over: the realized section covers it up to the time generated."],
    ]);
  });
});

describe("the Difference column names each kind", () => {
  it("a notional that disagrees and a status that disagrees, each in its words", () => {
    const recon = reconcile(
      monthData({
        hedges: [
          hedge({ id: "n1", client_reference: "N-1", status: "filled", notional_usd: 125_000 }),
          hedge({ id: "s1", client_reference: "S-1", side: "sell", status: "filled" }),
        ],
        log: [
          logRow({ hedgeId: "n1", clientReference: "N-1", notional: 120_000 }),
          logRow({ hedgeId: "s1", clientReference: "S-1", side: "sell" }),
          logRow({
            hedgeId: "s1",
            clientReference: "S-1",
            side: "sell",
            action: "close",
            notional: null,
            status: "closed",
            loggedAt: "2026-11-05T09:00:00Z",
          }),
        ],
      }),
    );
    const rows = rowsOf(reconContent(recon));
    const at = rows.findIndex((r) => r[0] === "Difference");
    expect(rows.slice(at + 1, at + 3).map((r) => [r[0], r[1], r[8], r[9]])).toEqual([
      ["Notional disagrees", "n1", "net notional 120,000.00", "notional 125,000.00"],
      ["Status disagrees", "s1", "closed", "filled, notional 100,000.00"],
    ]);
  });
});
