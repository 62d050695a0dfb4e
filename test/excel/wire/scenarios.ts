// The payload scenarios of issue 10 and issue 25's long text, at any scale: a Hedge Log of N rows (read, append one, update four), journalling a batch, a resume, a wide selection, a snapshot, a recon sheet (and one listing a chain finding on every row), and the same reads over long text (500- and 2,000-character cells, rows over 1 MiB), each run through Microsoft's serializer and measured per context.sync.
import { OfficeWorkbook } from "../../../src/excel/office-workbook";
import { officeSheetWriter } from "../../../src/excel/recon-sheet";
import { officeSnapshotter } from "../../../src/excel/snapshot";
import { FORMATS, type SheetContent } from "../../../src/trading/sheet-content";
import { LOG_COLUMNS, LOG_HEADERS, LOG_SHEET_NAME, LOG_TABLE_NAME, type LogRecord } from "../../../src/trading/log/hedge-log";
import { logCells, logRow, monthData } from "../../support/builders";
import { verifyLogChain } from "../../../src/monthend/log-chain-check";
import { reconcile } from "../../../src/monthend/reconcile";
import { reconContent } from "../../../src/monthend/recon-layout";
import { CHAIN_START } from "../../../src/trading/log/log-chain";
import type { PlacedLogRow } from "../../../src/trading/workbook";
import { OfficeMeter, type SyncRecord } from "./office-vm";
import { WireHost } from "./wire-host";

export interface Scale {
  /** Rows of the log for read / append one / update four. */
  logRows: number;
  /** Rows journalled in one batch. */
  batchRows: number;
  /** Rows updated by a resume. */
  resumeRows: number;
  /** Rows of the 20-column selection. */
  selectionRows: number;
  /** Cells of the snapshot sheet, and HEDGE formulas among them. */
  snapshotCells: number;
  snapshotFormulas: number;
  /** Rows of the recon sheet. */
  reconRows: number;
  /** Long text (issue 25): rows of a 20-column selection with 15 comment columns of 500 characters. */
  longSelectionRows: number;
  /** Rows of a log whose Message cells hold 2,000 characters (month end, a query and an archive). */
  longLogRows: number;
  /** Rows of a 40-column selection whose 35 note columns hold Excel's longest text (32,767 characters): each row over 1 MiB. */
  wideRows: number;
  /** Formula cells whose values are 2,000 characters of text, a tenth of them HEDGE formulas (the snapshot's formula scan). */
  longFormulaCells: number;
  /** Rows of a selection whose comments are short, then as many again whose comments hold 500 characters. */
  lightThenLongRows: number;
}

export const ISSUE_SCALE: Scale = {
  logRows: 50_000,
  batchRows: 10_000,
  resumeRows: 10_000,
  selectionRows: 10_000,
  snapshotCells: 100_000,
  snapshotFormulas: 5_000,
  reconRows: 5_000,
  longSelectionRows: 10_000,
  longLogRows: 20_000,
  wideRows: 10,
  longFormulaCells: 5_000,
  lightThenLongRows: 10_000,
};

/** Small enough for `npm test`, large enough that each heavy step carries more than 1 MiB in all, so only chunking keeps each sync under it. */
export const TEST_SCALE: Scale = {
  logRows: 4_000,
  batchRows: 7_000,
  resumeRows: 7_000,
  selectionRows: 4_500,
  snapshotCells: 25_000,
  snapshotFormulas: 1_250,
  reconRows: 3_000,
  longSelectionRows: 600,
  longLogRows: 1_500,
  wideRows: 3,
  longFormulaCells: 1_000,
  lightThenLongRows: 3_000,
};

export interface StepResult {
  scenario: string;
  step: string;
  syncs: SyncRecord[];
  /** References the host held at most during the step (released proxies keep this low). */
  maxRefs: number;
}

/** A small deterministic generator, so every run measures the same bytes. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}
const hex = (next: () => number, n: number) => Array.from({ length: n }, () => Math.floor(next() * 16).toString(16)).join("");

/**
 * A log row as a busy desk writes them: a uuid key, two tx hashes, an account, a message, the chain's links (and its seal
 * once final), and on every third row the approval it was sent under (a batch hash and two fingerprints).
 */
