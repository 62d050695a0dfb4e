// A workbook that answers Office.js's own requests (object paths and actions, as the excel-web script sends them): sheets of cells with formats, formulas, spills, hidden rows, tables, comments, notes and a selection, kept as plainly as Excel keeps them.
import { columnIndex, excelStores } from "../../../src/excel/memory-workbook";
import type { CellValue } from "../../../src/trading/cells";

const MAX_ROWS = 1_048_576;
const MAX_COLUMNS = 16_384;
const EXCEL_ERRORS = ["#N/A", "#VALUE!", "#REF!", "#DIV/0!", "#NUM!", "#NAME?", "#NULL!", "#SPILL!", "#CALC!", "#BUSY!", "#GETTING_DATA"];

export interface Rect {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

export interface WireCell {
  v: CellValue;
  /** The formula, when the cell holds one. */
  f?: string;
  /** The number format ("General" when unset). */
  nf?: string;
  /** Set when the cell shows part of a spill (the anchor's "r,c"). */
  spilledFrom?: string;
}

/** Comment ids, unique across hosts and sheets. */
let commentIds = 0;
const newCommentId = () => `c${++commentIds}`;

/** "B2" → [row, column], 0-based. */
export function cellAt(a1: string): [number, number] {
  const m = /^([A-Z]+)(\d+)$/.exec(a1);
  if (!m) throw new Error(`not a cell address: ${a1}`);
  return [Number(m[2]) - 1, columnIndex(m[1])];
}

export class WireSheet {
  rows: Array<Array<WireCell | undefined>> = [];
  readonly hidden = new Set<number>();
  readonly widths = new Map<number, number>();
  readonly bold = new Set<number>();
  frozenRows = 0;
  /** Spill anchors "r,c" → size. */
  readonly spills = new Map<string, { rows: number; columns: number }>();
  /** Comments by "r,c". */
  readonly comments = new Map<string, { id: string; content: string; replies: string[] }>();
  /** Notes (ExcelApi 1.18) by cell address ("B1"). Office.js's excel-web script cannot send them: only the office-addin-mock model uses them. */
  readonly notes = new Map<string, string>();
  constructor(public name: string) {}

  /** Puts a value (and a formula) at an A1 address, as it is (no Excel coercion): for building test sheets. */
  set(a1: string, value: CellValue, formula?: string): this {
    const [r, c] = cellAt(a1);
    this.put(r, c, { ...this.cell(r, c), v: value, f: formula });
    return this;
  }

  /** A formula at `a1` whose result spills over `values` (its top-left value shown in the formula's own cell). */
  spill(a1: string, formula: string, values: CellValue[][]): this {
    const [r, c] = cellAt(a1);
    values.forEach((row, i) =>
      row.forEach((v, j) => this.put(r + i, c + j, i === 0 && j === 0 ? { v, f: formula } : { v, spilledFrom: `${r},${c}` })),
    );
    this.spills.set(`${r},${c}`, { rows: values.length, columns: values[0].length });
    return this;
  }

  /** The comment on a cell ("B1"): its text and replies. */
  comment(a1: string): { content: string; replies: string[] } | undefined {
    const [r, c] = cellAt(a1);
    const thread = this.comments.get(`${r},${c}`);
    return thread && { content: thread.content, replies: thread.replies };
  }

  addComment(a1: string, content: string): this {
    const [r, c] = cellAt(a1);
    this.comments.set(`${r},${c}`, { id: newCommentId(), content, replies: [] });
    return this;
  }

  cell(r: number, c: number): WireCell | undefined {
    return this.rows[r]?.[c];
  }

  value(r: number, c: number): CellValue {
    return this.rows[r]?.[c]?.v ?? "";
  }

  put(r: number, c: number, cell: WireCell): void {
    const row = (this.rows[r] ??= []);
    row[c] = cell;
  }

  /** Writes values from (top, left) as they are (no Excel coercion): for building test sheets. */
  fill(top: number, left: number, values: CellValue[][]): this {
    values.forEach((row, i) => row.forEach((v, j) => this.put(top + i, left + j, { ...this.cell(top + i, left + j), v })));
    return this;
  }

