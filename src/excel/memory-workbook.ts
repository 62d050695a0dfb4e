// The memory workbook: the Workbook port (the selection as the user sees it, the Hedge Log kept by header name, its archive) over the Excel grid model of memory-grid.ts, behind the same interface as the Office.js adapter: for tests, benches, the simulation and the browser e2e page.
import type { CellValue } from "../trading/cells";
import {
  WORKBOOK_ID_PROPERTY,
  journalRecords,
  newWorkbookId,
  type PlacedLogRow,
  type SelectedRows,
  type SheetRow,
  type Workbook,
  type WorkbookIdentity,
} from "../trading/workbook";
import type { ApprovalsSheet } from "../trading/approvals/port";
import { APPROVALS_SHEET_NAME, APPROVAL_WIDTH, blockFormats, type BlockStatus } from "../trading/approvals/block";
import { blockSpan, nonBlankLines } from "../trading/approvals/block-read";
import {
  DECISION_COLUMNS,
  decidedMeanwhile,
  decisionCells,
  noSuchBatch,
  statusAllows,
  type ApprovalDecision,
} from "../trading/approvals/decision";
import {
  LOG_COLUMNS,
  LOG_HEADERS,
  LOG_SHEET_NAME,
  LOG_TABLE_NAME,
  archiveSheetName,
  archiveTableName,
  matchesLogQuery,
  type LogArchiveRequest,
  type LogArchiveResult,
  type LogQuery,
  type LogRecord,
  type LogUpdate,
  type LogUpdateResult,
} from "../trading/log/hedge-log";
import { dedupeByKey, holdsAnything, planArchive } from "./log-archive";
import {
  columnOf,
  columnRuns,
  fieldCells,
  keyText,
  layoutOf,
  recordFromRow,
  updatedFields,
  withAppended,
  type LogLayout,
} from "./log-layout";
import { MemoryGrid, newSheet, setCell, usedRect, type MemoryTable } from "./memory-grid";
import { columnLetters, mergeSpans, planSelection, spanRows, spansAddress } from "./selection-plan";

export { columnLetters };
export { columnIndex, excelStores } from "./memory-grid";

type Field = keyof LogRecord;

export class MemoryWorkbook extends MemoryGrid implements Workbook, ApprovalsSheet {
  /** Excel calls made (for tests and benches that count round trips). */
  calls = 0;

  // ---- Workbook ----

  async readSelection(): Promise<SelectedRows> {
    this.calls++;
    if (!this.selection) throw new Error("Nothing is selected: select the rows to trade (or a cell of their table).");
    const { sheet: sheetName, areas } = this.selection;
    const sheet = this.sheetOf(sheetName);
    const tables = [...this.tables.values()]
      .filter((t) => t.sheet === sheetName)
      .map((t) => ({ name: t.name, rect: t.rect, totalsRow: t.totalsRow }));
    const plan = planSelection(sheetName, areas, tables, usedRect(sheet.cells));
    const visible: Array<{ start: number; count: number }> = [];
    for (const span of plan.spans) {
      for (let r = span.start; r < span.start + span.count; r++) if (!this.isHidden(sheet, r)) visible.push({ start: r, count: 1 });
    }
    const shown = mergeSpans(visible);
    const rows = shown.flatMap((s) =>
      Array.from({ length: s.count }, (_, i) => ({
        rowNumber: s.start + i + 1,
        values: this.rowValues(sheet, s.start + i, plan.left, plan.right),
      })),
    );
    const addressSpans = shown.length > 0 ? shown : plan.spans.length > 0 ? plan.spans : [{ start: plan.headerRow + 1, count: 1 }];
    return {
      sheetName,
      address: spansAddress(sheetName, addressSpans, plan.left, plan.right),
      tableName: plan.tableName,
      headers: this.rowValues(sheet, plan.headerRow, plan.left, plan.right).map(headerText),
      headerRowNumber: plan.headerRow + 1,
      rows,
      hiddenRowsSkipped: spanRows(plan.spans) - spanRows(shown),
    };
  }

  // ---- the Approvals sheet (layout in src/trading/approvals/block.ts) ----