export function logRecord(i: number, next: () => number, status = "filled"): LogRecord {
  const t = Date.UTC(2025, 0, 1) + i * 600_000;
  return logRow({
    loggedAt: new Date(t).toISOString(),
    environment: "production",
    action: ["open", "add", "reduce", "close"][i % 4],
    market: "USDTNGN",
    side: i % 2 ? "buy" : "sell",
    notional: Math.round(next() * 1e8) / 100,
    tenor: [1, 3, 7][i % 3],
    clientReference: `DESK-${String(i).padStart(6, "0")}`,
    idempotencyKey: `${hex(next, 8)}-${hex(next, 4)}-4${hex(next, 3)}-a${hex(next, 3)}-${hex(next, 12)}`,
    status,
    hedgeId: status === "submitting" ? null : `hdg_${hex(next, 16)}`,
    orderTxHash: status === "submitting" ? null : `0x${hex(next, 64)}`,
    fillTxHash: status === "filled" ? `0x${hex(next, 64)}` : null,
    struckRate: status === "filled" ? 1500 + Math.round(next() * 1e6) / 1e4 : null,
    filledAt: status === "filled" ? new Date(t + 4_000).toISOString() : null,
    errorCode: null,
    message: status === "filled" ? "Filled at the quoted rate; collateral locked." : null,
    account: `0x${hex(next, 40)}`,
    ...(i % 3 === 0 ? { batchHash: hex(next, 64), preparedBy: `fp-${hex(next, 16)}`, approvedBy: `fp-${hex(next, 16)}` } : {}),
    prevHash: hex(next, 64),
    rowHash: hex(next, 64),
    finalHash: status === "filled" ? hex(next, 64) : null,
  });
}

/** Puts a log of `rows` records straight into the host (as a saved workbook would open). */
export function seedLog(host: WireHost, rows: LogRecord[]): void {
  const sheet = host.sheets.get(LOG_SHEET_NAME) ?? host.addSheet(LOG_SHEET_NAME);
  sheet.fill(0, 0, [[...LOG_HEADERS]]);
  rows.forEach((r, i) => logCells(r).forEach((v, j) => sheet.put(i + 1, j, { v, nf: LOG_COLUMNS[j].numberFormat })));
  host.addTable(LOG_TABLE_NAME, LOG_SHEET_NAME, { top: 0, left: 0, bottom: Math.max(1, rows.length), right: LOG_COLUMNS.length - 1 });
}

/** Runs a step and keeps its syncs. */
async function step(meter: OfficeMeter, scenario: string, name: string, work: () => Promise<unknown>): Promise<StepResult> {
  const label = `${scenario} / ${name}`;
  meter.label(label);
  meter.host.maxRefs = meter.host.refs.size;
  await work();
  return { scenario, step: name, syncs: meter.of(label), maxRefs: meter.host.maxRefs };
}

const n = (v: number) => v.toLocaleString("en-US");

export async function logScenario(scale: Scale): Promise<StepResult[]> {
  const next = random(1);
  const host = new WireHost();
  const records = Array.from({ length: scale.logRows }, (_, i) => logRecord(i, next, i % 50 === 0 ? "submitted" : "filled"));
  seedLog(host, records);
  const meter = new OfficeMeter(host);
  const scenario = `log of ${n(scale.logRows)} rows`;
  const wb = new OfficeWorkbook(meter.excel);
  const cold = new OfficeWorkbook(meter.excel);
  const results = [
    await step(meter, scenario, "read (month end)", async () => {
      const read = await wb.readLog();
      if (read.length !== scale.logRows) throw new Error(`read ${read.length} rows of ${scale.logRows}`);
    }),
    await step(meter, scenario, "read unfinished (query)", async () => {
      const unfinished = await wb.readLog({ statusNotIn: ["filled", "failed", "closed", "rejected"] });
      if (unfinished.length !== Math.ceil(scale.logRows / 50)) throw new Error(`found ${unfinished.length} unfinished rows`);
    }),
    await step(meter, scenario, "read the last row (the chain's next link)", async () => {
      if (!(await cold.readLastLogRecord())?.rowHash) throw new Error("the last row has no Row hash");
    }),
    await step(meter, scenario, "append one", () => wb.appendLog([logRecord(scale.logRows, next, "submitting")])),
    await step(meter, scenario, "update four", async () => {
      const result = await wb.updateLog(
        records.slice(-4).map((r) => ({ idempotencyKey: r.idempotencyKey, status: "closed", finalHash: hex(next, 64) })),
      );
      if (result.missing.length > 0) throw new Error("rows not found");
    }),
    await step(meter, scenario, "update four, new pane (key column scan)", async () => {
      const result = await cold.updateLog(records.slice(0, 4).map((r) => ({ idempotencyKey: r.idempotencyKey, status: "closed" })));
      if (result.missing.length > 0) throw new Error("rows not found");
    }),
  ];
  return results;
}

