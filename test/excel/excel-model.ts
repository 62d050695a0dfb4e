// A small Excel object model for adapter tests, built from office-addin-mock objects over the wire host's sheets and tables: loads resolve and queued writes land at sync, as in Office.js.
import { OfficeMockObject } from "office-addin-mock";
import type { CellValue } from "../../src/trading/cells";
import { WireHost, type Rect, type WireSheet, type WireTable } from "./wire/wire-host";

type Mock = OfficeMockObject & Record<string, unknown>;

const rect = (top: number, left: number, rows: number, cols: number): Rect => ({
  top,
  left,
  bottom: top + rows - 1,
  right: left + cols - 1,
});

/** Sets what a loaded property will show at this sync (office-addin-mock keeps it as the value "before loaded"). */
function refresh(mock: OfficeMockObject, name: string, value: unknown): void {
  const property = (mock as unknown as { _properties: Map<string, { _valueBeforeLoaded: unknown }> })._properties.get(name);
  if (property) property._valueBeforeLoaded = value;
}

/** A plain collection with Office.js's load/items shape (office-addin-mock cannot load "items/…" of an array). */
function collection<T>(items: () => T[]): { load: () => unknown; readonly items: T[] } {
  let loaded: T[] | null = null;
  const c = {
    load() {
      loaded = null;
      pendingLoads.push(() => {
        loaded = items();
        for (const item of loaded) (item as { load?: () => unknown }).load?.();
      });
      return c;
    },
    get items() {
      if (!loaded) throw new Error("PropertyNotLoaded: items (call load, then sync)");
      return loaded;
    },
  };
  return c;
}
let pendingLoads: Array<() => void> = [];

/** The model: `host` holds the cells and tables; `excel` is what the adapter gets as its Excel namespace. */
export class ExcelModel {
  readonly host = new WireHost();
  /** Every Excel.run call made, and the options each was given. */
  runs = 0;
  runOptions: unknown[] = [];
  syncs = 0;
  /** The sync (by count, as `syncs` will read) that Excel fails: its queued writes are lost, as a failed request's are. */
  failAtSync: number | null = null;
  /** Ranges whose values were loaded, by size (rows × columns): chunking shows here. */
  valueLoads: Array<{ rows: number; columns: number }> = [];
  private mocks: Array<{ mock: Mock; refresh: () => void }> = [];
  private queue: Array<() => void> = [];

  addSheet(name: string, grid: CellValue[][] = []): WireSheet {
    return this.host.addSheet(name).fill(0, 0, grid);
  }

  /** A table whose header row is at (top, left), with `bodyRows` rows under it (and a totals row after them, when `totals`). */
  addTable(name: string, sheet: string, top: number, left: number, bodyRows: number, cols: number, totals = false): WireTable {
    return this.host.addTable(name, sheet, rect(top, left, bodyRows + 1 + (totals ? 1 : 0), cols), totals);
  }

  select(sheet: string, ...areas: Array<{ top: number; left: number; rows: number; cols: number }>): void {
    this.host.select(sheet, ...areas.map((a) => rect(a.top, a.left, a.rows, a.cols)));
  }

  /** A sheet's values from A1 as a grid (empty cells ""). */
  grid(sheet: string): CellValue[][] {
    const s = this.host.sheet(sheet);
    const width = Math.max(0, ...s.rows.map((r) => r?.length ?? 0));
    return s.rows.map((_, r) => Array.from({ length: width }, (_, c) => s.value(r, c)));
  }

  get excel(): Pick<typeof Excel, "run"> {
    return {
      run: (async (a: unknown, b?: unknown) => {
        const callback = (typeof a === "function" ? a : b) as (context: unknown) => Promise<unknown>;
        this.runs++;
        this.runOptions.push(typeof a === "function" ? undefined : a);
        this.mocks = [];
        this.queue = [];
        pendingLoads = [];
        return callback(this.context());
      }) as unknown as typeof Excel.run,
    };
  }

  /** Office.js semantics: queued writes are applied in order, then loads are fulfilled with what the sheet now holds. */
  private async sync(): Promise<void> {
    this.syncs++;
    const queue = this.queue;
    this.queue = [];
    if (this.failAtSync === this.syncs) throw new Error("GeneralException: Excel could not complete the request.");
    for (const op of queue) op();
    const loads = pendingLoads;
    pendingLoads = [];
    for (const load of loads) load();
    for (const { mock, refresh } of this.mocks) {
      refresh();
      await mock.sync();
    }
    await new Promise((r) => setTimeout(r, 0));
  }