  async readApprovals(batchId?: string): Promise<SheetRow[]> {
    this.calls++;
    if (!this.sheetNames().includes(APPROVALS_SHEET_NAME)) return [];
    const cells = this.cells(APPROVALS_SHEET_NAME).map((row) => Array.from({ length: APPROVAL_WIDTH }, (_, c) => row[c] ?? ""));
    if (batchId === undefined) return nonBlankLines(cells, 0);
    const span = blockSpan(
      cells.map((row) => row[0]),
      batchId,
    );
    return span ? nonBlankLines(cells.slice(span.start, span.end), span.start) : [];
  }

  async appendApproval(lines: CellValue[][]): Promise<void> {
    this.calls++;
    if (!this.sheetNames().includes(APPROVALS_SHEET_NAME)) this.setSheet(APPROVALS_SHEET_NAME, []);
    const used = nonBlankLines(this.cells(APPROVALS_SHEET_NAME), 0);
    const top = used.length === 0 ? 0 : used[used.length - 1].rowNumber + 1;
    this.writeSafeCells(APPROVALS_SHEET_NAME, top, 0, lines, blockFormats(lines));
  }

  async setApprovalStatus(batchId: string, from: readonly BlockStatus[], decision: ApprovalDecision): Promise<void> {
    const lines = await this.readApprovals(batchId);
    const header = lines[1];
    if (lines.length === 0 || header?.rowNumber !== lines[0].rowNumber + 1) throw noSuchBatch(batchId);
    const status = header.values[DECISION_COLUMNS[0]];
    if (!statusAllows(status, from)) throw decidedMeanwhile(batchId, status, from);
    const cells = decisionCells(decision);
    const row = header.rowNumber - 1;
    this.writeSafeCells(APPROVALS_SHEET_NAME, row, DECISION_COLUMNS[0], [cells.slice(0, 1)], [["General"]]);
    this.writeSafeCells(APPROVALS_SHEET_NAME, row, DECISION_COLUMNS[1], [cells.slice(1)], [["General", "General", "General"]]);
  }

  async ensureLog(): Promise<void> {
    this.calls++;
    this.openLog(LOG_TABLE_NAME, LOG_SHEET_NAME, true);
  }

  async readLog(query?: LogQuery): Promise<LogRecord[]> {
    this.calls++;
    // As the Office adapter: a query for unfinished rows also returns rows without a key (to show, never to send).
    if (query) return this.logRecords(LOG_TABLE_NAME, !!query.statusNotIn).filter((record) => matchesLogQuery(record, query));
    return journalRecords(this.everyRow());
  }

  async readLogRows(): Promise<PlacedLogRow[]> {
    this.calls++;
    return this.everyRow();
  }

  /** The year sheets' rows (oldest first) then the log's, each key once (see dedupeByKey). */
  private everyRow(): PlacedLogRow[] {
    const archived = this.archiveYearsPresent().flatMap((y) => this.placedRows(archiveTableName(y)));
    return dedupeByKey(archived, this.placedRows(LOG_TABLE_NAME), (r) => r.record.idempotencyKey);
  }

  async readLastLogRecord(): Promise<LogRecord | null> {
    this.calls++;
    const table = this.tables.get(LOG_TABLE_NAME);
    if (!table || table.rect.bottom <= table.rect.top) return null;
    const sheet = this.sheetOf(table.sheet);
    const layout = layoutOf(this.rowValues(sheet, table.rect.top, table.rect.left, table.rect.right));
    const record = recordFromRow(this.rowValues(sheet, table.rect.bottom, table.rect.left, table.rect.right), layout);
    return record.idempotencyKey.trim() !== "" || record.status.trim() !== "" || record.rowHash ? record : null;
  }

  async appendLog(records: LogRecord[]): Promise<void> {
    this.calls++;
    if (records.length === 0) return;
    const log = this.openLog(LOG_TABLE_NAME, LOG_SHEET_NAME, true)!;
    this.appendRows(
      log,
      records.map((r) =>
        fieldCells(
          r,
          LOG_COLUMNS.map((c) => c.field),
        ),
      ),
    );
    this.changed();
  }