export async function batchScenario(scale: Scale): Promise<StepResult[]> {
  const next = random(2);
  const host = new WireHost();
  seedLog(
    host,
    Array.from({ length: 100 }, (_, i) => logRecord(i, next)),
  );
  const meter = new OfficeMeter(host);
  const wb = new OfficeWorkbook(meter.excel);
  const batch = Array.from({ length: scale.batchRows }, (_, i) => logRecord(100 + i, next, "submitting"));
  const resume = batch.slice(0, scale.resumeRows);
  return [
    await step(meter, `batch of ${n(scale.batchRows)} rows`, "journal (append)", () => wb.appendLog(batch)),
    await step(meter, `resume of ${n(scale.resumeRows)} rows`, "update every row, new pane", async () => {
      const fresh = new OfficeWorkbook(meter.excel);
      const result = await fresh.updateLog(
        resume.map((r, i) => ({
          idempotencyKey: r.idempotencyKey,
          status: "submitted",
          hedgeId: `hdg_${String(i).padStart(16, "0")}`,
          orderTxHash: `0x${hex(next, 64)}`,
        })),
      );
      if (result.missing.length > 0) throw new Error(`${result.missing.length} rows not found`);
    }),
  ];
}

export async function selectionScenario(scale: Scale): Promise<StepResult[]> {
  const next = random(3);
  const host = new WireHost();
  const sheet = host.addSheet("Exposures");
  const headers = ["Market", "Side", "Notional USD", "Tenor", "Client reference", ...Array.from({ length: 15 }, (_, i) => `Note ${i + 1}`)];
  sheet.fill(0, 0, [headers]);
  for (let r = 1; r <= scale.selectionRows; r++) {
    sheet.fill(r, 0, [
      [
        "USDTNGN",
        r % 2 ? "buy" : "sell",
        Math.round(next() * 1e7) / 100,
        7,
        `DEAL-${r}`,
        ...Array.from({ length: 15 }, (_, i) => (i % 3 ? `memo ${hex(next, 8)}` : Math.round(next() * 1e6) / 100)),
      ],
    ]);
  }
  host.select("Exposures", { top: 1, left: 0, bottom: scale.selectionRows, right: 19 });
  const meter = new OfficeMeter(host);
  const wb = new OfficeWorkbook(meter.excel);
  return [
    await step(meter, `selection of ${n(scale.selectionRows)} × 20`, "read selection", async () => {
      const read = await wb.readSelection();
      if (read.rows.length !== scale.selectionRows) throw new Error(`read ${read.rows.length} rows`);
    }),
  ];
}

