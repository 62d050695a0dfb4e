// The one Excel object model of the adapter tests (workbook, snapshot, recon sheet), built from office-addin-mock objects over the wire host's sheets and tables (values, formulas, spills, formats, notes, comments): loads resolve and queued writes land at sync, as in Office.js.
import { OfficeMockObject } from "office-addin-mock";
import { columnLetters } from "../../src/excel/memory-workbook";
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

/** A plain collection with Office.js's load/items shape (office-addin-mock cannot load "items/…" of an array); a page of it with $top/$skip. */
function collection<T>(items: () => T[]): { load: (options?: unknown) => unknown; readonly items: T[] } {
  let loaded: T[] | null = null;
  const c = {
    load(options?: unknown) {
      loaded = null;
      const page = typeof options === "object" && options !== null ? (options as { $top?: number; $skip?: number }) : {};
      pendingLoads.push(() => {
        const from = page.$skip ?? 0;
        loaded = items().slice(from, page.$top === undefined ? undefined : from + page.$top);
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

/** A result Office.js fills at the next sync (comments.getCount()). */
function clientResult<T>(read: () => T): { readonly value: T } {
  let value: { v: T } | null = null;
  pendingLoads.push(() => (value = { v: read() }));
  return {
    get value() {
      if (!value) throw new Error("PropertyNotLoaded: value (sync first)");
      return value.v;
    },
  };
}

/**
 * The model: `host` holds the cells and tables; `excel` is what the adapters get as their Excel namespace (or global
 * Excel), `office` what they get as global Office (requirement sets from `apiSets`).
 */
export class ExcelModel {
  readonly host = new WireHost();
  /** The Excel API sets this Excel supports: notes need 1.18, spills 1.12, comments 1.10. */
  apiSets = ["1.10", "1.12", "1.18"];
  /** Every Excel.run call made, and the options each was given. */
  runs = 0;
  runOptions: unknown[] = [];
  syncs = 0;
  /** The sync (by count, as `syncs` will read) that Excel fails: its queued writes are lost, as a failed request's are. */
  failAtSync: number | null = null;
  /** Ranges whose values were loaded, by size (rows × columns): chunking shows here. */
  valueLoads: Array<{ rows: number; columns: number }> = [];
  /** Ranges whose formulas were loaded, by size: the snapshot reads formula cells only, never the whole used range. */
  formulaLoads: Array<{ rows: number; columns: number }> = [];
  /** Calls of getSpecialCells(OrNullObject). */
  specialCellReads = 0;
  private mocks: Array<{ mock: Mock; refresh: () => void }> = [];
  private queue: Array<() => void> = [];

  /** A sheet with `grid` from A1; build more on the WireSheet it returns (`set`, `spill`, `notes`, `addComment`). */
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
    // Array.from, not map: rows with nothing in them are holes of the sparse array.
    const width = Math.max(0, ...Array.from(s.rows, (r) => r?.length ?? 0));
    return Array.from(s.rows, (_, r) => Array.from({ length: width }, (_, c) => s.value(r, c)));
  }

  get office(): { context: { requirements: { isSetSupported(name: string, version: string): boolean } } } {
    return { context: { requirements: { isSetSupported: (name, version) => name === "ExcelApi" && this.apiSets.includes(version) } } };
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
    const mock = this.track(
      new OfficeMockObject({
        isNullObject: true,
        address: "",
        rowIndex: 0,
        columnIndex: 0,
        rowCount: 0,
        columnCount: 0,
        areaCount: 0,
        cellCount: 0,
        values: [],
        formulas: [],
        valueTypes: [],
      }) as Mock,
    );
    mock.untrack = () => mock;
    return mock;
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
      getSelectedRange: () => {
        const s = host.selection!;
        // As in Excel: the call queues, and the batch fails at sync when the selection has several areas.
        if (s.areas.length > 1)
          model.queue.push(() => {
            throw new Error("InvalidSelection: the selection has several areas.");
          });
        const a = s.areas[0];
        return model.range(host.sheet(s.sheet), a.top, a.left, a.bottom - a.top + 1, a.right - a.left + 1);
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
            return s ? model.worksheet(s) : model.nullObject();
          },
          add: (name: string) => {
            if ([...host.sheets.keys()].some((n) => n.toLowerCase() === name.toLowerCase())) throw new Error(`ItemAlreadyExists: ${name}`);
            return model.worksheet(host.addSheet(name));
          },
          getActiveWorksheet: () => model.worksheet(host.sheet(host.active!)),
        },
      ),
    };
    const trackedObjects = { add: () => undefined, remove: () => undefined };
    return { workbook, trackedObjects, sync: () => model.sync() };
  }

  private rangeAreas(sheet: WireSheet, areas: () => Rect[]): Mock {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const model = this;
    const counts = () => {
      const list = areas();
      return { areaCount: list.length, cellCount: list.reduce((n, a) => n + (a.bottom - a.top + 1) * (a.right - a.left + 1), 0) };
    };
    const mock = this.track(new OfficeMockObject({ isNullObject: false, ...counts() }) as Mock, () => {
      for (const [k, v] of Object.entries(counts())) refresh(mock, k, v);
    });
    mock.worksheet = model.worksheet(sheet);
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

  private worksheet(sheet: WireSheet): Mock {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const model = this;
    const mock = this.track(new OfficeMockObject({ name: sheet.name, isNullObject: false }) as Mock);
    mock.freezePanes = { freezeRows: (n: number) => model.queue.push(() => (sheet.frozenRows = n)) };
    mock.getUsedRangeOrNullObject = (valuesOnly?: boolean) => {
      const u = sheet.used(valuesOnly === true);
      return u ? model.range(sheet, u.top, u.left, u.bottom - u.top + 1, u.right - u.left + 1) : model.nullObject();
    };
    mock.getUsedRange = (valuesOnly?: boolean) => {
      const u = sheet.used(valuesOnly === true) ?? { top: 0, left: 0, bottom: 0, right: 0 };
      return model.range(sheet, u.top, u.left, u.bottom - u.top + 1, u.right - u.left + 1);
    };
    mock.getRangeByIndexes = (r: number, c: number, rows: number, cols: number) => model.range(sheet, r, c, rows, cols);
    mock.getCell = (r: number, c: number) => model.range(sheet, r, c, 1, 1);
    mock.notes = model.notes(sheet);
    mock.comments = model.comments(sheet);
    mock.activate = () => model.queue.push(() => (model.host.active = sheet.name));
    mock.delete = () => model.queue.push(() => model.host.sheets.delete(sheet.name));
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

  /** A note or comment goes on one cell, given as a Range ("B1" from it) or, for notes, as an address. */
  private cellOf(where: unknown): string {
    if (typeof where === "string") return where.includes("!") ? where.slice(where.lastIndexOf("!") + 1) : where;
    const r = (where as { __rect?: Rect }).__rect;
    if (!r || r.top !== r.bottom || r.left !== r.right) throw new Error("InvalidCellAddress: a note or comment goes on one cell");
    return `${columnLetters(r.left)}${r.top + 1}`;
  }

  /** worksheet.notes (ExcelApi 1.18): add, and getItemOrNullObject whose content can be read and set. */
  private notes(sheet: WireSheet): unknown {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const model = this;
    return {
      add(where: unknown, content: string) {
        const address = model.cellOf(where);
        model.queue.push(() => {
          if (!model.apiSets.includes("1.18")) throw new Error("ApiNotFound: notes need ExcelApi 1.18");
          if (sheet.notes.has(address)) throw new Error(`InvalidArgument: ${address} already has a note`);
          sheet.notes.set(address, content);
        });
        return {};
      },
      getItemOrNullObject(address: string) {
        let loaded: { content: string; isNull: boolean } | null = null;
        const note = {
          load() {
            pendingLoads.push(() => (loaded = { content: sheet.notes.get(address) ?? "", isNull: !sheet.notes.has(address) }));
            return note;
          },
          get isNullObject() {
            if (!loaded) throw new Error("PropertyNotLoaded: isNullObject");
            return loaded.isNull;
          },
          get content() {
            if (!loaded) throw new Error("PropertyNotLoaded: content");
            return loaded.content;
          },
          set content(text: string) {
            model.queue.push(() => sheet.notes.set(address, text));
          },
        };
        return note;
      },
    };
  }

  /** worksheet.comments (ExcelApi 1.10): count, a page of them (content, location, replies), and add on a Range. */
  private comments(sheet: WireSheet): unknown {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const model = this;
    const threads = () =>
      [...sheet.comments.entries()].map(([key, thread]) => {
        const [r, c] = key.split(",").map(Number);
        return {
          get content() {
            return thread.content;
          },
          replies: { add: (text: string) => (model.queue.push(() => thread.replies.push(text)), {}) },
          getLocation: () => model.range(sheet, r, c, 1, 1),
        };
      });
    return Object.assign(collection(threads), {
      getCount: () => clientResult(() => sheet.comments.size),
      add(where: unknown, content: string) {
        // Microsoft's reference: a string address must include the sheet name; a Range carries it.
        if (typeof where === "string" && !where.includes("!"))
          throw new Error(`InvalidArgument: comment address ${where} has no sheet name`);
        const address = model.cellOf(where);
        model.queue.push(() => {
          if (sheet.comment(address)) throw new Error(`InvalidArgument: ${address} already has a comment`);
          sheet.addComment(address, content);
        });
        return {};
      },
    });
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
    const asks = (what: unknown, name: string) =>
      typeof what === "string" ? what.includes(name) : Array.isArray(what) && what.includes(name);
    mock.load = ((what?: unknown) => {
      if (asks(what, "values")) loadValues();
      if (asks(what, "formulas")) model.formulaLoads.push({ rows, columns: cols });
      return originalLoad(what as string);
    }) as Mock["load"];
    this.track(mock, () => {
      const now = snapshot();
      for (const [k, v] of Object.entries(now)) refresh(mock, k, v);
    });
    if (loadNow) originalLoad(Object.keys(snapshot()) as unknown as string); // the model's own load of an area: not counted
    mock.__rect = r;
    mock.worksheet = model.worksheet(sheet);
    mock.untrack = () => mock;
    mock.getCell = (i: number, j: number) => model.range(sheet, top + i, left + j, 1, 1);
    mock.getRow = (i: number) => model.range(sheet, top + i, left, 1, cols);
    mock.getResizedRange = (dr: number, dc: number) => model.range(sheet, top, left, rows + dr, cols + dc);
    mock.getIntersectionOrNullObject = (other: { __rect?: Rect }) => {
      const o = other.__rect!;
      const t = Math.max(r.top, o.top);
      const l = Math.max(r.left, o.left);
      const b = Math.min(r.bottom, o.bottom);
      const rr = Math.min(r.right, o.right);
      return b < t || rr < l ? model.nullObject() : model.range(sheet, t, l, b - t + 1, rr - l + 1);
    };
    mock.getSpillingToRangeOrNullObject = () => {
      if (!model.apiSets.includes("1.12")) throw new Error("ApiNotFound: spills need ExcelApi 1.12");
      const size = rows === 1 && cols === 1 ? sheet.spills.get(`${top},${left}`) : undefined;
      return size ? model.range(sheet, top, left, size.rows, size.columns) : model.nullObject();
    };
    mock.getSpecialCellsOrNullObject = (type: string) => {
      model.specialCellReads++;
      const areas = model.host.special(sheet, r, type);
      if (areas.length === 0) return model.nullObject();
      return model.rangeAreas(sheet, () => areas);
    };
    mock.getSpecialCells = (type: string) => {
      model.specialCellReads++;
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
    mock.worksheet = model.worksheet(t.sheet);
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