  async updateLog(updates: LogUpdate[]): Promise<LogUpdateResult> {
    this.calls++;
    if (updates.length === 0) return { missing: [] };
    const log = this.openLog(LOG_TABLE_NAME, LOG_SHEET_NAME, false);
    if (!log) throw new Error(`The ${LOG_SHEET_NAME} table is missing, so its rows cannot be updated.`);
    const sheet = this.sheetOf(log.table.sheet);
    const keyCol = log.layout.index.get("idempotencyKey");
    const rowOf = new Map<string, number>();
    if (keyCol !== undefined)
      for (let r = log.table.rect.top + 1; r <= log.table.rect.bottom; r++)
        rowOf.set(keyText(sheet.cells[r]?.[log.table.rect.left + keyCol]), r);
    const missing: string[] = [];
    for (const update of updates) {
      const r = rowOf.get(update.idempotencyKey);
      if (r === undefined) {
        missing.push(update.idempotencyKey);
        continue;
      }
      this.writeFields(log, r, [fieldCells(update, updatedFields(update))]);
    }
    this.changed();
    return { missing };
  }

  /** The workbook id was written in this session (the file had none). */
  private idWrittenHere = false;

  async identity(): Promise<WorkbookIdentity> {
    this.calls++;
    let id = this.customProperties.get(WORKBOOK_ID_PROPERTY);
    if (!id) {
      this.customProperties.set(WORKBOOK_ID_PROPERTY, (id = newWorkbookId()));
      this.idWrittenHere = true;
    }
    return { id, name: this.name, fresh: this.idWrittenHere };
  }

  async showLog(): Promise<void> {
    this.calls++;
    this.openLog(LOG_TABLE_NAME, LOG_SHEET_NAME, true);
    this.active = LOG_SHEET_NAME;
    this.changed();
  }

  async archiveLog(request: LogArchiveRequest): Promise<LogArchiveResult> {
    this.calls++;
    const log = this.openLog(LOG_TABLE_NAME, LOG_SHEET_NAME, false);
    if (!log) return { total: 0, byYear: {}, kept: 0, sheets: [] };
    const sheet = this.sheetOf(log.table.sheet);
    const top = log.table.rect.top + 1;
    const cell = (r: number, f: Field) => {
      const i = log.layout.index.get(f);
      return i === undefined ? "" : (sheet.cells[r]?.[log.table.rect.left + i] ?? "");
    };
    const candidates = [];
    for (let r = top; r <= log.table.rect.bottom; r++) {
      candidates.push({
        row: r - top,
        key: keyText(cell(r, "idempotencyKey")),
        status: String(cell(r, "status") ?? ""),
        loggedAt: cell(r, "loggedAt"),
      });
    }
    const plan = planArchive(candidates, request, this.archiveYearsPresent().pop() ?? null);
    if (request.dryRun || plan.moves.length === 0) return plan.result;
    let done = 0;
    for (const year of [...new Set(plan.moves.map((m) => m.year))].sort((a, b) => a - b)) {
      const target = this.openLog(archiveTableName(year), archiveSheetName(year), true)!;
      const targetSheet = this.sheetOf(target.table.sheet);
      const held = new Set<string>();
      const keyCol = target.layout.index.get("idempotencyKey")!;
      for (let r = target.table.rect.top + 1; r <= target.table.rect.bottom; r++)
        held.add(keyText(targetSheet.cells[r]?.[target.table.rect.left + keyCol]));
      const rows = plan.moves
        .filter((m) => m.year === year && !held.has(m.key))
        .map((m) => {
          const cells = new Map<Field, CellValue>();
          for (const [f, i] of log.layout.index) cells.set(f, sheet.cells[top + m.row]?.[log.table.rect.left + i] ?? "");
          return cells;
        });
      this.appendRows(target, rows);
      done += plan.moves.filter((m) => m.year === year).length;
      request.onProgress?.(done, plan.moves.length);
    }
    // Copied first, removed after: the log's rows go, bottom first, cells below moving up within the table's columns.
    this.deleteTableRows(
      log.table,
      plan.moves.map((m) => top + m.row),
    );
    this.changed();
    return plan.result;
  }

  // ---- the Hedge Log's internals ----

