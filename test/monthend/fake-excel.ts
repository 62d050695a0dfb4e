// A small Excel object model for the month-end adapters' tests, built from office-addin-mock objects over a grid of cells (values, formulas, spills, formats, notes, comments).
import { OfficeMockObject } from "office-addin-mock";
import { columnIndex, columnLetters, excelStores } from "../../src/excel/memory-workbook";
import type { CellValue } from "../../src/trading/cells";

const EXCEL_ERRORS = ["#N/A", "#VALUE!", "#REF!", "#DIV/0!", "#NUM!", "#NAME?", "#NULL!", "#SPILL!", "#CALC!", "#BUSY!", "#GETTING_DATA"];

export interface FakeCell {
  value: CellValue;
  formula?: string;
  /** The anchor ("r,c") of the spill this cell shows, for spilled cells other than the anchor. */
  spilledFrom?: string;
  format?: string;
}

export class FakeSheet {
  readonly cells = new Map<string, FakeCell>();
  /** Spill anchors "r,c" → size. */
  readonly spills = new Map<string, { rows: number; columns: number }>();
  readonly notes = new Map<string, string>();
  readonly comments = new Map<string, { content: string; replies: string[] }>();
  readonly boldRows = new Set<number>();
  readonly widths = new Map<number, number>();
  constructor(public name: string) {}

  cell(row: number, column: number): FakeCell {
    return this.cells.get(`${row},${column}`) ?? { value: "" };
  }

  /** "B2" → [row, column], 0-based. */
  static at(a1: string): [number, number] {
    const m = /^([A-Z]+)(\d+)$/.exec(a1)!;
    return [Number(m[2]) - 1, columnIndex(m[1])];
  }

  set(a1: string, value: CellValue, formula?: string): this {
    const [r, c] = FakeSheet.at(a1);
    this.cells.set(`${r},${c}`, { value, formula });
    return this;
  }

  /** A formula at `a1` whose result spills over `values` (its top-left value shown in the formula's own cell). */
  spill(a1: string, formula: string, values: CellValue[][]): this {
    const [r, c] = FakeSheet.at(a1);
    values.forEach((row, i) =>
      row.forEach((v, j) =>
        this.cells.set(`${r + i},${c + j}`, i === 0 && j === 0 ? { value: v, formula } : { value: v, spilledFrom: `${r},${c}` }),
      ),
    );
    this.spills.set(`${r},${c}`, { rows: values.length, columns: values[0].length });
    return this;
  }

  /** The used rectangle, like getUsedRange(valuesOnly). */
  used(valuesOnly = false): { top: number; left: number; bottom: number; right: number } | null {
    let u: { top: number; left: number; bottom: number; right: number } | null = null;
    for (const [key, cell] of this.cells) {
      if (cell.value === "" && !cell.formula && (valuesOnly || !cell.format)) continue;
      const [r, c] = key.split(",").map(Number);
      u = u
        ? { top: Math.min(u.top, r), left: Math.min(u.left, c), bottom: Math.max(u.bottom, r), right: Math.max(u.right, c) }
        : { top: r, left: c, bottom: r, right: c };
    }
    return u;
  }

  /** Values as a grid from A1 to the used range's bottom right. */
  grid(): CellValue[][] {
    const u = this.used();
    if (!u) return [];
    return Array.from({ length: u.bottom + 1 }, (_, r) => Array.from({ length: u.right + 1 }, (_, c) => this.cell(r, c).value));
  }
}

function valueType(v: CellValue): string {
  if (v === "" || v === null) return "Empty";
  if (typeof v === "number") return "Double";
  if (typeof v === "boolean") return "Boolean";
  return EXCEL_ERRORS.includes(v) ? "Error" : "String";
}

export interface FakeExcelOptions {
  sheets?: FakeSheet[];
  active?: string;
  /** "B2:D9" on the active sheet, or "multi" for a selection of several areas. */
  selection?: string;
  /** The Excel API sets this Excel supports, e.g. ["1.10", "1.12", "1.18"]. */
  apiSets?: string[];
}

