// The Workbook adapter over Office.js (Excel.run): reads what the user selected and sees, and keeps the "Hedge Log" table by header name, every read and write chunked and bounded by the work, not by the log's size. Over 600 lines because every log call takes its turn in one queue (inTurn) over one remembered key-to-row index, which the calls share; the layout, chunking, archive plan and Approvals sheet are their own files.
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
import {
  BYTES_PER_RANGE,
  DEFAULT_LIMITS,
  ReadSizer,
  jsonBytes,
  packByBytes,
  readBlocks,
  readSpans,
  spansOf,
  type Block,
  type ChunkLimits,
} from "./chunks";
import {
  columnOf,
  columnRuns,
  fieldCells,
  fieldSpan,
  keyText,
  layoutOf,
  recordFromRow,
  updatedFields,
  withAppended,
  type LogLayout,
} from "./log-layout";
import {
  archiveYears,
  dedupeByKey,
  holdsAnything,
  isArchivable,
  planArchive,
  type ArchiveCandidate,
  type ArchiveMove,
} from "./log-archive";
import { readSelectedRows } from "./office-selection";
import { appendApprovalLines, readApprovalLines, writeApprovalDecision } from "./approvals-sheet";
import type { ApprovalStatus } from "../trading/approvals/block";
import type { ApprovalDecision } from "../trading/approvals/decision";
import { queueSafeWrite } from "./safe-cells";

type ExcelApi = Pick<typeof Excel, "run">;
type Field = keyof LogRecord;

/** Every batch waits for the user to leave cell-edit mode instead of failing (journal updates and fills run in the background). */
const RUN_OPTIONS: Excel.RunOptions = { delayForCellEdit: true };
const ALL_FIELDS: readonly Field[] = LOG_COLUMNS.map((c) => c.field);

/** A log table as found in this batch: where its body starts, how many rows, and where each add-in column is (by header name). */
interface LogTable {
  table: Excel.Table;
  sheet: Excel.Worksheet;
  name: string;
  /** 0-based sheet row of the first body row, and sheet column of the table's first column. */
  top: number;
  left: number;
  /** Body rows (a new table's one empty row included). */
  rows: number;
  layout: LogLayout;
}

/** An archive year's table and the keys it holds. */
interface ArchiveTarget {
  log: LogTable;
  keys: Set<string>;
}

export interface OfficeWorkbookOptions {
  /** What one sync may carry; tests shrink it to see chunk boundaries. */
  limits?: ChunkLimits;
}

export class OfficeWorkbook implements Workbook, ApprovalsSheet {
  /** Body row of each idempotency key, as last seen; checked against the sheet before each use, rebuilt when it is stale. */
  private rowOfKey = new Map<string, number>();
  private readonly limits: ChunkLimits;
  /** The log calls in order: one runs at a time (see `inTurn`). */
  private turn: Promise<unknown> = Promise.resolve();
  private identityRead: Promise<WorkbookIdentity> | null = null;

  /** `excel` is the global Excel namespace in the add-in; tests pass an office-addin-mock object or Microsoft's serializer. */
  constructor(
    private readonly excel: ExcelApi = Excel,
    options: OfficeWorkbookOptions = {},
  ) {
    this.limits = options.limits ?? DEFAULT_LIMITS;
  }

  private run<T>(batch: (context: Excel.RequestContext) => Promise<T>): Promise<T> {
    return this.excel.run(RUN_OPTIONS, batch);
  }

  /**
   * A log call, run after every log call made before it has ended. Batches of Excel.run interleave at each sync, and a
   * log call finds rows in one sync and writes or reads them in later ones: an archive removing rows, or an append
   * growing the table, in between would send a fill to another row, lose an appended row or skip rows of a read.
   */
  private inTurn<T>(batch: (context: Excel.RequestContext) => Promise<T>): Promise<T> {
    const result = this.turn.then(() => this.run(batch));
    this.turn = result.catch(() => undefined);
    return result;
  }

