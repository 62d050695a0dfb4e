// Reads what the user selected and sees through Office.js: the areas of the selection, their table (intersected, not taken whole), only the visible rows, in chunks.
import type { CellValue } from "../trading/cells";
import type { SelectedRows, SheetRow } from "../trading/workbook";
import { ReadSizer, cutSpans, readSpans, type RowSpan } from "./chunks";
import { mergeSpans, planSelection, spanRows, spansAddress, type CellRect, type TableFacts } from "./selection-plan";

const rectOf = (r: { rowIndex: number; columnIndex: number; rowCount: number; columnCount: number }): CellRect => ({
  top: r.rowIndex,
  left: r.columnIndex,
  bottom: r.rowIndex + r.rowCount - 1,
  right: r.columnIndex + r.columnCount - 1,
});
const GEOMETRY = ["rowIndex", "columnIndex", "rowCount", "columnCount"];
/** Rows asked "hidden?" at once, and blocks of mixed rows whose visible areas are listed per sync (at most ~2,500 areas each). */
const PROBE_ROWS = 5_000;
const MIXED_BLOCKS_PER_SYNC = 4;
const headerText = (v: unknown) => (v === null || v === undefined ? "" : String(v).trim());

/**
 * The selected rows: every area of the selection, the table it sits in intersected with it, hidden rows (filtered out, or
 * hidden by the user) skipped and counted. Syncs: the areas, their tables and the used range; the tables' extent; which
 * rows are hidden; then the header and the visible rows' values, chunked by their bytes.
 */
export async function readSelectedRows(
  context: Excel.RequestContext,
  sizer = new ReadSizer(),
  headerSizer = new ReadSizer(),
): Promise<SelectedRows> {
  const selected = context.workbook.getSelectedRanges();
  const areas = selected.areas.load(GEOMETRY.map((p) => `items/${p}`).join(","));
  const sheet = selected.worksheet.load("name");
  const tables = selected.getTables(false).load("items/name,items/showTotals");
  const used = sheet.getUsedRangeOrNullObject(true).load(["isNullObject", ...GEOMETRY]);
  try {
    await context.sync();
  } catch (e) {
    const said = e instanceof Error ? ` (Excel said: ${e.message})` : "";
    throw new Error(`Select the rows to trade: cells of your exposure sheet, not a chart, a shape or a picture${said}.`, { cause: e });
  }

  const tableRanges = tables.items.map((t) => ({ name: t.name, totals: t.showTotals, range: t.getRange().load(GEOMETRY) }));
  if (tableRanges.length > 0) await context.sync();
  const tableFacts: TableFacts[] = tableRanges.map((t) => ({ name: t.name, rect: rectOf(t.range), totalsRow: t.totals }));
  const plan = planSelection(sheet.name, areas.items.map(rectOf), tableFacts, used.isNullObject ? null : rectOf(used));
  const width = plan.right - plan.left + 1;

  // The header: with the hidden-row probes when a first chunk holds it, else read on its own below.
  const header = width <= headerSizer.cells() ? sheet.getRangeByIndexes(plan.headerRow, plan.left, 1, width).load("values") : null;
  // Which rows are hidden: one property per block of rows (all, none or some); only blocks with some get their visible
  // cells, a few blocks per sync (a filter that hides every other row makes one area per visible row).
  const probes = cutSpans(plan.spans, PROBE_ROWS).map((span) => {
    const range = sheet.getRangeByIndexes(span.start, plan.left, span.count, 1).load("rowHidden");
    range.untrack();
    return { span, range };
  });
  await context.sync();
  const visible: RowSpan[] = [];
  for (const p of probes) if (p.range.rowHidden === false) visible.push(p.span);
  const mixed = probes.filter((p) => p.range.rowHidden === null);
  for (let i = 0; i < mixed.length; i += MIXED_BLOCKS_PER_SYNC) {
    // A block with some rows hidden has some visible, so its visible cells always exist.
    const areas = mixed
      .slice(i, i + MIXED_BLOCKS_PER_SYNC)
      .map((p) =>
        sheet
          .getRangeByIndexes(p.span.start, plan.left, p.span.count, 1)
          .getSpecialCells("Visible")
          .areas.load("items/rowIndex,items/rowCount"),
      );
    await context.sync();
    for (const list of areas) for (const a of list.items) visible.push({ start: a.rowIndex, count: a.rowCount });
  }
  const shown = mergeSpans(visible);

  const headers = (
    header ? (header.values[0] as CellValue[]) : await readRow(context, sheet, plan.headerRow, plan.left, width, headerSizer)
  ).map(headerText);
  // The visible rows' values, chunked by their bytes; each chunk's range proxies released at once.
  const rows: SheetRow[] = [];
  for await (const chunk of readSpans(context, sheet, shown, plan.left, width, sizer)) {
    for (const { span, values } of chunk) values.forEach((v, i) => rows.push({ rowNumber: span.start + i + 1, values: v }));
  }

  return {
    sheetName: sheet.name,
    address: spansAddress(
      sheet.name,
      shown.length > 0 ? shown : plan.spans.length > 0 ? plan.spans : [{ start: plan.headerRow + 1, count: 1 }],
      plan.left,
      plan.right,
    ),
    tableName: plan.tableName,
    headers,
    headerRowNumber: plan.headerRow + 1,
    rows,
    hiddenRowsSkipped: spanRows(plan.spans) - spanRows(shown),
  };
}

/**
 * One row read by the byte-sized rule (in column ranges when it is wide), with a sizer of its own: a header's short names
 * say nothing of what the rows under it weigh.
 */
async function readRow(
  context: Excel.RequestContext,
  sheet: Excel.Worksheet,
  row: number,
  left: number,
  width: number,
  sizer: ReadSizer,
): Promise<CellValue[]> {
  for await (const chunk of readSpans(context, sheet, [{ start: row, count: 1 }], left, width, sizer)) return chunk[0].values[0];
  return [];
}