/** The fake Excel: `excel` goes to global Excel, `office` to global Office; the FakeSheets show what happened. */
export class FakeExcel {
  readonly sheets: FakeSheet[];
  active: string;
  selection: string;
  apiSets: string[];
  syncs = 0;
  /** Calls of getSpecialCellsOrNullObject: the snapshot reads formula cells only. */
  specialCellReads = 0;
  /** Ranges whose formulas were loaded, by size: never the whole used range. */
  formulaLoads: Array<{ rows: number; columns: number }> = [];
  private failNextSync: Error | null = null;
  /** The sync (by count, as `syncs` will read) that fails as Excel fails a request it cannot take. */
  failAtSync: number | null = null;
  /** Every mock handed out: synced (loads resolved) and harvested (writes applied) at each context.sync(). */
  private mocks: Array<{ mock: OfficeMockObject & Record<string, unknown>; harvest?: () => void }> = [];
  readonly excel: OfficeMockObject;
  readonly office: OfficeMockObject;

  constructor(options: FakeExcelOptions = {}) {
    this.sheets = options.sheets ?? [new FakeSheet("Sheet1")];
    this.active = options.active ?? this.sheets[0].name;
    this.selection = options.selection ?? "A1";
    this.apiSets = options.apiSets ?? ["1.10", "1.12", "1.18"];
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const fake = this;
    const context = {
      trackedObjects: { add: () => undefined, remove: () => undefined },
      workbook: {
        worksheets: this.worksheetsCollection(),
        getSelectedRange: () => {
          const sheet = fake.sheet(fake.active);
          if (fake.selection === "multi") {
            // As in Excel: the call queues; the batch fails at sync.
            fake.failNextSync = new Error("InvalidSelection: the selection has several areas.");
            return fake.range(sheet, 0, 0, 1, 1);
          }
          const [a, b = a] = fake.selection.split(":");
          const [top, left] = FakeSheet.at(a);
          const [bottom, right] = FakeSheet.at(b);
          return fake.range(sheet, top, left, bottom - top + 1, right - left + 1);
        },
      },
      sync: async () => {
        fake.syncs++;
        if (fake.failAtSync === fake.syncs) fake.failNextSync = new Error("RequestPayloadSizeLimitExceeded: the request is too large.");
        const failure = fake.failNextSync;
        if (failure) {
          fake.failNextSync = null;
          fake.mocks = [];
          throw failure;
        }
        // Writes queued on any object so far take effect, then loads resolve (objects stay usable in later batches).
        for (const { harvest } of fake.mocks) harvest?.();
        for (const { mock } of fake.mocks) await mock.sync();
        await new Promise((resolve) => setImmediate(resolve));
      },
    };
    this.excel = new OfficeMockObject({ run: async (batch: (ctx: unknown) => Promise<unknown>) => batch(context) });
    const isSetSupported = (name: string, version: string) => name === "ExcelApi" && fake.apiSets.includes(version);
    this.office = new OfficeMockObject({ context: { requirements: { isSetSupported } } });
  }

  sheet(name: string): FakeSheet {
    const s = this.sheets.find((x) => x.name === name);
    if (!s) throw new Error(`ItemNotFound: no sheet ${name}`);
    return s;
  }

  private track(mock: OfficeMockObject, harvest?: () => void) {
    this.mocks.push({ mock: mock as OfficeMockObject & Record<string, unknown>, harvest });
  }

  private worksheetsCollection() {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const fake = this;
    return {
      get items() {
        return fake.sheets.map((s) => ({ name: s.name }));
      },
      load: () => undefined,
      add: (name: string) => {
        if (fake.sheets.some((s) => s.name.toLowerCase() === name.toLowerCase())) throw new Error(`ItemAlreadyExists: ${name}`);
        const s = new FakeSheet(name);
        fake.sheets.push(s);
        return fake.worksheet(s);
      },
      getActiveWorksheet: () => fake.worksheet(fake.sheet(fake.active)),
    };
  }