  /** The used rectangle (values and formulas; with formats too unless valuesOnly). */
  used(valuesOnly: boolean): Rect | null {
    let u: Rect | null = null;
    this.rows.forEach((row, r) => {
      if (!row) return;
      row.forEach((cell, c) => {
        if (!cell) return;
        const filled = (cell.v !== "" && cell.v !== null) || cell.f !== undefined || (!valuesOnly && cell.nf !== undefined);
        if (!filled) return;
        u = u
          ? { top: Math.min(u.top, r), left: Math.min(u.left, c), bottom: Math.max(u.bottom, r), right: Math.max(u.right, c) }
          : { top: r, left: c, bottom: r, right: c };
      });
    });
    return u;
  }
}

export interface WireTable {
  name: string;
  sheet: WireSheet;
  /** Header row included (and the totals row, when shown). */
  rect: Rect;
  /** The table shows a totals row: its last row. */
  totals: boolean;
}

type Obj =
  | { t: "Workbook" }
  | { t: "Null" }
  | { t: "Worksheets" }
  | { t: "Worksheet"; sheet: WireSheet }
  | { t: "Tables"; sheet: WireSheet | null; only?: string[] }
  | { t: "Table"; table: WireTable }
  | { t: "TableColumns"; table: WireTable }
  | { t: "TableRows"; table: WireTable }
  | { t: "TableRow" }
  | { t: "TableColumn" }
  | { t: "Range"; sheet: WireSheet; rect: Rect }
  | { t: "RangeAreas"; sheet: WireSheet; areas: Rect[] }
  | { t: "Areas"; sheet: WireSheet; areas: Rect[] }
  | { t: "Format"; sheet: WireSheet; rect: Rect }
  | { t: "Font"; sheet: WireSheet; rect: Rect }
  | { t: "FreezePanes"; sheet: WireSheet }
  | { t: "Comments"; sheet: WireSheet | null }
  | { t: "Comment"; sheet: WireSheet; key: string }
  | { t: "Replies"; sheet: WireSheet; key: string };

interface PathInfo {
  Id: number;
  /** Set by untrack(): no reference is kept for this object. */
  D?: boolean;
  ObjectPathType: number;
  Name: string;
  ParentObjectPathId?: number;
  ArgumentInfo?: { Arguments?: unknown[]; ReferencedObjectPathIds?: number[] };
}
interface ActionInfo {
  Id: number;
  ActionType: number;
  Name: string;
  ObjectPathId: number;
  ArgumentInfo?: { Arguments?: unknown[]; ReferencedObjectPathIds?: number[] };
  QueryInfo?: { Select?: string[] | null; Expand?: string[] | null; Top?: number | null; Skip?: number | null };
}
export interface WireRequest {
  AutoKeepReference?: boolean;
  Actions: ActionInfo[];
  ObjectPaths: Record<string, PathInfo>;
}

class WireError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const rectOf = (top: number, left: number, rows: number, columns: number): Rect => ({
  top,
  left,
  bottom: top + rows - 1,
  right: left + columns - 1,
});
const letters = (i: number): string => (i < 26 ? String.fromCharCode(65 + i) : letters(Math.floor(i / 26) - 1) + letters(i % 26));
const a1 = (r: Rect) => {
  const tl = `${letters(r.left)}${r.top + 1}`;
  const br = `${letters(r.right)}${r.bottom + 1}`;
  return tl === br ? tl : `${tl}:${br}`;
};
const quote = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `'${name.replace(/'/g, "''")}'`);
const intersect = (a: Rect, b: Rect): Rect | null => {
  const r = {
    top: Math.max(a.top, b.top),
    left: Math.max(a.left, b.left),
    bottom: Math.min(a.bottom, b.bottom),
    right: Math.min(a.right, b.right),
  };
  return r.top > r.bottom || r.left > r.right ? null : r;
};

function valueType(cell: WireCell | undefined): string {
  const v = cell?.v ?? "";
  if (v === "" || v === null) return "Empty";
  if (typeof v === "number") return "Double";
  if (typeof v === "boolean") return "Boolean";
  return EXCEL_ERRORS.includes(v) ? "Error" : "String";
}

/** Consecutive rows of a set as [start, end] runs within [top, bottom]. */
function runs(top: number, bottom: number, keep: (r: number) => boolean): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let r = top; r <= bottom; r++) {
    if (!keep(r)) continue;
    const last = out[out.length - 1];
    if (last && last[1] === r - 1) last[1] = r;
    else out.push([r, r]);
  }
  return out;
}

/**
 * The host. `execute` takes one request body and returns the response body Office.js expects (Results by action id, or
 * Error at the failing action). References Office.js asks it to keep are counted, to show proxies are released.
 */
export class WireHost {
  readonly sheets = new Map<string, WireSheet>();
  readonly tables = new Map<string, WireTable>();
  selection: { sheet: string; areas: Rect[] } | null = null;
  active: string | null = null;
  /** Objects the host keeps a reference to (Office.js releases them with untrack() or at the end of Excel.run), and the most held at once. */
  readonly refs = new Map<string, Obj>();
  maxRefs = 0;
  private nextRef = 0;
  /** In the request being answered: paths Office.js asked to keep, and the reference each got. */
  private readonly keepAsked = new Set<number>();
  private readonly keptNow = new Map<number, string>();

  addSheet(name: string): WireSheet {
    const sheet = new WireSheet(name);
    this.sheets.set(name, sheet);
    this.active ??= name;
    return sheet;
  }

  sheet(name: string): WireSheet {
    const s = this.sheets.get(name);
    if (!s) throw new Error(`no sheet ${name}`);
    return s;
  }

  addTable(name: string, sheet: string, rect: Rect, totals = false): WireTable {
    const table = { name, sheet: this.sheet(sheet), rect, totals };
    this.tables.set(name, table);
    return table;
  }

  select(sheet: string, ...areas: Rect[]): void {
    this.selection = { sheet, areas };
    this.active = sheet;
  }

  // ---- protocol ----