  private track(mock: Mock, update: () => void = () => undefined): Mock {
    this.mocks.push({ mock, refresh: update });
    return mock;
  }

  private nullObject(): Mock {
    return this.track(new OfficeMockObject({ isNullObject: true, rowIndex: 0, columnIndex: 0, rowCount: 0, columnCount: 0 }) as Mock);
  }

  private context(): unknown {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the mock's functions run with their own `this`
    const model = this;
    const host = this.host;
    const workbook = {
      getSelectedRanges: () => {
        const s = host.selection!;
        return model.rangeAreas(host.sheet(s.sheet), () => s.areas);
      },
      tables: {
        getItemOrNullObject: (name: string) => {
          const t = host.tableNamed(name);
          return t ? model.table(t) : model.nullObject();
        },
        getItem: (name: string) => {
          const t = host.tableNamed(name);
          if (!t) throw new Error(`ItemNotFound: no table ${name}`);
          return model.table(t);
        },
      },
      worksheets: Object.assign(
        collection(() => [...host.sheets.values()].map((s) => ({ name: s.name }))),
        {
          getItemOrNullObject: (name: string) => {
            const s = host.sheets.get(name);
            return s ? model.sheet(s) : model.nullObject();
          },
          add: (name: string) => model.sheet(host.addSheet(name)),
        },
      ),
    };
    return { workbook, sync: () => model.sync() };
  }

  private rangeAreas(sheet: WireSheet, areas: () => Rect[]): Mock {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const model = this;
    const mock = this.track(new OfficeMockObject({ isNullObject: false }) as Mock);
    mock.worksheet = model.sheet(sheet);
    mock.areas = collection(() => areas().map((a) => model.range(sheet, a.top, a.left, a.bottom - a.top + 1, a.right - a.left + 1, true)));
    mock.getTables = () =>
      collection(() =>
        [...model.host.tables.values()]
          .filter(
            (t) =>
              t.sheet === sheet &&
              areas().some((a) => a.top <= t.rect.bottom && t.rect.top <= a.bottom && a.left <= t.rect.right && t.rect.left <= a.right),
          )
          .map((t) => model.table(t)),
      );
    return mock;
  }

  sheet(sheet: WireSheet): Mock {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const model = this;
    const mock = this.track(new OfficeMockObject({ name: sheet.name, isNullObject: false }) as Mock);
    mock.freezePanes = { freezeRows: (n: number) => model.queue.push(() => (sheet.frozenRows = n)) };
    mock.getUsedRangeOrNullObject = (valuesOnly?: boolean) => {
      const u = sheet.used(valuesOnly === true);
      return u ? model.range(sheet, u.top, u.left, u.bottom - u.top + 1, u.right - u.left + 1) : model.nullObject();
    };
    mock.getRangeByIndexes = (r: number, c: number, rows: number, cols: number) => model.range(sheet, r, c, rows, cols);
    mock.activate = () => model.queue.push(() => (model.host.active = sheet.name));
    mock.tables = {
      add: (range: Mock, hasHeaders: boolean) => {
        if (!hasHeaders) throw new Error("expected a header row");
        const at = range.__rect as Rect;
        const made: { table: WireTable | null; name: string | null } = { table: null, name: null };
        model.queue.push(() => {
          made.table = model.host.createTable(sheet, at);
          if (made.name) renameTable(made.table, made.name);
        });
        const renameTable = (t: WireTable, name: string) => {
          model.host.tables.delete(t.name);
          t.name = name;
          model.host.tables.set(name, t);
        };
        // The table object the adapter names (and may use in this batch only, as Office.js objects made by add()).
        return {
          set name(value: string) {
            made.name = value;
            model.queue.push(() => made.table && renameTable(made.table, value));
          },
        };
      },
    };
    return mock;
  }