export async function snapshotScenario(scale: Scale): Promise<StepResult[]> {
  const next = random(4);
  const host = new WireHost();
  const sheet = host.addSheet("Desk");
  const columns = 20;
  const rows = Math.ceil(scale.snapshotCells / columns);
  const every = Math.max(1, Math.floor(rows / scale.snapshotFormulas));
  let formulas = 0;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      if (c === 3 && r % every === 0 && formulas < scale.snapshotFormulas) {
        formulas++;
        sheet.put(r, c, { v: 1500 + Math.round(next() * 1e6) / 1e4, f: `=HEDGE.PRICE("USDTNGN")`, nf: "#,##0.0000" });
      } else if (c === 4 && r % 2 === 0) sheet.put(r, c, { v: 0, f: `=D${r + 1}*2` });
      else sheet.put(r, c, { v: c % 2 ? Math.round(next() * 1e6) / 100 : `cell ${hex(next, 6)}` });
    }
  }
  // A few spills: HEDGE.HEDGES blocks of 10 × 4.
  for (let k = 0; k < 5; k++) {
    const top = k * 40 + 1;
    const left = 25;
    sheet.put(top, left, { v: "client_reference", f: "=HEDGE.HEDGES()" });
    for (let i = 0; i < 10; i++)
      for (let j = 0; j < 4; j++) if (i || j) sheet.put(top + i, left + j, { v: j ? i * 1000 : `00${i}`, spilledFrom: `${top},${left}` });
    sheet.spills.set(`${top},${left}`, { rows: 10, columns: 4 });
  }
  // Comments already on a few formula cells (the snapshot replies under them) and elsewhere.
  for (let k = 0; k < 30; k++)
    sheet.comments.set(`${k * every * 3},${k % 3 === 0 ? 3 : 7}`, { id: `c${k}`, content: `desk note ${k}`, replies: [] });
  const meter = new OfficeMeter(host);
  const snapshotter = officeSnapshotter({
    run: meter.runner,
    isSetSupported: (_name, version) => version === "1.10" || version === "1.12",
  });
  return [
    await step(
      meter,
      `snapshot of ${n(scale.snapshotCells)} cells, ${n(scale.snapshotFormulas)} HEDGE formulas`,
      "snapshot whole sheet",
      async () => {
        const result = await snapshotter.snapshot("sheet", new Date("2026-11-30T17:00:00Z"));
        if (result.replaced.length !== formulas + 5) throw new Error(`replaced ${result.replaced.length} of ${formulas + 5}`);
        const replies = [...sheet.comments.values()].filter((c) => c.replies.length === 1).length;
        if (replies !== 10) throw new Error(`${replies} replies under existing comments, not 10`);
      },
    ),
  ];
}

export async function reconScenario(scale: Scale): Promise<StepResult[]> {
  const next = random(5);
  const host = new WireHost();
  host.addSheet("Sheet1");
  const width = 15;
  const content: SheetContent = {
    name: "Hedge Recon 2026-11",
    values: Array.from({ length: scale.reconRows }, (_, r) =>
      Array.from({ length: width }, (_, c) => (c < 2 ? 46_000 + r / 100 : c < 6 ? `hdg_${hex(next, 16)}` : Math.round(next() * 1e8) / 100)),
    ),
    formats: Array.from({ length: scale.reconRows }, () =>
      Array.from({ length: width }, (_, c) => (c < 2 ? FORMATS.date : c < 6 ? FORMATS.text : FORMATS.usd)),
    ),
    columnWidths: Array.from({ length: width }, () => 90),
    boldRows: [0],
    sections: [],
  };
  const meter = new OfficeMeter(host);
  return [
    await step(meter, `recon sheet of ${n(scale.reconRows)} rows`, "write sheet", () =>
      officeSheetWriter(meter.runner).writeSheet(content),
    ),
    ...(await chainFindingsScenario(scale)),
  ];
}

/** The recon sheet whose Differences list a finding of the Hedge Log's chain on every one of `reconRows` rows (each row's amount edited, half of them in a year sheet). */
async function chainFindingsScenario(scale: Scale): Promise<StepResult[]> {
  const placed: PlacedLogRow[] = Array.from({ length: scale.reconRows }, (_, i) => ({
    sheet: i < scale.reconRows / 2 ? "Hedge Log 2025" : LOG_SHEET_NAME,
    rowNumber: (i % Math.ceil(scale.reconRows / 2)) + 2,
    record: logRow({
      idempotencyKey: `k${i}`,
      prevHash: i === 0 ? CHAIN_START : `${i - 1}`.padStart(64, "0"),
      rowHash: `${i}`.padStart(64, "0"),
    }),
  }));
  const chain = verifyLogChain(placed, null);
  if (chain.lines.length !== scale.reconRows) throw new Error(`${chain.lines.length} chain findings, not ${scale.reconRows}`);
  const content = reconContent(reconcile({ ...monthData(), chain }));
  const host = new WireHost();
  host.addSheet("Sheet1");
  const meter = new OfficeMeter(host);
  return [
    await step(meter, `recon sheet with ${n(scale.reconRows)} chain findings`, "write sheet", () =>
      officeSheetWriter(meter.runner).writeSheet(content),
    ),
  ];
}

/** Long text of `chars` characters: words of hex from a pool of 64 strings, so building a sheet of them stays fast and every run weighs the same. */
function longTexts(seed: number, chars: number): (i: number) => string {
  const next = random(seed);
  const pool = Array.from({ length: 64 }, () => {
    let text = "";
    while (text.length < chars) text += `${hex(next, 7)} `;
    return text.slice(0, chars);
  });
  return (i) => pool[i % pool.length];
}

