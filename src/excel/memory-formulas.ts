// Excel's calculation of HEDGE.* formulas on a memory workbook sheet, for the harness's smoke run: each formula calls the function as the page registered it (CustomFunctions.associate), its results land in the cells (spilling), and Snapshot to values replaces them by the real plan.
import type { CellValue } from "../trading/cells";
import { isHedgeFormula, planSnapshot, type SnapshotResult, type Snapshotter } from "../monthend/snapshot-plan";
import type { MemoryWorkbook } from "./memory-workbook";
import { formatAddress, parseAddress } from "./memory-grid";

const at = (row: number, column: number) => formatAddress({ top: row, bottom: row, left: column, right: column });

type Registered = (...args: unknown[]) => unknown;

interface Live {
  row: number;
  column: number;
  formula: string;
  shown: CellValue[][];
  /** Excel's valueTypes of what it shows ("Error" for #BUSY!, #N/A, #VALUE!). */
  types: string[][];
  cancel: () => void;
}

/** The functions as the page registered them: CustomFunctions.associate keeps them by upper-case id (Office.js's Association). */
function registeredFunctions(): Record<string, Registered> {
  const ns = typeof CustomFunctions === "undefined" ? undefined : (CustomFunctions as unknown as { _association?: { mappings?: object } });
  return (ns?._association?.mappings ?? {}) as Record<string, Registered>;
}

/** The arguments of `=HEDGE.NAME(a, b, …)`: "text" (with "" inside), numbers, and empty (omitted) arguments. */
function parseHedgeCall(formula: string): { id: string; args: Array<string | number | undefined> } {
  const m = /^=HEDGE\.([A-Z_][A-Z0-9_]*)\((.*)\)$/i.exec(formula.trim());
  if (!m) throw new Error(`Not a HEDGE.* call with literal arguments: ${formula}`);
  const args: Array<string | number | undefined> = [];
  const text = m[2].trim();
  if (text === "") return { id: m[1].toUpperCase(), args };
  for (const part of text.match(/"(?:[^"]|"")*"|[^,]+|(?<=,)(?=,|$)|^(?=,)/g) ?? []) {
    const p = part.trim();
    if (p === "") args.push(undefined);
    else if (p.startsWith('"')) args.push(p.slice(1, -1).replaceAll('""', '"'));
    else if (Number.isFinite(Number(p))) args.push(Number(p));
    else throw new Error(`Argument ${p} of ${formula}: only "text" and numbers here`);
  }
  return { id: m[1].toUpperCase(), args };
}

const isCellError = (v: unknown): v is { code?: string; message?: string } => typeof v === "object" && v !== null && !Array.isArray(v);

/** The HEDGE.* formulas of one sheet of a memory workbook, calculated by the registered functions. */
export class MemoryFormulas {
  private readonly live = new Map<string, Live>();

  constructor(
    private readonly workbook: MemoryWorkbook,
    readonly sheet: string,
    private readonly functions: () => Record<string, Registered> = registeredFunctions,
  ) {}

  /** Enters a formula at an address of the sheet ("H3"): Excel calls the function; a streaming one keeps setting the cell. */
  enter(address: string, formula: string): void {
    const { top: row, left: column } = parseAddress(address);
    this.live.get(`${row},${column}`)?.cancel();
    const { id, args } = parseHedgeCall(formula);
    const fn = this.functions()[id];
    const cell: Live = { row, column, formula, shown: [["#BUSY!"]], types: [["Error"]], cancel: () => undefined };
    this.live.set(`${row},${column}`, cell);
    const show = (value: unknown) => {
      if (this.live.get(`${row},${column}`) !== cell) return;
      this.clear(cell);
      if (isCellError(value)) {
        cell.shown = [[`#N/A ${String(value.message ?? "")}`]];
        cell.types = [["Error"]];
      } else {
        cell.shown = Array.isArray(value) ? (value as CellValue[][]) : [[value as CellValue]];
        cell.types = cell.shown.map((r) => r.map((v) => (typeof v === "number" ? "Double" : "String")));
      }
      this.workbook.writeRaw(this.sheet, row, column, cell.shown);
    };
    if (!fn) return show({ message: `#NAME? HEDGE.${id} is not registered` });
    const cancels: Array<() => void> = [];
    cell.cancel = () => cancels.forEach((c) => c());
    // The invocation Excel hands a function: its address, setResult for streaming ones, onCanceled when the cell changes.
    const invocation = {
      address: `${this.sheet}!${at(row, column)}`,
      parameterAddresses: [],
      setResult: show,
      set onCanceled(handler: () => void) {
        cancels.push(handler);
      },
    };
    try {
      const returned = fn(...args, invocation);
      if (returned !== undefined) void Promise.resolve(returned).then(show, (e: unknown) => show({ message: String(e) }));
    } catch (e) {
      show({ message: e instanceof Error ? e.message : String(e) });
    }
  }

  /** What the formula's cell shows now (its whole spill). */
  shown(address: string): CellValue[][] {
    const { top, left } = parseAddress(address);
    return this.live.get(`${top},${left}`)?.shown ?? [[this.workbook.cells(this.sheet)[top]?.[left] ?? null]];
  }

  /** The formulas still on the sheet. */
  formulas(): string[] {
    return [...this.live.values()].map((c) => c.formula);
  }

  /** Snapshot to values of the whole sheet, planned by the same code as in Excel (snapshot-plan.ts). */
  snapshotter(): Snapshotter {
    return {
      snapshot: async (_scope, when = new Date()) => {
        const cells = [...this.live.values()].filter((c) => isHedgeFormula(c.formula));
        const plan = planSnapshot(
          cells.map((c) => ({ ...c, shown: { row: c.row, column: c.column, values: c.shown, valueTypes: c.types } })),
          when,
        );
        for (const w of plan.writes) {
          const key = `${w.row},${w.column}`;
          this.live.get(key)?.cancel();
          this.live.delete(key);
          this.workbook.writeRaw(this.sheet, w.row, w.column, w.values);
        }
        const result: SnapshotResult = {
          sheetName: this.sheet,
          address: `${this.sheet}!A1`,
          replaced: plan.writes.map((w) => ({
            address: at(w.row, w.column),
            formula: w.formula,
            rows: w.values.length,
            columns: w.values[0]?.length ?? 0,
          })),
          skipped: plan.skipped.map((s) => ({ address: at(s.row, s.column), formula: s.formula, reason: s.reason })),
          cells: plan.cellCount,
          marker: "none",
        };
        return result;
      },
    };
  }

  /** Empties the cells a formula showed before (a spill that shrank). */
  private clear(cell: Live): void {
    this.workbook.writeRaw(
      this.sheet,
      cell.row,
      cell.column,
      cell.shown.map((r) => r.map(() => null)),
    );
  }
}