  readSelection(): Promise<SelectedRows> {
    return this.run((context) => readSelectedRows(context, new ReadSizer(this.limits), new ReadSizer(this.limits)));
  }

  // ---- the Approvals sheet (src/excel/approvals-sheet.ts), one call at a time with the log's ----

  readApprovals(batchId?: string): Promise<SheetRow[]> {
    return this.inTurn((context) => readApprovalLines(context, this.limits, batchId));
  }

  appendApproval(lines: CellValue[][]): Promise<void> {
    return this.inTurn((context) => appendApprovalLines(context, this.limits, lines));
  }

  setApprovalStatus(batchId: string, from: readonly ApprovalStatus[], decision: ApprovalDecision): Promise<void> {
    return this.inTurn((context) => writeApprovalDecision(context, this.limits, batchId, from, decision));
  }

  ensureLog(): Promise<void> {
    return this.inTurn(async (context) => {
      await this.openLog(context, "create");
    });
  }

  readLog(query?: LogQuery): Promise<LogRecord[]> {
    return this.inTurn(async (context) => {
      const log = await this.openLog(context, "read");
      if (!query) return journalRecords(await this.readEveryRow(context, log)); // month end: the archived years first (oldest)
      if (!log) return [];
      const fields: Field[] = ["idempotencyKey"];
      if (query.statusNotIn) fields.push("status");
      if (query.loggedSince !== undefined) fields.push("loggedAt");
      const columns = await this.readFields(context, log, fields);
      const keys = columns.get("idempotencyKey")!;
      const matching: number[] = [];
      const statuses = columns.get("status");
      keys.forEach((key, row) => {
        // A row without its key is no journal row the add-in can update or send; an unfinished one is still returned to a
        // query for unfinished rows, so that the pane shows it to the user (never sends it). A blank row never is.
        if (key === "" && !(query.statusNotIn && statuses && String(statuses[row] ?? "").trim() !== "")) return;
        const probe = recordFromRow(
          fields.map((f) => columns.get(f)![row]),
          { index: new Map(fields.map((f, i) => [f, i])), missing: [], width: fields.length },
        );
        if (matchesLogQuery(probe, query)) matching.push(row);
      });
      return this.readRecords(context, log, matching, { keyless: true });
    });
  }

  readLogRows(): Promise<PlacedLogRow[]> {
    return this.inTurn(async (context) => this.readEveryRow(context, await this.openLog(context, "read")));
  }

  /** The year sheets' rows (oldest first) then the log's, chunked, each key once (see dedupeByKey). */
  private async readEveryRow(context: Excel.RequestContext, log: LogTable | null): Promise<PlacedLogRow[]> {
    const archived = await this.readArchives(context);
    const live = log ? await this.readLogTableRows(context, log, LOG_SHEET_NAME) : [];
    return dedupeByKey(archived, live, (r) => r.record.idempotencyKey);
  }

  readLastLogRecord(): Promise<LogRecord | null> {
    return this.inTurn(async (context) => {
      const log = await this.openLog(context, "read");
      if (!log || log.rows === 0) return null;
      const [record] = await this.readRecords(context, log, [log.rows - 1], { keyless: true, chained: true });
      return record ?? null;
    });
  }

  appendLog(records: LogRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    return this.inTurn(async (context) => {
      const log = (await this.openLog(context, "create"))!;
      let at = log.rows;
      // A new table has one empty body row: fill it instead of leaving a gap.
      if (log.rows === 1 && (await this.isBlankRow(context, log, 0))) at = 0;
      const rows = records.map((r) => fieldCells(r, ALL_FIELDS));
      let ghost = at === 0 && log.rows === 1;
      const chunks = packByBytes(rows, (r) => rowBytes(r) + 3 * log.layout.width, this.limits);
      for (const chunk of chunks) {
        const add = ghost ? chunk.length - 1 : chunk.length;
        // Rows are added empty, then formatted, then filled: text typed into a General cell would be re-read by Excel.
        if (add > 0)
          log.table.rows.add(
            undefined,
            Array.from({ length: add }, () => Array.from({ length: log.layout.width }, () => "")),
          );
        this.queueRows(log, at, chunk, ALL_FIELDS);
        await context.sync();
        chunk.forEach((cells, i) => this.rowOfKey.set(String(cells.get("idempotencyKey") ?? ""), at + i));
        at += chunk.length;
        log.rows = Math.max(log.rows, at);
        ghost = false;
      }
    });
  }