/** Issue 25's long text: a selection of 500-character comments, a log of 2,000-character messages, rows each over 1 MiB, a snapshot among long formula results. */
export async function longTextScenarios(scale: Scale): Promise<StepResult[]> {
  return [
    ...(await longSelectionScenario(scale)),
    ...(await wideRowScenario(scale)),
    ...(await longLogScenario(scale)),
    ...(await longSnapshotScenario(scale)),
    ...(await lightThenLongScenario(scale)),
  ];
}

/** An Exposures sheet of `rows` trade rows with 15 comment columns (20 in all), selected: the long-text selections' set-up. */
function commentedSelection(host: WireHost, seed: number, rows: number, comment: (r: number, i: number) => string): void {
  const next = random(seed);
  const sheet = host.addSheet("Exposures");
  const headers = [
    "Market",
    "Side",
    "Notional USD",
    "Tenor",
    "Client reference",
    ...Array.from({ length: 15 }, (_, i) => `Comment ${i + 1}`),
  ];
  sheet.fill(0, 0, [headers]);
  for (let r = 1; r <= rows; r++)
    sheet.fill(r, 0, [
      [
        "USDTNGN",
        r % 2 ? "buy" : "sell",
        Math.round(next() * 1e7) / 100,
        7,
        `DEAL-${r}`,
        ...Array.from({ length: 15 }, (_, i) => comment(r, i)),
      ],
    ]);
  host.select("Exposures", { top: 1, left: 0, bottom: rows, right: 19 });
}

/**
 * The case the sizing rule cannot foresee: thousands of rows of short comments, then rows of 500-character ones. The
 * chunk sized by the light rows is refused by Excel (over 5 MB); it is read again from the first chunk's size.
 */
export async function lightThenLongScenario(scale: Scale): Promise<StepResult[]> {
  const text = longTexts(10, 500);
  const host = new WireHost();
  const rows = 2 * scale.lightThenLongRows;
  const comment = (r: number, i: number) => (r > scale.lightThenLongRows ? text(r + i) : `ok ${i}`);
  commentedSelection(host, 10, rows, comment);
  const meter = new OfficeMeter(host);
  const wb = new OfficeWorkbook(meter.excel);
  return [
    await step(
      meter,
      `long text: selection of ${n(scale.lightThenLongRows)} rows of short comments, then ${n(scale.lightThenLongRows)} of 500 characters`,
      "read selection",
      async () => {
        const read = await wb.readSelection();
        if (read.rows.length !== rows) throw new Error(`read ${read.rows.length} rows`);
        if (read.rows.some((row, i) => row.values[19] !== comment(i + 1, 14))) throw new Error("a comment read wrong");
      },
    ),
  ];
}

export async function longSelectionScenario(scale: Scale): Promise<StepResult[]> {
  const text = longTexts(6, 500);
  const host = new WireHost();
  commentedSelection(host, 6, scale.longSelectionRows, (r, i) => text(r + i));
  const meter = new OfficeMeter(host);
  const wb = new OfficeWorkbook(meter.excel);
  return [
    await step(
      meter,
      `long text: selection of ${n(scale.longSelectionRows)} × 20, 15 columns of 500 characters`,
      "read selection",
      async () => {
        const read = await wb.readSelection();
        if (read.rows.length !== scale.longSelectionRows) throw new Error(`read ${read.rows.length} rows`);
        if (read.rows.some((row, i) => row.values[19] !== text(i + 1 + 14))) throw new Error("a comment read wrong");
      },
    ),
  ];
}

export async function wideRowScenario(scale: Scale): Promise<StepResult[]> {
  const text = longTexts(7, 32_767);
  const host = new WireHost();
  const sheet = host.addSheet("Exposures");
  const headers = ["Market", "Side", "Notional USD", "Tenor", "Client reference", ...Array.from({ length: 35 }, (_, i) => `Note ${i + 1}`)];
  sheet.fill(0, 0, [headers]);
  for (let r = 1; r <= scale.wideRows; r++)
    sheet.fill(r, 0, [["USDTNGN", "sell", 1000 * r, 7, `DEAL-${r}`, ...Array.from({ length: 35 }, (_, i) => text(r * 35 + i))]]);
  host.select("Exposures", { top: 1, left: 0, bottom: scale.wideRows, right: 39 });
  const meter = new OfficeMeter(host);
  const wb = new OfficeWorkbook(meter.excel);
  return [
    await step(meter, `long text: ${n(scale.wideRows)} rows × 40 of 32,767 characters (1.1 MiB a row)`, "read selection", async () => {
      const read = await wb.readSelection();
      if (read.rows.length !== scale.wideRows) throw new Error(`read ${read.rows.length} rows`);
      if (read.rows.some((row, i) => row.values.length !== 40 || row.values[39] !== text((i + 1) * 35 + 34)))
        throw new Error("a row read wrong");
    }),
  ];
}