  range(sheet: WireSheet, top: number, left: number, rows: number, cols: number, loadNow = false): Mock {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const model = this;
    const r = rect(top, left, rows, cols);
    const huge = rows * cols > 100_000;
    const props = () => this.host.rangeProps(sheet, r);
    const snapshot = () => {
      const p = props();
      return {
        address: p.Address(),
        rowIndex: top,
        columnIndex: left,
        rowCount: rows,
        columnCount: cols,
        values: huge ? [] : p.Values(),
        formulas: huge ? [] : p.Formulas(),
        valueTypes: huge ? [] : p.ValueTypes(),
        numberFormat: huge ? [] : p.NumberFormat(),
        rowHidden: p.RowHidden(),
      };
    };
    // office-addin-mock cannot hold a null at construction: rowHidden's null (some rows hidden) arrives at sync.
    const mock = new OfficeMockObject({ ...snapshot(), rowHidden: false, isNullObject: false }) as Mock;
    const loadValues = () => model.valueLoads.push({ rows, columns: cols });
    const originalLoad = mock.load.bind(mock);
    mock.load = ((what?: unknown) => {
      if (typeof what === "string" ? /values/.test(what) : Array.isArray(what) && what.includes("values")) loadValues();
      return originalLoad(what as string);
    }) as Mock["load"];
    this.track(mock, () => {
      const now = snapshot();
      for (const [k, v] of Object.entries(now)) refresh(mock, k, v);
    });
    if (loadNow) mock.load(Object.keys(snapshot()));
    mock.__rect = r;
    mock.worksheet = model.sheet(sheet);
    mock.untrack = () => mock;
    mock.getCell = (i: number, j: number) => model.range(sheet, top + i, left + j, 1, 1);
    mock.getRow = (i: number) => model.range(sheet, top + i, left, 1, cols);
    mock.getResizedRange = (dr: number, dc: number) => model.range(sheet, top, left, rows + dr, cols + dc);
    mock.getSpecialCellsOrNullObject = (type: string) => {
      const areas = model.host.special(sheet, r, type);
      if (areas.length === 0) return model.nullObject();
      return model.rangeAreas(sheet, () => areas);
    };
    mock.getSpecialCells = (type: string) => {
      const areas = model.host.special(sheet, r, type);
      if (areas.length === 0) throw new Error("ItemNotFound: no cells were found");
      return model.rangeAreas(sheet, () => areas);
    };
    mock.delete = (shift: string) => {
      if (shift !== "Up") throw new Error("delete shifts up only");
      model.queue.push(() => model.host.deleteUp(sheet, r));
    };
    mock.format = {
      set columnWidth(width: number) {
        model.queue.push(() => {
          for (let c = left; c < left + cols; c++) sheet.widths.set(c, width);
        });
      },
      font: {
        set bold(b: boolean) {
          model.queue.push(() => {
            if (b) for (let i = top; i < top + rows; i++) sheet.bold.add(i);
          });
        },
      },
    };
    mock.getEntireColumn = () => model.range(sheet, 0, left, 1_048_576, cols);
    // Writes are queued in the order they are made (values and formats alike), as Office.js queues them.
    const proxy = new Proxy(mock, {
      set(target, prop, value) {
        if (prop === "values") model.queue.push(() => model.host.writeValues(sheet, r, value));
        else if (prop === "numberFormat") model.queue.push(() => model.host.setFormats(sheet, r, value));
        (target as unknown as Record<string | symbol, unknown>)[prop] = value;
        return true;
      },
    });
    mock.untrack = () => proxy; // untrack() hands back the same object, writes and all
    return proxy;
  }

  table(t: WireTable): Mock {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const model = this;
    const mock = this.track(new OfficeMockObject({ name: t.name, showTotals: t.totals, isNullObject: false }) as Mock, () =>
      refresh(mock, "name", t.name),
    );
    const body = () => ({ ...t.rect, top: t.rect.top + 1 });
    mock.getRange = () => model.range(t.sheet, t.rect.top, t.rect.left, t.rect.bottom - t.rect.top + 1, t.rect.right - t.rect.left + 1);
    mock.getHeaderRowRange = () => model.range(t.sheet, t.rect.top, t.rect.left, 1, t.rect.right - t.rect.left + 1);
    mock.getDataBodyRange = () => {
      const b = body();
      return model.range(t.sheet, b.top, b.left, b.bottom - b.top + 1, b.right - b.left + 1);
    };
    mock.worksheet = model.sheet(t.sheet);
    mock.columns = {
      add: (index: number | undefined, values: unknown, name: string) => {
        if (index !== undefined && index !== null) throw new Error("the log only appends columns");
        if (values !== undefined && values !== null) throw new Error("expected an empty column");
        model.queue.push(() => model.host.addTableColumn(t, name));
      },
    };
    mock.rows = {
      add: (index: number | undefined, values: CellValue[][]) => {
        if (index !== undefined && index !== null) throw new Error("the log only appends");
        model.queue.push(() => model.host.addTableRows(t, values));
      },
    };
    return mock;
  }
}