  private archiveYearsPresent(): number[] {
    return [...this.tables.keys()]
      .map((n) => /^HedgeLog(\d{4})$/.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
  }

  /** Every row of a log table that holds anything, with its sheet and 1-based sheet row. */
  private placedRows(tableName: string): PlacedLogRow[] {
    const table = this.tables.get(tableName);
    if (!table) return [];
    const sheet = this.sheetOf(table.sheet);
    const layout = layoutOf(this.rowValues(sheet, table.rect.top, table.rect.left, table.rect.right));
    const out: PlacedLogRow[] = [];
    for (let r = table.rect.top + 1; r <= table.rect.bottom; r++) {
      const record = recordFromRow(this.rowValues(sheet, r, table.rect.left, table.rect.right), layout);
      if (holdsAnything(record)) out.push({ sheet: table.sheet, rowNumber: r + 1, record });
    }
    return out;
  }

  private logRecords(tableName: string, keyless = false): LogRecord[] {
    const table = this.tables.get(tableName);
    if (!table) return [];
    const sheet = this.sheetOf(table.sheet);
    const layout = layoutOf(this.rowValues(sheet, table.rect.top, table.rect.left, table.rect.right));
    const out: LogRecord[] = [];
    for (let r = table.rect.top + 1; r <= table.rect.bottom; r++) {
      const record = recordFromRow(this.rowValues(sheet, r, table.rect.left, table.rect.right), layout);
      if (record.idempotencyKey.trim() !== "" || (keyless && record.status.trim() !== "")) out.push(record);
    }
    return out;
  }

  /** A log table (the live one or a year's) with its layout by header name; missing add-in columns appended; created when asked. */
  private openLog(tableName: string, sheetName: string, create: boolean): { table: MemoryTable; layout: LogLayout } | null {
    let table = this.tables.get(tableName);
    if (!table) {
      if (!create) return null;
      if (!this.sheets.has(sheetName)) this.sheets.set(sheetName, newSheet());
      const sheet = this.sheetOf(sheetName);
      LOG_HEADERS.forEach((h, i) => setCell(sheet.cells, 0, i, h));
      LOG_COLUMNS.forEach((c, i) => {
        sheet.columnFormats.set(i, c.numberFormat);
        sheet.columnWidths.set(i, c.width);
      });
      table = { name: tableName, sheet: sheetName, rect: { top: 0, left: 0, bottom: 0, right: LOG_COLUMNS.length - 1 } };
      this.tables.set(tableName, table);
      this.changed();
    }
    const sheet = this.sheetOf(table.sheet);
    let layout = layoutOf(this.rowValues(sheet, table.rect.top, table.rect.left, table.rect.right));
    if (layout.missing.length > 0) {
      // Added at the table's end by name, with format and width; the user's columns stay where they are.
      layout.missing.forEach((column, i) => {
        const c = table.rect.right + 1 + i;
        setCell(sheet.cells, table.rect.top, c, column.header);
        sheet.columnFormats.set(c, column.numberFormat);
        sheet.columnWidths.set(c, column.width);
      });
      table.rect = { ...table.rect, right: table.rect.right + layout.missing.length };
      layout = withAppended(layout);
    }
    return { table, layout };
  }

  private appendRows(log: { table: MemoryTable; layout: LogLayout }, rows: ReadonlyArray<ReadonlyMap<Field, CellValue>>): void {
    if (rows.length === 0) return;
    const at = log.table.rect.bottom + 1;
    log.table.rect = { ...log.table.rect, bottom: log.table.rect.bottom + rows.length };
    this.writeFields(log, at, rows);
  }

  /** The safe write of some fields for consecutive rows from sheet row `row`, one block per run of adjacent columns. */
  private writeFields(
    log: { table: MemoryTable; layout: LogLayout },
    row: number,
    rows: ReadonlyArray<ReadonlyMap<Field, CellValue>>,
  ): void {
    const fields = new Set<Field>();
    for (const r of rows) for (const f of r.keys()) fields.add(f);
    for (const run of columnRuns(log.layout, [...fields])) {
      const values = rows.map((r) => run.fields.map((f) => (r.has(f) ? r.get(f)! : "")));
      this.writeSafe(
        log.table.sheet,
        row,
        log.table.rect.left + run.left,
        values,
        run.fields.map((f) => columnOf(f).numberFormat),
      );
    }
  }
}

function headerText(v: CellValue): string {
  return v === null ? "" : String(v).trim();
}
