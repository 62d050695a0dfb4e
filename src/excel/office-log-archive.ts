// The Hedge Log's archive over Office.js, within one Excel.run batch: which rows move (from the key, status and time columns alone), the year sheets opened, and the rows copied then removed chunk by chunk, each checked to be still the row planned.
import type { CellValue } from "../trading/cells";
import { LOG_SHEET_NAME, type LogArchiveRequest } from "../trading/log/hedge-log";
import { ReadSizer, readSpans, spansOf, type ChunkLimits } from "./chunks";
import { fieldSpan, recordFromRow, type LogLayout } from "./log-layout";
import { archiveYears, isArchivable, planArchive, type ArchiveCandidate, type ArchiveMove } from "./log-archive";
import {
  ALL_FIELDS,
  archiveYearsPresent,
  isBlankRow,
  openLogTable,
  queueRows,
  readFields,
  type Field,
  type LogTable,
} from "./office-log-table";

/** An archive year's table and the keys it holds. */
interface ArchiveTarget {
  log: LogTable;
  keys: Set<string>;
}

/**
 * Which rows move to which year, from the key, status and time columns alone (read by `readLive`, the workbook's reader
 * of the live log, which remembers where each key is); and every body row's key (to check each row before it moves).
 */
export async function planLogArchive(
  context: Excel.RequestContext,
  request: LogArchiveRequest,
  readLive: (fields: readonly Field[]) => Promise<Map<Field, CellValue[]>>,
): Promise<{ plan: ReturnType<typeof planArchive>; keys: string[] }> {
  const columns = await readLive(["idempotencyKey", "status", "loggedAt"]);
  const keys = columns.get("idempotencyKey")!.map(String);
  const candidates: ArchiveCandidate[] = keys.map((key, row) => ({
    row,
    key,
    status: String(columns.get("status")![row] ?? ""),
    loggedAt: columns.get("loggedAt")![row],
  }));
  const newestYear = (await archiveYearsPresent(context)).pop() ?? null;
  return { plan: planArchive(candidates, request, newestYear), keys };
}

/** The planned rows moved to their year sheets (opened, or created when missing). */
export async function moveToArchive(
  context: Excel.RequestContext,
  log: LogTable,
  moves: readonly ArchiveMove[],
  keys: readonly string[],
  request: LogArchiveRequest,
  limits: ChunkLimits,
): Promise<void> {
  const targets = await openArchiveTargets(context, moves, limits);
  await moveRows(context, log, moves, keys, targets, request, limits);
}

/** The year sheets, created when missing, and the keys they already hold (an archive cut short is resumed, never doubled). */
async function openArchiveTargets(
  context: Excel.RequestContext,
  moves: readonly ArchiveMove[],
  limits: ChunkLimits,
): Promise<Map<number, ArchiveTarget>> {
  const targets = new Map<number, ArchiveTarget>();
  for (const year of archiveYears(moves)) {
    const target = (await openLogTable(context, "create", year))!;
    const held = await readFields(context, target, ["idempotencyKey"], limits);
    const keys = new Set(
      held
        .get("idempotencyKey")!
        .map(String)
        .filter((k) => k !== ""),
    );
    if (target.rows === 1 && (await isBlankRow(context, target, 0, limits))) target.rows = 0;
    targets.set(year, { log: target, keys });
  }
  return targets;
}

/**
 * The rows planned, chunk by chunk: each chunk read where its rows are now that earlier chunks are gone and checked to be
 * still the rows planned, copied to its year's sheet, then removed (copy first: a run stopped in between leaves a row in
 * both places, never in neither).
 */
async function moveRows(
  context: Excel.RequestContext,
  log: LogTable,
  moves: readonly ArchiveMove[],
  keys: readonly string[],
  targets: ReadonlyMap<number, ArchiveTarget>,
  request: LogArchiveRequest,
  limits: ChunkLimits,
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
    new ReadSizer(limits),
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
    for (const [year, rows] of byYear) queueArchiveRows(targets.get(year)!.log, rows);
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
function queueArchiveRows(target: LogTable, rows: ReadonlyArray<ReadonlyMap<Field, CellValue>>): void {
  const add = target.rows === 0 ? rows.length - 1 : rows.length;
  if (add > 0)
    target.table.rows.add(
      undefined,
      Array.from({ length: add }, () => Array.from({ length: target.layout.width }, () => "")),
    );
  queueRows(target, target.rows, rows, ALL_FIELDS);
  target.rows += rows.length;
}

/** A log row as read (from table column `offset`) into cells by field, for copying to an archive sheet as it stands. */
function copyCells(row: readonly CellValue[], layout: LogLayout, offset: number): Map<Field, CellValue> {
  const cells = new Map<Field, CellValue>();
  for (const [field, i] of layout.index) cells.set(field, row[i - offset] ?? "");
  return cells;
}