export async function longLogScenario(scale: Scale): Promise<StepResult[]> {
  const next = random(8);
  const text = longTexts(8, 2_000);
  const host = new WireHost();
  const records = Array.from({ length: scale.longLogRows }, (_, i) => ({
    // The unfinished rows (one in 50) in the newer half: the archive moves the older half whole (chains move whole).
    ...logRecord(i, next, i >= scale.longLogRows / 2 && (i - scale.longLogRows / 2) % 25 === 0 ? "submitted" : "filled"),
    message: text(i),
  }));
  seedLog(host, records);
  const meter = new OfficeMeter(host);
  const scenario = `long text: log of ${n(scale.longLogRows)} rows, Messages of 2,000 characters`;
  const wb = new OfficeWorkbook(meter.excel);
  const half = records[Math.floor(records.length / 2)].loggedAt;
  return [
    await step(meter, scenario, "read (month end)", async () => {
      const read = await wb.readLog();
      if (read.length !== scale.longLogRows || read.some((r, i) => r.message !== text(i))) throw new Error(`read ${read.length} rows`);
    }),
    await step(meter, scenario, "read unfinished (query)", async () => {
      const unfinished = await wb.readLog({ statusNotIn: ["filled", "failed", "closed", "rejected"] });
      if (unfinished.length !== Math.ceil(scale.longLogRows / 50)) throw new Error(`found ${unfinished.length} unfinished rows`);
    }),
    await step(meter, scenario, "archive the older half", async () => {
      const result = await wb.archiveLog({ before: half, finalStatuses: ["filled"] });
      if (result.total < scale.longLogRows / 2 - scale.longLogRows / 50) throw new Error(`archived ${result.total} rows`);
    }),
    await step(meter, scenario, "read (month end, archive and log)", async () => {
      const read = await wb.readLog();
      if (read.length !== scale.longLogRows) throw new Error(`read ${read.length} rows`);
    }),
  ];
}

export async function longSnapshotScenario(scale: Scale): Promise<StepResult[]> {
  const next = random(9);
  const text = longTexts(9, 2_000);
  const host = new WireHost();
  const sheet = host.addSheet("Desk");
  const columns = 10;
  let hedge = 0;
  for (let i = 0; i < scale.longFormulaCells; i++) {
    const r = Math.floor(i / columns);
    const c = i % columns;
    if (i % 10 === 3) {
      hedge++;
      sheet.put(r, c, { v: 1500 + Math.round(next() * 1e6) / 1e4, f: `=HEDGE.PRICE("USDTNGN")`, nf: "#,##0.0000" });
    } else sheet.put(r, c, { v: text(i), f: `=REPT("memo ",400)` });
  }
  const meter = new OfficeMeter(host);
  const snapshotter = officeSnapshotter({
    run: meter.runner,
    isSetSupported: (_name, version) => version === "1.10" || version === "1.12",
  });
  return [
    await step(
      meter,
      `long text: snapshot among ${n(scale.longFormulaCells)} formula cells of 2,000 characters`,
      "snapshot whole sheet",
      async () => {
        const result = await snapshotter.snapshot("sheet", new Date("2026-11-30T17:00:00Z"));
        if (result.replaced.length !== hedge) throw new Error(`replaced ${result.replaced.length} of ${hedge}`);
      },
    ),
  ];
}

export async function allScenarios(scale: Scale): Promise<StepResult[]> {
  return [
    ...(await logScenario(scale)),
    ...(await batchScenario(scale)),
    ...(await selectionScenario(scale)),
    ...(await snapshotScenario(scale)),
    ...(await reconScenario(scale)),
    ...(await longTextScenarios(scale)),
  ];
}

export const MiB = 1024 * 1024;
export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