  updateLog(updates: LogUpdate[]): Promise<LogUpdateResult> {
    if (updates.length === 0) return Promise.resolve({ missing: [] });
    return this.inTurn(async (context) => {
      const log = await this.openLog(context, "columns");
      if (!log) throw new Error(`The ${LOG_SHEET_NAME} table is missing, so its rows cannot be updated.`);
      const rowOf = await this.locate(
        context,
        log,
        updates.map((u) => u.idempotencyKey),
      );
      const missing: string[] = [];
      // The later update of a key wins, as when they were written one after the other.
      const byRow = new Map<number, { row: number; fields: Field[]; cells: Map<Field, CellValue> }>();
      for (const update of updates) {
        const row = rowOf.get(update.idempotencyKey);
        if (row === undefined) {
          missing.push(update.idempotencyKey); // a deleted row or an edited key: skip it, write the others
          continue;
        }
        const cells = fieldCells(update, updatedFields(update));
        const before = byRow.get(row);
        const merged = new Map([...(before?.cells ?? []), ...cells]);
        byRow.set(row, { row, fields: [...merged.keys()], cells: merged });
      }
      // Consecutive rows setting the same fields are written as one block per run of adjacent columns.
      const sorted = [...byRow.values()].sort((a, b) => a.row - b.row);
      const blocks: Array<{ row: number; fields: Field[]; rows: Array<Map<Field, CellValue>>; bytes: number }> = [];
      for (const u of sorted) {
        const bytes = rowBytes(u.cells);
        const last = blocks[blocks.length - 1];
        if (
          last &&
          last.row + last.rows.length === u.row &&
          last.fields.join(",") === u.fields.join(",") &&
          last.rows.length < this.limits.maxRows &&
          last.bytes + bytes <= this.limits.budgetBytes
        ) {
          last.rows.push(u.cells);
          last.bytes += bytes;
        } else blocks.push({ row: u.row, fields: u.fields, rows: [u.cells], bytes });
      }
      const syncs = packByBytes(blocks, (b) => b.bytes + BYTES_PER_RANGE * (1 + 2 * b.fields.length), this.limits);
      for (const group of syncs) {
        for (const block of group) this.queueRows(log, block.row, block.rows, block.fields);
        await context.sync();
      }
      return { missing };
    });
  }

  /** Reads (once a session) or writes the workbook's id property, and its name; see WorkbookIdentity. */
  identity(): Promise<WorkbookIdentity> {
    this.identityRead ??= this.run(async (context) => {
      const properties = context.workbook.properties.custom;
      const property = properties.getItemOrNullObject(WORKBOOK_ID_PROPERTY);
      property.load("value");
      context.workbook.load("name");
      await context.sync();
      let id = property.isNullObject ? "" : String(property.value ?? "");
      const fresh = !id;
      if (fresh) {
        properties.add(WORKBOOK_ID_PROPERTY, (id = newWorkbookId()));
        await context.sync();
      }
      return { id, name: context.workbook.name || null, fresh };
    }).catch((e: unknown) => {
      this.identityRead = null; // asked again next time
      throw e;
    });
    return this.identityRead;
  }

  showLog(): Promise<void> {
    return this.inTurn(async (context) => {
      const log = (await this.openLog(context, "create"))!;
      log.sheet.activate();
      await context.sync();
    });
  }

