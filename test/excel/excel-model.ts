// A small Excel object model for adapter tests, built from office-addin-mock objects over plain cell grids: ranges load and sync like Office.js, writes land in the grids.
import { OfficeMockObject } from "office-addin-mock";

type Cell = string | number | boolean;
type Grid = Cell[][];

interface SheetModel {
  name: string;
  grid: Grid;
  widths: Map<number, number>;
  formats: Map<string, string>;
  frozenRows: number;
  activated: boolean;
}

interface TableModel {
  name: string;
  sheet: SheetModel;
  top: number;
  left: number;
  /** Body rows (the header is row `top`). */
  bodyRows: number;
  cols: number;
}

/** A queued write (values or number formats), applied at sync in the order the adapter made it, as Office.js does. */
interface PendingWrite {
  kind: "values" | "numberFormat";
  sheet: SheetModel;
  top: number;
  left: number;
  data: unknown;
}

/** Excel's own reading of typed text: a numeric-looking string written to a cell not formatted as text ("@") becomes a number ("00123" → 123). */
function coerce(sheet: SheetModel, r: number, c: number, v: Cell): Cell {
  if (typeof v !== "string" || sheet.formats.get(`${r},${c}`) === "@") return v;
  return /^\s*[+-]?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v;
}

const letters = (i: number): string => (i < 26 ? String.fromCharCode(65 + i) : letters(Math.floor(i / 26) - 1) + letters(i % 26));
const addr = (sheet: SheetModel, top: number, left: number, rows: number, cols: number) =>
  `'${sheet.name}'!${letters(left)}${top + 1}${rows > 1 || cols > 1 ? `:${letters(left + cols - 1)}${top + rows}` : ""}`;

function read(grid: Grid, top: number, left: number, rows: number, cols: number): Cell[][] {
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => grid[top + r]?.[left + c] ?? ""));
}

function write(sheet: SheetModel, top: number, left: number, values: Cell[][]): void {
  const grid = sheet.grid;
  values.forEach((row, r) =>
    row.forEach((v, c) => {
      while (grid.length <= top + r) grid.push([]);
      grid[top + r][left + c] = coerce(sheet, top + r, left + c, v);
    }),
  );
}

/** The model: sheets, tables, the selection; `excel` is what the adapter gets as its Excel namespace. */
export class ExcelModel {
  readonly sheets = new Map<string, SheetModel>();
  readonly tables = new Map<string, TableModel>();
  selection: { sheet: string; top: number; left: number; rows: number; cols: number } | null = null;
  /** Every Excel.run call made. */
  runs = 0;
  syncs = 0;
  private created: OfficeMockObject[] = [];
  private writes: PendingWrite[] = [];

  addSheet(name: string, grid: Grid = []): SheetModel {
    const sheet: SheetModel = { name, grid, widths: new Map(), formats: new Map(), frozenRows: 0, activated: false };
    this.sheets.set(name, sheet);
    return sheet;
  }

  addTable(name: string, sheet: string, top: number, left: number, bodyRows: number, cols: number): TableModel {
    const table = { name, sheet: this.sheets.get(sheet)!, top, left, bodyRows, cols };
    this.tables.set(name, table);
    return table;
  }

  get excel(): Pick<typeof Excel, "run"> {
    return {
      run: (async (callback: (context: unknown) => Promise<unknown>) => {
        this.runs++;
        this.created = [];
        this.writes = [];
        const result = await callback(this.context());
        return result;
      }) as unknown as typeof Excel.run,
    };
  }

  private track<T extends OfficeMockObject>(mock: T): T {
    this.created.push(mock);
    return mock;
  }

  /** Office.js semantics: queued writes are applied and loads are fulfilled at sync. */
  private async sync(): Promise<void> {
    this.syncs++;
    const writes = this.writes;
    this.writes = [];
    for (const w of writes) {
      if (!Array.isArray(w.data)) continue;
      if (w.kind === "values") write(w.sheet, w.top, w.left, w.data as Cell[][]);
      else (w.data as string[][]).forEach((row, r) => row.forEach((f, c) => w.sheet.formats.set(`${w.top + r},${w.left + c}`, f)));
    }
    for (const mock of this.created) await mock.sync();
    await new Promise((r) => setTimeout(r, 0));
  }

  private context(): unknown {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the mock's functions run with their own `this`
    const model = this;
    const workbook = {
      getSelectedRange: () => {
        const s = model.selection!;
        const sheet = model.sheets.get(s.sheet)!;
        const range = model.range(sheet, s.top, s.left, s.rows, s.cols);
        (range as unknown as Record<string, unknown>).getTables = () => {
          const hits = [...model.tables.values()].filter(
            (t) =>
              t.sheet === sheet &&
              t.top <= s.top + s.rows - 1 &&
              s.top <= t.top + t.bodyRows &&
              t.left <= s.left + s.cols - 1 &&
              s.left <= t.left + t.cols - 1,
          );
          return { getCount: () => ({ value: hits.length }), getFirst: () => model.table(hits[0]) };
        };
        return range;
      },
      tables: {
        getItemOrNullObject: (name: string) => {
          const t = model.tables.get(name);
          return t ? model.table(t) : model.track(new OfficeMockObject({ isNullObject: true }));
        },
      },
      worksheets: {
        getItemOrNullObject: (name: string) => {
          const s = model.sheets.get(name);
          return s ? model.sheet(s) : model.track(new OfficeMockObject({ isNullObject: true }));
        },
        add: (name: string) => model.sheet(model.addSheet(name)),
      },
    };
    return { workbook, sync: () => model.sync() };
  }

