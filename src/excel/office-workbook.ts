// The Workbook adapter over Office.js (Excel.run): reads what the user selected and sees, and keeps the "Hedge Log" table by header name, every log call in one queue (inTurn) over one remembered key-to-row index; a log table within a batch is office-log-table.ts, the archive office-log-archive.ts, the layout, chunking and Approvals sheet their own files.
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
  LOG_SHEET_NAME,
  LOG_TABLE_NAME,
  matchesLogQuery,
  type LogArchiveRequest,
  type LogArchiveResult,
  type LogQuery,
  type LogRecord,
  type LogUpdate,
  type LogUpdateResult,
} from "../trading/log/hedge-log";
import { BYTES_PER_RANGE, DEFAULT_LIMITS, ReadSizer, packByBytes, readSpans, spansOf, type ChunkLimits } from "./chunks";
import { fieldCells, keyText, recordFromRow, updatedFields } from "./log-layout";
import { dedupeByKey } from "./log-archive";
import {
  ALL_FIELDS,
  isBlankRow,
  openLogTable,
  queueRows,
  readArchives,
  readFields,
  readLogTableRows,
  readRecords,
  rowBytes,
  type Field,
  type LogTable,
} from "./office-log-table";
import { moveToArchive, planLogArchive } from "./office-log-archive";
import { readSelectedRows } from "./office-selection";
import { appendApprovalLines, readApprovalLines, writeApprovalDecision } from "./approvals-sheet";
import type { BlockStatus } from "../trading/approvals/block";
import type { ApprovalDecision } from "../trading/approvals/decision";

type ExcelApi = Pick<typeof Excel, "run">;

/** Every batch waits for the user to leave cell-edit mode instead of failing (journal updates and fills run in the background). */
const RUN_OPTIONS: Excel.RunOptions = { delayForCellEdit: true };

interface OfficeWorkbookOptions {
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

  setApprovalStatus(batchId: string, from: readonly BlockStatus[], decision: ApprovalDecision): Promise<void> {
    return this.inTurn((context) => writeApprovalDecision(context, this.limits, batchId, from, decision));
  }

  ensureLog(): Promise<void> {
    return this.inTurn(async (context) => {
      await openLogTable(context, "create");
    });
  }

  readLog(query?: LogQuery): Promise<LogRecord[]> {
    return this.inTurn(async (context) => {
      const log = await openLogTable(context, "read");
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
      return readRecords(context, log, matching, this.limits, { keyless: true });
    });
  }

  readLogRows(): Promise<PlacedLogRow[]> {
    return this.inTurn(async (context) => this.readEveryRow(context, await openLogTable(context, "read")));
  }

  /** The year sheets' rows (oldest first) then the log's, chunked, each key once (see dedupeByKey). */
  private async readEveryRow(context: Excel.RequestContext, log: LogTable | null): Promise<PlacedLogRow[]> {
    const archived = await readArchives(context, this.limits);
    const live = log ? await readLogTableRows(context, log, LOG_SHEET_NAME, this.limits) : [];
    return dedupeByKey(archived, live, (r) => r.record.idempotencyKey);
  }

  readLastLogRecord(): Promise<LogRecord | null> {
    return this.inTurn(async (context) => {
      const log = await openLogTable(context, "read");
      if (!log || log.rows === 0) return null;
      const [record] = await readRecords(context, log, [log.rows - 1], this.limits, { keyless: true, chained: true });
      return record ?? null;
    });
  }

  appendLog(records: LogRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    return this.inTurn(async (context) => {
      const log = (await openLogTable(context, "create"))!;
      let at = log.rows;
      // A new table has one empty body row: fill it instead of leaving a gap.
      if (log.rows === 1 && (await isBlankRow(context, log, 0, this.limits))) at = 0;
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
        queueRows(log, at, chunk, ALL_FIELDS);
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
      const log = await openLogTable(context, "columns");
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
        for (const block of group) queueRows(log, block.row, block.rows, block.fields);
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
      const log = (await openLogTable(context, "create"))!;
      log.sheet.activate();
      await context.sync();
    });
  }

  archiveLog(request: LogArchiveRequest): Promise<LogArchiveResult> {
    return this.inTurn(async (context) => {
      const log = await openLogTable(context, "columns");
      if (!log) return { total: 0, byYear: {}, kept: 0, sheets: [] };
      const { plan, keys } = await planLogArchive(context, request, (fields) => this.readFields(context, log, fields));
      if (request.dryRun || plan.moves.length === 0) return plan.result;
      this.rowOfKey.clear();
      await moveToArchive(context, log, plan.moves, keys, request, this.limits);
      return plan.result;
    });
  }

  // ---- internals ----

  /** Some columns of the live log's body rows (office-log-table.ts's readFields); the keys read are remembered where they are. */
  private async readFields(context: Excel.RequestContext, log: LogTable, fields: readonly Field[]): Promise<Map<Field, CellValue[]>> {
    const out = await readFields(context, log, fields, this.limits);
    if (log.name === LOG_TABLE_NAME && fields.includes("idempotencyKey")) {
      // The live log's keys just read: remember where each is.
      this.rowOfKey.clear();
      out.get("idempotencyKey")!.forEach((k, i) => k !== "" && this.rowOfKey.set(String(k), i));
    }
    return out;
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
}