  archiveLog(request: LogArchiveRequest): Promise<LogArchiveResult> {
    return this.inTurn(async (context) => {
      const log = await this.openLog(context, "columns");
      if (!log) return { total: 0, byYear: {}, kept: 0, sheets: [] };
      const { plan, keys } = await this.planArchive(context, log, request);
      if (request.dryRun || plan.moves.length === 0) return plan.result;
      this.rowOfKey.clear();
      const targets = await this.openArchiveTargets(context, plan.moves);
      await this.moveRows(context, log, plan.moves, keys, targets, request);
      return plan.result;
    });
  }

  // ---- the archive's phases ----

  /** Which rows move to which year, from the key, status and time columns alone; and every body row's key (to check each row before it moves). */
  private async planArchive(
    context: Excel.RequestContext,
    log: LogTable,
    request: LogArchiveRequest,
  ): Promise<{ plan: ReturnType<typeof planArchive>; keys: string[] }> {
    const columns = await this.readFields(context, log, ["idempotencyKey", "status", "loggedAt"]);
    const keys = columns.get("idempotencyKey")!.map(String);
    const candidates: ArchiveCandidate[] = keys.map((key, row) => ({
      row,
      key,
      status: String(columns.get("status")![row] ?? ""),
      loggedAt: columns.get("loggedAt")![row],
    }));
    const newestYear = (await this.archiveYearsPresent(context)).pop() ?? null;
    return { plan: planArchive(candidates, request, newestYear), keys };
  }

  /** The year sheets, created when missing, and the keys they already hold (an archive cut short is resumed, never doubled). */
  private async openArchiveTargets(context: Excel.RequestContext, moves: readonly ArchiveMove[]): Promise<Map<number, ArchiveTarget>> {
    const targets = new Map<number, ArchiveTarget>();
    for (const year of archiveYears(moves)) {
      const target = (await this.openLog(context, "create", year))!;
      const held = await this.readFields(context, target, ["idempotencyKey"]);
      const keys = new Set(
        held
          .get("idempotencyKey")!
          .map(String)
          .filter((k) => k !== ""),
      );
      if (target.rows === 1 && (await this.isBlankRow(context, target, 0))) target.rows = 0;
      targets.set(year, { log: target, keys });
    }
    return targets;
  }

  /**
   * The rows planned, chunk by chunk: each chunk read where its rows are now that earlier chunks are gone and checked to be
   * still the rows planned, copied to its year's sheet, then removed (copy first: a run stopped in between leaves a row in
   * both places, never in neither).
   */
  private async moveRows(
    context: Excel.RequestContext,
    log: LogTable,
    moves: readonly ArchiveMove[],
    keys: readonly string[],
    targets: ReadonlyMap<number, ArchiveTarget>,
    request: LogArchiveRequest,
  ): Promise<void> {
    const span = fieldSpan(log.layout)!;
    const width = span.right - span.left + 1;
    const yearOf = new Map(moves.map((m) => [m.row, m.year]));
    let removed = 0;
    const chunks = readSpans(
      context,
      log.sheet,
      spansOf(moves.map((m) => m.row)),
      log.left + span.left,
      width,
      new ReadSizer(this.limits),
      (start) => log.top + start - removed,
    );
    for await (const chunk of chunks) {
      const byYear = new Map<number, Array<Map<Field, CellValue>>>();
      for (const { span: s, values } of chunk) {
        values.forEach((row, i) => {
          const record = recordFromRow(row, log.layout, span.left);
          if (record.idempotencyKey !== keys[s.start + i] || !isArchivable(record, request)) {
            throw new Error(
              `The ${LOG_SHEET_NAME} changed while archiving (row ${log.top + s.start - removed + i + 1} is not the row planned): ` +
                `${removed} rows were archived, nothing else moved. Run Archive again.`,
            );
          }
          const year = yearOf.get(s.start + i)!;
          const target = targets.get(year)!;
          if (target.keys.has(record.idempotencyKey)) return; // copied by an earlier run that stopped before removing it
          target.keys.add(record.idempotencyKey);
          const list = byYear.get(year) ?? [];
          list.push(copyCells(row, log.layout, span.left));
          byYear.set(year, list);
        });
      }
      for (const [year, rows] of byYear) this.queueArchiveRows(targets.get(year)!.log, rows);
      if (byYear.size > 0) await context.sync();
      for (const { span: s } of [...chunk].reverse()) {
        log.sheet
          .getRangeByIndexes(log.top + s.start - removed, log.left, s.count, log.layout.width)
          .untrack()
          .delete("Up");
      }
      await context.sync();
      removed += chunk.reduce((n, c) => n + c.span.count, 0);
      request.onProgress?.(removed, moves.length);
    }
  }