  sheet(sheet: SheetModel): OfficeMockObject & Record<string, unknown> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the mock's functions run with their own `this`
    const model = this;
    const mock = this.track(
      new OfficeMockObject({
        name: sheet.name,
        isNullObject: false,
        freezePanes: {
          freezeRows(count: number) {
            sheet.frozenRows = count;
          },
        },
      }),
    ) as OfficeMockObject & Record<string, unknown>;
    mock.getUsedRangeOrNullObject = () => {
      let top = Infinity,
        left = Infinity,
        bottom = -1,
        right = -1;
      sheet.grid.forEach((row, r) =>
        row.forEach((v, c) => {
          if (v === "" || v === null || v === undefined) return;
          top = Math.min(top, r);
          left = Math.min(left, c);
          bottom = Math.max(bottom, r);
          right = Math.max(right, c);
        }),
      );
      if (bottom < 0)
        return model.track(new OfficeMockObject({ isNullObject: true, rowIndex: 0, columnIndex: 0, rowCount: 0, columnCount: 0 }));
      return model.range(sheet, top, left, bottom - top + 1, right - left + 1);
    };
    mock.getRangeByIndexes = (r: number, c: number, rows: number, cols: number) => model.range(sheet, r, c, rows, cols);
    mock.activate = () => {
      sheet.activated = true;
    };
    mock.tables = {
      add: (range: Record<string, unknown>, hasHeaders: boolean) => {
        if (!hasHeaders) throw new Error("expected a header row");
        const pos = range.__pos as { top: number; left: number; cols: number };
        // Excel gives a header-only table one empty body row.
        const t = model.addTable(`Table${model.tables.size + 1}`, sheet.name, pos.top, pos.left, 1, pos.cols);
        const tableMock = model.table(t);
        return new Proxy(tableMock, {
          set(target, prop, value) {
            if (prop === "name") {
              model.tables.delete(t.name);
              t.name = value as string;
              model.tables.set(t.name, t);
            }
            (target as unknown as Record<string | symbol, unknown>)[prop] = value;
            return true;
          },
        });
      },
    };
    return mock;
  }

  range(sheet: SheetModel, top: number, left: number, rows: number, cols: number): OfficeMockObject & Record<string, unknown> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the mock's functions run with their own `this`
    const model = this;
    // Whole columns are only formatted, never read: do not build a million-row array for them.
    const values = rows > 10_000 ? [] : read(sheet.grid, top, left, rows, cols);
    const mock = this.track(
      new OfficeMockObject({
        address: addr(sheet, top, left, rows, cols),
        rowIndex: top,
        columnIndex: left,
        rowCount: rows,
        columnCount: cols,
        values,
        isNullObject: false,
        format: { columnWidth: 0 },
      }),
    ) as OfficeMockObject & Record<string, unknown>;
    mock.__pos = { top, left, rows, cols };
    mock.worksheet = model.sheet(sheet);
    mock.getRow = (i: number) => model.range(sheet, top + i, left, 1, cols);
    mock.getCell = (r: number, c: number) => model.range(sheet, top + r, left + c, 1, 1);
    mock.getResizedRange = (dr: number, dc: number) => model.range(sheet, top, left, rows + dr, cols + dc);
    mock.getEntireColumn = () => {
      const col = model.range(sheet, 0, left, 1_048_576, 1);
      const format = col.format as Record<string, unknown>;
      return new Proxy(col, {
        get(target, prop) {
          if (prop === "format")
            return new Proxy(format, {
              set(f, p, v) {
                if (p === "columnWidth") sheet.widths.set(left, v as number);
                (f as Record<string | symbol, unknown>)[p] = v;
                return true;
              },
            });
          return (target as unknown as Record<string | symbol, unknown>)[prop];
        },
      });
    };
    // Writes are queued in the order they are made (values and formats alike), as Office.js queues them.
    return new Proxy(mock, {
      set(target, prop, value) {
        if (prop === "values" || prop === "numberFormat") model.writes.push({ kind: prop, sheet, top, left, data: value });
        (target as unknown as Record<string | symbol, unknown>)[prop] = value;
        return true;
      },
    });
  }

  table(t: TableModel): OfficeMockObject & Record<string, unknown> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the mock's functions run with their own `this`
    const model = this;
    const mock = this.track(new OfficeMockObject({ name: t.name, isNullObject: false })) as OfficeMockObject & Record<string, unknown>;
    mock.getRange = () => model.range(t.sheet, t.top, t.left, t.bodyRows + 1, t.cols);
    mock.getDataBodyRange = () => model.range(t.sheet, t.top + 1, t.left, t.bodyRows, t.cols);
    mock.worksheet = model.sheet(t.sheet);
    mock.getHeaderRowRange = () => model.range(t.sheet, t.top, t.left, 1, t.cols);
    mock.columns = {
      getCount: () => ({ value: t.cols }),
      add: (index: number | undefined, values: unknown, name: string) => {
        if (index !== undefined && index !== null) throw new Error("the log only appends columns");
        if (values !== undefined) throw new Error("expected an empty column");
        write(t.sheet, t.top, t.left + t.cols, [[name]]);
        t.cols++;
      },
    };
    mock.rows = {
      add: (index: number | undefined, values: Cell[][]) => {
        if (index !== undefined && index !== null) throw new Error("the log only appends");
        model.writes.push({ kind: "values", sheet: t.sheet, top: t.top + 1 + t.bodyRows, left: t.left, data: values });
        t.bodyRows += values.length;
      },
    };
    return mock;
  }
}