  private worksheet(sheet: FakeSheet) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const fake = this;
    const mock = new OfficeMockObject({
      name: sheet.name,
      getRangeByIndexes: (r: number, c: number, rows: number, columns: number) => fake.range(sheet, r, c, rows, columns),
      getCell: (r: number, c: number) => fake.range(sheet, r, c, 1, 1),
      getUsedRange: (valuesOnly?: boolean) => {
        const u = sheet.used(valuesOnly === true) ?? { top: 0, left: 0, bottom: 0, right: 0 };
        return fake.range(sheet, u.top, u.left, u.bottom - u.top + 1, u.right - u.left + 1);
      },
      getUsedRangeOrNullObject: (valuesOnly?: boolean) => {
        const u = sheet.used(valuesOnly === true);
        if (!u) return fake.nullRange();
        return fake.range(sheet, u.top, u.left, u.bottom - u.top + 1, u.right - u.left + 1);
      },
      activate: () => {
        fake.active = sheet.name;
      },
    }) as OfficeMockObject & Record<string, unknown>;
    /** A note's key: the cell's address ("B1"), from a Range or a string (the sheet name optional, as Excel allows). */
    const noteKey = (where: unknown): string => {
      if (typeof where === "string") return where.includes("!") ? where.slice(where.lastIndexOf("!") + 1) : where;
      const rect = (where as { rect?: { top: number; left: number; rows: number; columns: number } }).rect;
      if (!rect || rect.rows !== 1 || rect.columns !== 1) throw new Error("InvalidCellAddress: a note goes on one cell");
      return `${columnLetters(rect.left)}${rect.top + 1}`;
    };
    mock.notes = {
      add: (where: unknown, content: string) => {
        const address = noteKey(where);
        if (!fake.apiSets.includes("1.18")) throw new Error("ApiNotFound: notes need ExcelApi 1.18");
        if (sheet.notes.has(address)) throw new Error(`InvalidArgument: ${address} already has a note`);
        sheet.notes.set(address, content);
      },
      getItemOrNullObject: (address: string) => {
        const initial = sheet.notes.get(address) ?? "";
        const note = new OfficeMockObject({ content: initial }) as OfficeMockObject & Record<string, unknown>;
        note.isNullObject = !sheet.notes.has(address);
        fake.track(note, () => {
          // A content the code assigned (not the loaded one, nor office-addin-mock's "not loaded" marker).
          if (typeof note.content === "string" && note.content !== initial && !note.content.startsWith("Error,"))
            sheet.notes.set(address, note.content);
        });
        return note;
      },
    };
    const commentItems = () =>
      [...sheet.comments.entries()].map(([address, thread]) => ({
        content: thread.content,
        replies: { add: (text: string) => thread.replies.push(text) },
        getLocation: () => {
          const [r, c] = FakeSheet.at(address);
          return fake.range(sheet, r, c, 1, 1);
        },
      }));
    let loadedItems: ReturnType<typeof commentItems> | null = null;
    mock.comments = {
      getCount: () => ({ value: sheet.comments.size }),
      load(options?: { $top?: number; $skip?: number }) {
        const from = options?.$skip ?? 0;
        loadedItems = commentItems().slice(from, options?.$top === undefined ? undefined : from + options.$top);
        return this;
      },
      get items() {
        if (!loadedItems) throw new Error("PropertyNotLoaded: comments.items");
        return loadedItems;
      },
      add: (where: unknown, content: string) => {
        // Microsoft's reference: a string address must include the sheet name; a Range object carries it.
        if (typeof where === "string" && !where.includes("!"))
          throw new Error(`InvalidArgument: comment address ${where} has no sheet name`);
        const address = noteKey(where);
        if (sheet.comments.has(address)) throw new Error(`InvalidArgument: ${address} already has a comment`);
        sheet.comments.set(address, { content, replies: [] });
      },
    };
    this.track(mock);
    return mock;
  }

  private nullRange() {
    const mock = new OfficeMockObject({
      isNullObject: true,
      address: "",
      formulas: [],
      values: [],
      valueTypes: [],
      rowIndex: 0,
      columnIndex: 0,
      rowCount: 0,
      columnCount: 0,
    }) as OfficeMockObject & Record<string, unknown>;
    mock.isNullObject = true;
    mock.untrack = () => mock;
    this.track(mock);
    return mock;
  }

  private range(sheet: FakeSheet, top: number, left: number, rows: number, columns: number) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const fake = this;
    const grid = <T>(f: (cell: FakeCell) => T): T[][] =>
      Array.from({ length: rows }, (_, i) => Array.from({ length: columns }, (_, j) => f(sheet.cell(top + i, left + j))));
    const values = grid((cell) => cell.value);
    const formulas = grid((cell) => cell.formula ?? cell.value);
    const numberFormat = grid((cell) => cell.format ?? "General");
    const a1 = `${columnLetters(left)}${top + 1}`;
    const address = `${sheet.name}!${rows === 1 && columns === 1 ? a1 : `${a1}:${columnLetters(left + columns - 1)}${top + rows}`}`;
    const mock = new OfficeMockObject({
      isNullObject: false,
      address,
      rowIndex: top,
      columnIndex: left,
      rowCount: rows,
      columnCount: columns,
      values,
      formulas,
      valueTypes: grid((cell) => valueType(cell.value)),
      numberFormat,
      format: { font: { bold: false }, columnWidth: 48 },
      getIntersectionOrNullObject: (other: { rect?: { top: number; left: number; rows: number; columns: number } }) => {
        const o = other.rect!;
        const t = Math.max(top, o.top);
        const l = Math.max(left, o.left);
        const b = Math.min(top + rows, o.top + o.rows) - 1;
        const r = Math.min(left + columns, o.left + o.columns) - 1;
        return b < t || r < l ? fake.nullRange() : fake.range(sheet, t, l, b - t + 1, r - l + 1);
      },
      getSpillingToRangeOrNullObject: () => {
        if (!fake.apiSets.includes("1.12")) throw new Error("ApiNotFound: spills need ExcelApi 1.12");
        const size = rows === 1 && columns === 1 ? sheet.spills.get(`${top},${left}`) : undefined;
        return size ? fake.range(sheet, top, left, size.rows, size.columns) : fake.nullRange();
      },
    }) as OfficeMockObject & Record<string, unknown>;
    mock.isNullObject = false;
    mock.rect = { top, left, rows, columns }; // the fake's own geometry, for getIntersectionOrNullObject
    mock.untrack = () => mock;
    const load = mock.load.bind(mock);
    mock.load = ((what: string) => {
      if (typeof what === "string" && what.includes("formulas")) fake.formulaLoads.push({ rows, columns });
      return load(what);
    }) as typeof mock.load;
    mock.getSpecialCellsOrNullObject = (type: string) => {
      if (type !== "Formulas") throw new Error(`NotImplemented: special cells ${type}`);
      fake.specialCellReads++;
      // Each formula cell its own area, in row order (Excel may join them; the adapter must not care).
      const cells = [...sheet.cells.entries()]
        .filter(([, c]) => c.formula)
        .map(([k]) => k.split(",").map(Number))
        .filter(([r, c]) => r >= top && r < top + rows && c >= left && c < left + columns)
        .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      if (cells.length === 0) return fake.nullRange();
      const areas = new OfficeMockObject({ isNullObject: false, areaCount: cells.length, cellCount: cells.length }) as OfficeMockObject &
        Record<string, unknown>;
      fake.track(areas);
      areas.areas = {
        load: (options: { $top?: number; $skip?: number }) => {
          const page = cells.slice(options.$skip ?? 0, (options.$skip ?? 0) + (options.$top ?? cells.length));
          return { items: page.map(([r, c]) => ({ rowIndex: r, columnIndex: c, rowCount: 1, columnCount: 1, untrack: () => undefined })) };
        },
      };
      return areas;
    };
    const format = mock.format as Record<string, unknown> & { font: Record<string, unknown> };
    this.track(mock, () => {
      const assigned = typeof mock.numberFormat === "string" && !mock.numberFormat.startsWith("Error,"); // not office-addin-mock's "not loaded"
      if (mock.numberFormat !== numberFormat && (Array.isArray(mock.numberFormat) || assigned)) {
        // A single format applies to every cell of the range (Office.js).
        const given = mock.numberFormat as string | string[][];
        const formats = Array.isArray(given) ? given : Array.from({ length: rows }, () => Array.from({ length: columns }, () => given));
        formats.forEach((row, i) =>
          row.forEach((f, j) => {
            const key = `${top + i},${left + j}`;
            sheet.cells.set(key, { ...(sheet.cells.get(key) ?? { value: "" }), format: f });
          }),
        );
      }
      if (mock.values !== values && Array.isArray(mock.values)) {
        (mock.values as CellValue[][]).forEach((row, i) =>
          row.forEach((v, j) => {
            const key = `${top + i},${left + j}`;
            const before = sheet.cells.get(key);
            if (before?.spilledFrom || sheet.spills.has(key)) {
              // Writing over a spill ends it, as in Excel.
              const anchor = before?.spilledFrom ?? key;
              sheet.spills.delete(anchor);
            }
            // Stored as Excel reads it: text into a cell not formatted "@" may become a number, a date or a formula.
            const format = sheet.cells.get(key)?.format;
            const stored = excelStores(v, format);
            sheet.cells.set(key, { value: stored.value, formula: stored.formula, format });
          }),
        );
      }
      if (format.font.bold === true) for (let i = 0; i < rows; i++) sheet.boldRows.add(top + i);
      if (format.columnWidth !== 48 && typeof format.columnWidth === "number")
        for (let j = 0; j < columns; j++) sheet.widths.set(left + j, format.columnWidth);
    });
    return mock;
  }
}