  /** Queues rows appended to an archive year's table (filling a new table's empty first row). */
  private queueArchiveRows(target: LogTable, rows: ReadonlyArray<ReadonlyMap<Field, CellValue>>): void {
    const add = target.rows === 0 ? rows.length - 1 : rows.length;
    if (add > 0)
      target.table.rows.add(
        undefined,
        Array.from({ length: add }, () => Array.from({ length: target.layout.width }, () => "")),
      );
    this.queueRows(target, target.rows, rows, ALL_FIELDS);
    target.rows += rows.length;
  }

  // ---- internals ----

  /**
   * The log table (or an archive year's), its body's place and size and its layout by header name. "read" never writes;
   * "columns" appends the add-in columns the table lacks; "create" also creates the table when missing.
   */
  private async openLog(context: Excel.RequestContext, mode: "read" | "columns" | "create", year?: number): Promise<LogTable | null> {
    const tableName = year === undefined ? LOG_TABLE_NAME : archiveTableName(year);
    const sheetName = year === undefined ? LOG_SHEET_NAME : archiveSheetName(year);
    let table = context.workbook.tables.getItemOrNullObject(tableName).load("isNullObject");
    const sheetOrNull = context.workbook.worksheets.getItemOrNullObject(sheetName).load("isNullObject");
    await context.sync();
    if (table.isNullObject) {
      if (mode !== "create") return null;
      this.createTable(sheetOrNull.isNullObject ? context.workbook.worksheets.add(sheetName) : sheetOrNull, tableName);
      await context.sync();
      // Found again by name: an object made by add() is only good within the sync that made it.
      table = context.workbook.tables.getItem(tableName);
    }
    const sheet = table.worksheet;
    const header = table.getHeaderRowRange().load("values,rowIndex,columnIndex");
    const body = table.getDataBodyRange().load("rowCount");
    await context.sync();
    let layout = layoutOf(header.values[0]);
    if (layout.missing.length > 0 && mode !== "read") {
      // Added at the table's end by name, with width and format; the user's columns and order are left as they are.
      const first = layout.width;
      layout.missing.forEach((column, i) => {
        table.columns.add(undefined, undefined, column.header);
        sheet.getRangeByIndexes(0, header.columnIndex + first + i, 1, 1).getEntireColumn().format.columnWidth = column.width;
        sheet.getRangeByIndexes(header.rowIndex + 1, header.columnIndex + first + i, body.rowCount, 1).numberFormat =
          column.numberFormat as unknown as string[][];
      });
      await context.sync();
      layout = withAppended(layout);
    }
    return { table, sheet, name: tableName, top: header.rowIndex + 1, left: header.columnIndex, rows: body.rowCount, layout };
  }

  /** A new log table: headers by name, widths, per-column number formats, the header row frozen. */
  private createTable(sheet: Excel.Worksheet, name: string): void {
    queueSafeWrite(
      sheet,
      0,
      0,
      [[...LOG_HEADERS]],
      LOG_HEADERS.map(() => "@"),
    );
    const table = sheet.tables.add(sheet.getRangeByIndexes(0, 0, 1, LOG_COLUMNS.length), true);
    table.name = name;
    LOG_COLUMNS.forEach((column, i) => {
      sheet.getRangeByIndexes(0, i, 1, 1).untrack().getEntireColumn().untrack().format.columnWidth = column.width;
      // The new table's one body row: the column's format, which Excel carries to the rows added under it.
      sheet.getRangeByIndexes(1, i, 1, 1).untrack().numberFormat = [[column.numberFormat]];
    });
    sheet.freezePanes.freezeRows(1);
  }