  execute(request: WireRequest): Record<string, unknown> {
    this.keepAsked.clear();
    this.keptNow.clear();
    const resolved = new Map<number, Obj>();
    const results: Array<{ ActionId: number; Value: unknown }> = [];
    const resolve = (id: number): Obj => {
      const done = resolved.get(id);
      if (done) return done;
      const info = request.ObjectPaths[String(id)];
      if (!info) throw new WireError("InvalidObjectPath", `no object path ${id}`);
      const obj = this.path(info, resolve);
      resolved.set(id, obj);
      return obj;
    };
    for (let i = 0; i < request.Actions.length; i++) {
      const action = request.Actions[i];
      try {
        const value = this.action(action, resolve, request);
        if (value !== undefined) results.push({ ActionId: action.Id, Value: value });
      } catch (e) {
        const err = e instanceof WireError ? e : new WireError("GeneralException", e instanceof Error ? e.message : String(e));
        return { Results: results, Error: { Code: err.code, Message: err.message, ActionIndex: i, Location: action.Name } };
      }
    }
    return { Results: results };
  }

  private args(
    info: { ArgumentInfo?: { Arguments?: unknown[]; ReferencedObjectPathIds?: number[] } },
    resolve: (id: number) => Obj,
  ): unknown[] {
    const list = info.ArgumentInfo?.Arguments ?? [];
    const refs = info.ArgumentInfo?.ReferencedObjectPathIds ?? [];
    return list.map((a, i) => (refs[i] ? resolve(a as number) : a));
  }

  private action(action: ActionInfo, resolve: (id: number) => Obj, request: WireRequest): unknown {
    switch (action.ActionType) {
      case 1: {
        const obj = resolve(action.ObjectPathId);
        if (obj.t === "Null") return null;
        const info = request.ObjectPaths[String(action.ObjectPathId)];
        // Objects with an id (sheets, tables) are found again by it: Office.js re-paths them as collection.getItem(id).
        const id = obj.t === "Worksheet" ? { Id: obj.sheet.name } : obj.t === "Table" ? { Id: obj.table.name } : {};
        // Objects Office.js asked to keep (load() and trackedObjects.add() send _KeepReference; untrack() takes it back) get a
        // reference, used by later requests and released by _RemoveReference (untrack(), or the end of Excel.run).
        if (!this.keepAsked.has(action.ObjectPathId) || info?.D || obj.t === "Workbook") return id;
        const ref = this.keptNow.get(action.ObjectPathId) ?? `ref${++this.nextRef}`;
        this.keptNow.set(action.ObjectPathId, ref);
        this.refs.set(ref, obj);
        this.maxRefs = Math.max(this.maxRefs, this.refs.size);
        return { ...id, _ReferenceId: ref };
      }
      case 2: {
        const obj = resolve(action.ObjectPathId);
        if (obj.t === "Null") return null;
        return this.query(obj, action.QueryInfo?.Select ?? null, action.QueryInfo);
      }
      case 3: {
        if (action.Name === "_KeepReference") {
          this.keepAsked.add(action.ObjectPathId); // the Instantiate that follows hands out the reference
          return undefined;
        }
        if (action.Name === "_RemoveReference") {
          this.refs.delete(String(this.args(action, resolve)[0]));
          return undefined;
        }
        const obj = resolve(action.ObjectPathId);
        return this.method(obj, action.Name, this.args(action, resolve));
      }
      case 4: {
        const obj = resolve(action.ObjectPathId);
        this.set(obj, action.Name, this.args(action, resolve)[0]);
        return undefined;
      }
      default:
        return undefined;
    }
  }

  // ---- object paths ----

  private path(info: PathInfo, resolve: (id: number) => Obj): Obj {
    if (info.ObjectPathType === 1) return { t: "Workbook" };
    if (info.ObjectPathType === 6) {
      const kept = this.refs.get(info.Name);
      if (!kept) throw new WireError("InvalidObjectPath", `reference ${info.Name} was released`);
      return kept;
    }
    const parent = resolve(info.ParentObjectPathId!);
    const args = this.args(info, resolve);
    if (parent.t === "Null") return { t: "Null" };
    if (info.ObjectPathType === 4) return this.property(parent, info.Name);
    if (info.ObjectPathType === 5) return this.indexer(parent, args[0]);
    if (info.ObjectPathType === 3) {
      const out = this.method(parent, info.Name, args);
      if (!out || typeof out !== "object" || !("t" in out))
        throw new WireError("InvalidArgument", `${parent.t}.${info.Name} returns no object`);
      return out as Obj;
    }
    throw new WireError("NotImplemented", `object path type ${info.ObjectPathType}`);
  }