  /** Whether a body row holds nothing in the add-in's columns (read by the same byte-sized rule: the row may hold long text). */
  private async isBlankRow(context: Excel.RequestContext, log: LogTable, row: number): Promise<boolean> {
    const span = fieldSpan(log.layout);
    if (!span) return true;
    const width = span.right - span.left + 1;
    const sizer = new ReadSizer(this.limits);
    for await (const chunk of readSpans(
      context,
      log.sheet,
      [{ start: row, count: 1 }],
      log.left + span.left,
      width,
      sizer,
      (s) => log.top + s,
    )) {
      return chunk[0].values[0].every((v) => v === "" || v === null);
    }
    return true;
  }

  /** Queues the cells of some fields for consecutive body rows from `row`: one safe write per run of adjacent columns. */
  private queueRows(log: LogTable, row: number, rows: ReadonlyArray<ReadonlyMap<Field, CellValue>>, fields: readonly Field[]): void {
    const written = new Set<Field>(fields);
    for (const r of rows) for (const f of r.keys()) written.add(f); // a problem adds the Message cell
    for (const run of columnRuns(log.layout, [...written])) {
      const values = rows.map((r) => run.fields.map((f) => (r.has(f) ? r.get(f)! : "")));
      const formats = run.fields.map((f) => columnOf(f).numberFormat);
      queueSafeWrite(log.sheet, log.top + row, log.left + run.left, values, formats);
    }
  }

  /** Some columns of every body row, read in chunks (keys as text; a column the table lacks reads as empty). */
  private async readFields(context: Excel.RequestContext, log: LogTable, fields: readonly Field[]): Promise<Map<Field, CellValue[]>> {
    // A column the table lacks reads as empty.
    const out = new Map<Field, CellValue[]>(fields.map((f) => [f, Array.from({ length: log.rows }, (): CellValue => "")]));
    const columns = fields
      .filter((f) => log.layout.index.has(f))
      .map((field) => ({ field, row: 0, column: log.layout.index.get(field)!, rows: log.rows, columns: 1 }));
    const place = (b: Block) => ({ row: log.top + b.row, column: log.left + b.column });
    const chunks = log.rows > 0 ? readBlocks(context, log.sheet, columns, ["values"], new ReadSizer(this.limits), place) : [];
    for await (const reads of chunks) {
      for (const { block, range } of reads) {
        const list = out.get(block.field)!;
        (range.values as CellValue[][]).forEach(([v], i) => (list[block.row + i] = block.field === "idempotencyKey" ? keyText(v) : v));
      }
    }
    if (log.name === LOG_TABLE_NAME && fields.includes("idempotencyKey")) {
      // The live log's keys just read: remember where each is.
      this.rowOfKey.clear();
      out.get("idempotencyKey")!.forEach((k, i) => k !== "" && this.rowOfKey.set(String(k), i));
    }
    return out;
  }

  /**
   * The records of the given body rows, consecutive rows read together, in chunks. Rows without a key are not journal rows:
   * left out unless `keyless` (then only those with a status) or `chained` (then those with a Row hash too).
   */
  private async readRecords(
    context: Excel.RequestContext,
    log: LogTable,
    rows: readonly number[],
    options: { keyless?: boolean; chained?: boolean } = {},
  ): Promise<LogRecord[]> {
    const placed = await this.readPlaced(
      context,
      log,
      rows,
      (r) => r.idempotencyKey.trim() !== "" || (!!options.keyless && r.status.trim() !== "") || (!!options.chained && !!r.rowHash),
    );
    return placed.map((p) => p.record);
  }