  private property(obj: Obj, name: string): Obj {
    const key = `${obj.t}.${name}`;
    switch (key) {
      case "Workbook.Worksheets":
        return { t: "Worksheets" };
      case "Workbook.Tables":
        return { t: "Tables", sheet: null };
      case "Workbook.Comments":
        return { t: "Comments", sheet: null };
      case "Worksheet.Tables":
        return { t: "Tables", sheet: (obj as { sheet: WireSheet }).sheet };
      case "Worksheet.FreezePanes":
        return { t: "FreezePanes", sheet: (obj as { sheet: WireSheet }).sheet };
      case "Worksheet.Comments":
        return { t: "Comments", sheet: (obj as { sheet: WireSheet }).sheet };
      case "Table.Columns":
        return { t: "TableColumns", table: (obj as { table: WireTable }).table };
      case "Table.Rows":
        return { t: "TableRows", table: (obj as { table: WireTable }).table };
      case "Table.Worksheet":
        return { t: "Worksheet", sheet: (obj as { table: WireTable }).table.sheet };
      case "Range.Worksheet":
      case "RangeAreas.Worksheet":
        return { t: "Worksheet", sheet: (obj as { sheet: WireSheet }).sheet };
      case "Range.Format": {
        const r = obj as { sheet: WireSheet; rect: Rect };
        return { t: "Format", sheet: r.sheet, rect: r.rect };
      }
      case "Format.Font": {
        const r = obj as { sheet: WireSheet; rect: Rect };
        return { t: "Font", sheet: r.sheet, rect: r.rect };
      }
      case "RangeAreas.Areas": {
        const r = obj as { sheet: WireSheet; areas: Rect[] };
        return { t: "Areas", sheet: r.sheet, areas: r.areas };
      }
      case "Comment.Replies": {
        const c = obj as { sheet: WireSheet; key: string };
        return { t: "Replies", sheet: c.sheet, key: c.key };
      }
      default:
        throw new WireError("NotImplemented", `property ${key}`);
    }
  }

  private indexer(obj: Obj, key: unknown): Obj {
    if (obj.t === "Worksheets") {
      const s = this.sheets.get(String(key));
      if (!s) throw new WireError("ItemNotFound", `no sheet ${String(key)}`);
      return { t: "Worksheet", sheet: s };
    }
    if (obj.t === "Tables") {
      const t = this.tableNamed(String(key));
      if (!t) throw new WireError("ItemNotFound", `no table ${String(key)}`);
      return { t: "Table", table: t };
    }
    if (obj.t === "Comments") {
      const found = [...this.sheets.values()].flatMap((s) => [...s.comments].map(([k, c]) => ({ s, k, c }))).find((x) => x.c.id === key);
      if (!found) throw new WireError("ItemNotFound", `no comment ${String(key)}`);
      return { t: "Comment", sheet: found.s, key: found.k };
    }
    throw new WireError("NotImplemented", `indexer on ${obj.t}`);
  }

  tableNamed(name: string): WireTable | undefined {
    return [...this.tables.values()].find((t) => t.name.toLowerCase() === name.toLowerCase());
  }

  private range(sheet: WireSheet, rect: Rect): Obj {
    if (
      rect.top < 0 ||
      rect.left < 0 ||
      rect.bottom >= MAX_ROWS ||
      rect.right >= MAX_COLUMNS ||
      rect.bottom < rect.top ||
      rect.right < rect.left
    )
      throw new WireError("InvalidArgument", `range out of the sheet: ${JSON.stringify(rect)}`);
    return { t: "Range", sheet, rect };
  }

  private method(obj: Obj, name: string, args: unknown[]): unknown {
    const key = `${obj.t}.${name}`;
    switch (key) {
      // workbook
      case "Workbook.GetSelectedRange": {
        const sel = this.selection;
        if (!sel) throw new WireError("InvalidSelection", "nothing is selected");
        if (sel.areas.length > 1) throw new WireError("InvalidSelection", "The selection has several areas.");
        return this.range(this.sheet(sel.sheet), sel.areas[0]);
      }
      case "Workbook.GetSelectedRanges": {
        const sel = this.selection;
        if (!sel) throw new WireError("InvalidSelection", "nothing is selected");
        return { t: "RangeAreas", sheet: this.sheet(sel.sheet), areas: sel.areas };
      }
      // collections
      case "Worksheets.GetItemOrNullObject": {
        const s = this.sheets.get(String(args[0]));
        return s ? { t: "Worksheet", sheet: s } : { t: "Null" };
      }
      case "Worksheets.GetActiveWorksheet":
        return { t: "Worksheet", sheet: this.sheet(this.active!) };
      case "Worksheets.Add": {
        const name = String(args[0]);
        if ([...this.sheets.keys()].some((n) => n.toLowerCase() === name.toLowerCase())) throw new WireError("ItemAlreadyExists", name);
        return { t: "Worksheet", sheet: this.addSheet(name) };
      }
      case "Tables.GetItemOrNullObject": {
        const t = this.tableNamed(String(args[0]));
        return t ? { t: "Table", table: t } : { t: "Null" };
      }
      case "Tables.GetCount":
        return this.tableItems(obj as { sheet: WireSheet | null; only?: string[] }).length;
      case "Tables.Add": {
        const scope = (obj as { sheet: WireSheet | null }).sheet;
        const target = args[0] as Obj;
        if (typeof args[0] === "string" || target.t !== "Range") throw new WireError("NotImplemented", "tables.add takes a Range here");
        if (scope && target.sheet !== scope) throw new WireError("InvalidArgument", "range on another sheet");
        if (args[1] !== true) throw new WireError("NotImplemented", "tables without headers");
        return { t: "Table", table: this.createTable(target.sheet, target.rect) };
      }
      case "TableColumns.GetCount": {
        const t = (obj as { table: WireTable }).table;
        return t.rect.right - t.rect.left + 1;
      }
      case "TableColumns.Add": {
        if (args[0] !== null && args[0] !== undefined) throw new WireError("NotImplemented", "columns are only appended");
        this.addTableColumn((obj as { table: WireTable }).table, String(args[2] ?? ""));
        return { t: "TableColumn" };
      }
      case "TableRows.Add": {
        if (args[0] !== null && args[0] !== undefined) throw new WireError("NotImplemented", "rows are only appended");
        this.addTableRows((obj as { table: WireTable }).table, args[1] as CellValue[][]);
        return { t: "TableRow" };
      }
      case "Comments.Add": {
        const where = args[0];
        if (typeof where === "string") {
          if (!where.includes("!")) throw new WireError("InvalidArgument", "a comment address must include the sheet name");
          throw new WireError("NotImplemented", "comment by address string");
        }
        const target = where as Obj;
        if (target.t !== "Range" || target.rect.top !== target.rect.bottom || target.rect.left !== target.rect.right)
          throw new WireError("InvalidArgument", "a comment goes on one cell");
        const k = `${target.rect.top},${target.rect.left}`;
        if (target.sheet.comments.has(k)) throw new WireError("InvalidArgument", "the cell already has a comment");
        target.sheet.comments.set(k, { id: newCommentId(), content: String(args[1]), replies: [] });
        return { t: "Comment", sheet: target.sheet, key: k };
      }
      case "Replies.Add": {
        const c = obj as { sheet: WireSheet; key: string };
        c.sheet.comments.get(c.key)!.replies.push(String(args[0]));
        return { t: "TableRow" };
      }
      case "Comment.GetLocation": {
        const c = obj as { sheet: WireSheet; key: string };
        const [r, col] = c.key.split(",").map(Number);
        return this.range(c.sheet, rectOf(r, col, 1, 1));
      }
      case "Comments.GetCount":
        return this.commentItems(obj as { sheet: WireSheet | null }).length;
      case "Comments.GetItemAt": {
        const list = this.commentItems(obj as { sheet: WireSheet | null });
        const item = list[args[0] as number];
        if (!item) throw new WireError("ItemNotFound", "no such comment");
        return { t: "Comment", sheet: item.sheet, key: item.key };
      }
      case "Tables.GetItemAt": {
        const t = this.tableItems(obj as { sheet: WireSheet | null; only?: string[] })[args[0] as number];
        if (!t) throw new WireError("ItemNotFound", "no such table");
        return { t: "Table", table: t };
      }
      case "Areas.GetItemAt": {
        const a = obj as { sheet: WireSheet; areas: Rect[] };
        return this.range(a.sheet, a.areas[args[0] as number]);
      }
      // worksheet
      case "Worksheet.GetRangeByIndexes": {
        const [r, c, rows, columns] = args as number[];
        return this.range((obj as { sheet: WireSheet }).sheet, rectOf(r, c, rows, columns));
      }
      case "Worksheet.GetRange": {
        const sheet = (obj as { sheet: WireSheet }).sheet;
        if (args[0] !== null && args[0] !== undefined) throw new WireError("NotImplemented", "getRange(address)");
        return this.range(sheet, rectOf(0, 0, MAX_ROWS, MAX_COLUMNS));
      }
      case "Worksheet.GetCell": {
        const [r, c] = args as number[];
        return this.range((obj as { sheet: WireSheet }).sheet, rectOf(r, c, 1, 1));
      }
      case "Worksheet.GetUsedRangeOrNullObject":
      case "Worksheet.GetUsedRange": {
        const sheet = (obj as { sheet: WireSheet }).sheet;
        const u = sheet.used(args[0] === true);
        if (!u) {
          if (name === "GetUsedRange") return this.range(sheet, rectOf(0, 0, 1, 1));
          return { t: "Null" };
        }
        return this.range(sheet, u);
      }
      case "Worksheet.Activate":
        this.active = (obj as { sheet: WireSheet }).sheet.name;
        return undefined;
      case "FreezePanes.FreezeRows":
        (obj as { sheet: WireSheet }).sheet.frozenRows = args[0] as number;
        return undefined;
      // tables
      case "Table.GetRange":
        return this.range((obj as { table: WireTable }).table.sheet, (obj as { table: WireTable }).table.rect);
      case "Table.GetHeaderRowRange": {
        const t = (obj as { table: WireTable }).table;
        return this.range(t.sheet, { ...t.rect, bottom: t.rect.top });
      }
      case "Table.GetDataBodyRange": {
        const t = (obj as { table: WireTable }).table;
        return this.range(t.sheet, { ...t.rect, top: t.rect.top + 1 });
      }
      // ranges
      case "Range.GetCell": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        const [r, c] = args as number[];
        return this.range(sheet, rectOf(rect.top + r, rect.left + c, 1, 1));
      }
      case "Range.GetRow": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        return this.range(sheet, { ...rect, top: rect.top + (args[0] as number), bottom: rect.top + (args[0] as number) });
      }
      case "Range._ValidateArraySize": {
        // Office.js splits a large write into row blocks (getRow … getBoundingRect) after asking the host to check the size.
        const { rect } = obj as { rect: Rect };
        if (args[0] !== rect.bottom - rect.top + 1 || args[1] !== rect.right - rect.left + 1)
          throw new WireError("InvalidArgument", `${String(args[0])}×${String(args[1])} values for a range of another size`);
        return undefined;
      }
      case "Range.GetBoundingRect": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        const other = args[0] as Obj;
        if (other.t !== "Range") throw new WireError("NotImplemented", "bounding rectangle with an address");
        return this.range(sheet, {
          top: Math.min(rect.top, other.rect.top),
          left: Math.min(rect.left, other.rect.left),
          bottom: Math.max(rect.bottom, other.rect.bottom),
          right: Math.max(rect.right, other.rect.right),
        });
      }
      case "Range.GetResizedRange": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        return this.range(sheet, { ...rect, bottom: rect.bottom + (args[0] as number), right: rect.right + (args[1] as number) });
      }
      case "Range.GetEntireColumn": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        return this.range(sheet, { ...rect, top: 0, bottom: MAX_ROWS - 1 });
      }
      case "Range.GetIntersectionOrNullObject": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        const other = args[0] as Obj;
        if (other.t !== "Range") throw new WireError("NotImplemented", "intersection with an address");
        const r = intersect(rect, other.rect);
        return r ? this.range(sheet, r) : { t: "Null" };
      }
      case "Range.GetTables":
      case "RangeAreas.GetTables": {
        const o = obj as { sheet: WireSheet; rect?: Rect; areas?: Rect[] };
        const areas = o.rect ? [o.rect] : o.areas!;
        const only = [...this.tables.values()]
          .filter((t) => t.sheet === o.sheet && areas.some((a) => intersect(a, t.rect)))
          .map((t) => t.name);
        return { t: "Tables", sheet: o.sheet, only };
      }
      case "Range.GetSpecialCellsOrNullObject":
      case "Range.GetSpecialCells": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        const areas = this.special(sheet, rect, String(args[0]));
        if (areas.length === 0) {
          if (name === "GetSpecialCells") throw new WireError("ItemNotFound", "No cells were found.");
          return { t: "Null" };
        }
        return { t: "RangeAreas", sheet, areas };
      }
      case "Range.GetSpillingToRangeOrNullObject": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        if (rect.top !== rect.bottom || rect.left !== rect.right) throw new WireError("InvalidArgument", "one cell only");
        const size = sheet.spills.get(`${rect.top},${rect.left}`);
        return size ? this.range(sheet, rectOf(rect.top, rect.left, size.rows, size.columns)) : { t: "Null" };
      }
      case "Range.Delete": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        if (args[0] !== "Up") throw new WireError("NotImplemented", "delete shifts up only");
        this.deleteUp(sheet, rect);
        return undefined;
      }
      default:
        throw new WireError("NotImplemented", `method ${key}`);
    }
  }

  tableItems(obj: { sheet: WireSheet | null; only?: string[] }): WireTable[] {
    return [...this.tables.values()].filter(
      (t) => (obj.sheet === null || t.sheet === obj.sheet) && (!obj.only || obj.only.includes(t.name)),
    );
  }

  private commentItems(obj: { sheet: WireSheet | null }): Array<{ sheet: WireSheet; key: string; id: string; content: string }> {
    const sheets = obj.sheet ? [obj.sheet] : [...this.sheets.values()];
    return sheets.flatMap((s) => [...s.comments].map(([key, c]) => ({ sheet: s, key, id: c.id, content: c.content })));
  }

  /** Visible cells or formula cells of a range, as rectangles (row runs, joined across rows when their columns agree). */
  special(sheet: WireSheet, rect: Rect, type: string): Rect[] {
    if (type === "Visible") {
      if (rect.bottom - rect.top > 2_000_000) throw new WireError("NotImplemented", "visible cells of a whole sheet");
      return runs(rect.top, rect.bottom, (r) => !sheet.hidden.has(r)).map(([t, b]) => ({
        top: t,
        bottom: b,
        left: rect.left,
        right: rect.right,
      }));
    }
    if (type !== "Formulas") throw new WireError("NotImplemented", `special cells ${type}`);
    const out: Rect[] = [];
    const open = new Map<string, Rect>();
    const last = Math.min(rect.bottom, sheet.rows.length - 1);
    for (let r = rect.top; r <= last; r++) {
      const row = sheet.rows[r] ?? [];
      const found: Array<[number, number]> = [];
      for (let c = Math.max(0, rect.left); c <= Math.min(rect.right, row.length - 1); c++) {
        if (row[c]?.f === undefined) continue;
        const lastRun = found[found.length - 1];
        if (lastRun && lastRun[1] === c - 1) lastRun[1] = c;
        else found.push([c, c]);
      }
      const still = new Map<string, Rect>();
      for (const [l, rr] of found) {
        const k = `${l},${rr}`;
        const prev = open.get(k);
        if (prev && prev.bottom === r - 1) {
          prev.bottom = r;
          still.set(k, prev);
        } else {
          const n = { top: r, bottom: r, left: l, right: rr };
          out.push(n);
          still.set(k, n);
        }
      }
      open.clear();
      for (const [k, v] of still) open.set(k, v);
    }
    return out;
  }

  private query(obj: Obj, select: string[] | null, query?: { Top?: number | null; Skip?: number | null }): unknown {
    const pick = (all: Record<string, () => unknown>) => {
      const out: Record<string, unknown> = {};
      const names = select && select.length > 0 ? select : Object.keys(all).map((k) => k.charAt(0).toLowerCase() + k.slice(1));
      for (const n of names) {
        if (n === "isNullObject") continue;
        const getter = all[cap(n)];
        if (!getter) throw new WireError("NotImplemented", `property ${obj.t}.${n}`);
        out[cap(n)] = getter();
      }
      return out;
    };
    switch (obj.t) {
      case "Range":
        return pick(this.rangeProps(obj.sheet, obj.rect));
      case "RangeAreas":
        return pick({
          AreaCount: () => obj.areas.length,
          CellCount: () => obj.areas.reduce((n, a) => n + (a.bottom - a.top + 1) * (a.right - a.left + 1), 0),
          Address: () => obj.areas.map((a) => `${quote(obj.sheet.name)}!${a1(a)}`).join(","),
        });
      case "Areas": {
        const from = query?.Skip ?? 0;
        const page = obj.areas.slice(from, query?.Top === undefined || query.Top === null ? undefined : from + query.Top);
        return { _Items: page.map((a) => pick(this.rangeProps(obj.sheet, a))) };
      }
      case "Worksheet":
        return pick({ Name: () => obj.sheet.name, Id: () => obj.sheet.name });
      case "Worksheets":
        return { _Items: [...this.sheets.values()].map((s) => ({ ...pick({ Name: () => s.name }), Id: s.name })) };
      case "Table":
        return pick({ Name: () => obj.table.name, Id: () => obj.table.name, ShowTotals: () => obj.table.totals });
      case "Tables":
        return { _Items: this.tableItems(obj).map((t) => ({ ...pick({ Name: () => t.name, ShowTotals: () => t.totals }), Id: t.name })) };
      case "Comments": {
        const from = query?.Skip ?? 0;
        const all = this.commentItems(obj);
        const page = all.slice(from, query?.Top === undefined || query.Top === null ? undefined : from + query.Top);
        return { _Items: page.map((c) => ({ ...pick({ Content: () => c.content, Id: () => c.id }), Id: c.id })) };
      }
      case "Comment": {
        const c = obj.sheet.comments.get(obj.key)!;
        return pick({ Content: () => c.content, Id: () => c.id });
      }
      default:
        throw new WireError("NotImplemented", `query on ${obj.t}`);
    }
  }

  rangeProps(sheet: WireSheet, rect: Rect): Record<string, () => unknown> {
    const rows = rect.bottom - rect.top + 1;
    const columns = rect.right - rect.left + 1;
    const grid = <T>(f: (cell: WireCell | undefined) => T): T[][] => {
      if (rows * columns > 5_000_000) throw new WireError("ResponsePayloadSizeLimitExceeded", "too many cells");
      return Array.from({ length: rows }, (_, i) => {
        const row = sheet.rows[rect.top + i];
        return Array.from({ length: columns }, (_, j) => f(row?.[rect.left + j]));
      });
    };
    let hidden = 0;
    for (const r of sheet.hidden) if (r >= rect.top && r <= rect.bottom) hidden++;
    return {
      Address: () => `${quote(sheet.name)}!${a1(rect)}`,
      RowIndex: () => rect.top,
      ColumnIndex: () => rect.left,
      RowCount: () => rows,
      ColumnCount: () => columns,
      CellCount: () => rows * columns,
      Values: () => grid((c) => c?.v ?? ""),
      Formulas: () => grid((c) => c?.f ?? c?.v ?? ""),
      ValueTypes: () => grid(valueType),
      NumberFormat: () => grid((c) => c?.nf ?? "General"),
      RowHidden: () => (hidden === 0 ? false : hidden === rows ? true : null),
      HasSpill: () => false,
    };
  }

  private set(obj: Obj, name: string, value: unknown): void {
    const key = `${obj.t}.${name}`;
    switch (key) {
      case "Range.Values": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        this.writeValues(sheet, rect, value);
        return;
      }
      case "Range.NumberFormat": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        this.setFormats(sheet, rect, value);
        return;
      }
      case "Table.Name": {
        const t = (obj as { table: WireTable }).table;
        if (this.tableNamed(String(value)) && this.tableNamed(String(value)) !== t)
          throw new WireError("InvalidArgument", "table name taken");
        this.tables.delete(t.name);
        t.name = String(value);
        this.tables.set(t.name, t);
        return;
      }
      case "Format.ColumnWidth": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        for (let c = rect.left; c <= rect.right; c++) sheet.widths.set(c, value as number);
        return;
      }
      case "Font.Bold": {
        const { sheet, rect } = obj as { sheet: WireSheet; rect: Rect };
        if (value === true) for (let r = rect.top; r <= rect.bottom; r++) sheet.bold.add(r);
        return;
      }
      default:
        throw new WireError("NotImplemented", `set ${key}`);
    }
  }

  /** A table over a range with its header row; a header-only range gets one empty body row, as in Excel. */
  createTable(sheet: WireSheet, rect: Rect): WireTable {
    const full = { ...rect, bottom: rect.bottom + (rect.bottom === rect.top ? 1 : 0) };
    let n = 1;
    while (this.tableNamed(`Table${n}`)) n++;
    return this.addTable(`Table${n}`, sheet.name, full);
  }

  addTableColumn(table: WireTable, name: string): void {
    table.rect = { ...table.rect, right: table.rect.right + 1 };
    table.sheet.put(table.rect.top, table.rect.right, { v: name || `Column${table.rect.right - table.rect.left + 1}` });
  }

  addTableRows(table: WireTable, values: CellValue[][]): void {
    const width = table.rect.right - table.rect.left + 1;
    if (!Array.isArray(values) || values.some((r) => r.length !== width))
      throw new WireError("InvalidArgument", `rows.add needs rows of ${width} values`);
    const at = table.rect.bottom + 1;
    this.shiftDown(table.sheet, at, table.rect.left, table.rect.right, values.length);
    table.rect = { ...table.rect, bottom: table.rect.bottom + values.length };
    this.writeValues(table.sheet, rectOf(at, table.rect.left, values.length, width), values);
  }

  setFormats(sheet: WireSheet, rect: Rect, value: unknown): void {
    this.eachCell(rect, value, "NumberFormat", (r, c, f) => {
      if (f === null) return;
      sheet.put(r, c, { ...(sheet.cell(r, c) ?? { v: "" }), nf: String(f) });
    });
  }

  /** A 2D array matching the range, or one value for every cell (Office.js's documented broadcast). */
  private eachCell(rect: Rect, value: unknown, what: string, f: (r: number, c: number, v: unknown) => void): void {
    const rows = rect.bottom - rect.top + 1;
    const columns = rect.right - rect.left + 1;
    if (!Array.isArray(value)) {
      if (rows * columns > 2_000_000) throw new WireError("NotImplemented", "broadcast over a huge range");
      for (let r = rect.top; r <= rect.bottom; r++) for (let c = rect.left; c <= rect.right; c++) f(r, c, value);
      return;
    }
    const grid = value as unknown[][];
    if (grid.length !== rows || grid.some((row) => !Array.isArray(row) || row.length !== columns))
      throw new WireError(
        "InvalidArgument",
        `${what}: ${grid.length}×${(grid[0] as unknown[] | undefined)?.length} values for a ${rows}×${columns} range`,
      );
    grid.forEach((row, i) => row.forEach((v, j) => f(rect.top + i, rect.left + j, v)));
  }

  /** Values written as Excel reads them: text into a cell not formatted "@" may become a number, a date or a formula. */
  writeValues(sheet: WireSheet, rect: Rect, value: unknown): void {
    this.eachCell(rect, value, "Values", (r, c, v) => {
      if (v === null) return; // null leaves the cell as it is
      const key = `${r},${c}`;
      const before = sheet.cell(r, c);
      if (before?.spilledFrom || sheet.spills.has(key)) sheet.spills.delete(before?.spilledFrom ?? key); // writing over a spill ends it
      const stored = excelStores(v as CellValue, before?.nf);
      sheet.put(r, c, { v: stored.value, f: stored.formula, nf: before?.nf });
    });
  }

  /** Inserts `count` empty rows at `at` in columns left..right (cells below move down). */
  shiftDown(sheet: WireSheet, at: number, left: number, right: number, count: number): void {
    for (let r = sheet.rows.length - 1; r >= at; r--) {
      for (let c = left; c <= right; c++) {
        const cell = sheet.rows[r]?.[c];
        if (cell) {
          sheet.put(r + count, c, cell);
          sheet.rows[r]![c] = undefined;
        }
      }
    }
  }

  /** Deletes a range's cells, moving the cells below it up; a table whose whole rows are deleted loses them. */
  deleteUp(sheet: WireSheet, rect: Rect): void {
    const count = rect.bottom - rect.top + 1;
    for (let r = rect.top; r < sheet.rows.length; r++) {
      for (let c = rect.left; c <= rect.right; c++) {
        const below = sheet.rows[r + count]?.[c];
        if (below) sheet.put(r, c, below);
        else if (sheet.rows[r]) sheet.rows[r]![c] = undefined;
      }
    }
    for (const t of this.tables.values()) {
      if (t.sheet !== sheet || t.rect.left !== rect.left || t.rect.right !== rect.right) continue;
      if (rect.top > t.rect.top && rect.bottom <= t.rect.bottom) {
        t.rect = { ...t.rect, bottom: Math.max(t.rect.top + 1, t.rect.bottom - count) };
      }
    }
  }
}