  /** The given body rows that `keep`, each with its sheet and 1-based sheet row; consecutive rows read together, in chunks. */
  private async readPlaced(
    context: Excel.RequestContext,
    log: LogTable,
    rows: readonly number[],
    keep: (record: LogRecord) => boolean,
  ): Promise<Array<{ bodyRow: number; record: LogRecord }>> {
    const span = fieldSpan(log.layout);
    if (!span || rows.length === 0) return [];
    const width = span.right - span.left + 1;
    const placed: Array<{ bodyRow: number; record: LogRecord }> = [];
    const chunks = readSpans(
      context,
      log.sheet,
      spansOf(rows),
      log.left + span.left,
      width,
      new ReadSizer(this.limits),
      (start) => log.top + start,
    );
    for await (const chunk of chunks) {
      for (const { span: s, values } of chunk) {
        values.forEach((row, i) => {
          const record = recordFromRow(row, log.layout, span.left);
          if (keep(record)) placed.push({ bodyRow: s.start + i, record });
        });
      }
    }
    return placed;
  }

  /** Every row of a log table that holds anything, with its sheet and 1-based sheet row (month end's chain). */
  private async readLogTableRows(context: Excel.RequestContext, log: LogTable, sheet: string): Promise<PlacedLogRow[]> {
    const placed = await this.readPlaced(context, log, allRows(log), holdsAnything);
    return placed.map(({ bodyRow, record }) => ({ sheet, rowNumber: log.top + bodyRow + 1, record }));
  }

  /** Body rows of the given keys: the remembered rows when the sheet still holds those keys there, else one scan of the key column. */
  private async locate(context: Excel.RequestContext, log: LogTable, keys: readonly string[]): Promise<Map<string, number>> {
    const known = keys.map((k) => this.rowOfKey.get(k));
    if (known.every((r): r is number => r !== undefined && r < log.rows) && log.layout.index.has("idempotencyKey")) {
      const column = log.left + log.layout.index.get("idempotencyKey")!;
      const seen = new Map<number, string>();
      const chunks = readSpans(context, log.sheet, spansOf(known, 16), column, 1, new ReadSizer(this.limits), (start) => log.top + start);
      for await (const chunk of chunks) {
        for (const { span: s, values } of chunk) values.forEach(([v], i) => seen.set(s.start + i, keyText(v)));
      }
      if (keys.every((k, i) => seen.get(known[i]!) === k)) return new Map(keys.map((k, i) => [k, known[i]!]));
    }
    // Stale (rows sorted, inserted or deleted) or unknown: read the key column once.
    await this.readFields(context, log, ["idempotencyKey"]);
    const found = new Map<string, number>();
    for (const k of keys) {
      const r = this.rowOfKey.get(k);
      if (r !== undefined) found.set(k, r);
    }
    return found;
  }

  /** The years of the "Hedge Log YYYY" sheets there, oldest first. */
  private async archiveYearsPresent(context: Excel.RequestContext): Promise<number[]> {
    const sheets = context.workbook.worksheets.load("items/name");
    await context.sync();
    return sheets.items
      .map((s) => /^Hedge Log (\d{4})$/.exec(s.name))
      .filter((m): m is RegExpExecArray => m !== null && archiveSheetName(Number(m[1])) === m[0])
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
  }

  /** Every row of the "Hedge Log YYYY" sheets that holds anything, oldest year first, where it stands. */
  private async readArchives(context: Excel.RequestContext): Promise<PlacedLogRow[]> {
    const out: PlacedLogRow[] = [];
    for (const year of await this.archiveYearsPresent(context)) {
      const log = await this.openLog(context, "read", year);
      if (log) out.push(...(await this.readLogTableRows(context, log, archiveSheetName(year))));
    }
    return out;
  }
}

const allRows = (log: LogTable) => Array.from({ length: log.rows }, (_, i) => i);

/** A row's JSON weight as written. */
function rowBytes(cells: ReadonlyMap<Field, CellValue>): number {
  return jsonBytes([...cells.values()]);
}

/** A log row as read (from table column `offset`) into cells by field, for copying to an archive sheet as it stands. */
function copyCells(row: readonly CellValue[], layout: LogLayout, offset: number): Map<Field, CellValue> {
  const cells = new Map<Field, CellValue>();
  for (const [field, i] of layout.index) cells.set(field, row[i - offset] ?? "");
  return cells;
}
