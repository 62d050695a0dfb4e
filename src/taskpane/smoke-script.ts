// The in-add-in smoke script of test builds (npm run test:excel, test/e2e/excel-smoke.test.ts): HEDGE.* cells and the pane driven through their real code paths, inside Excel or the harness page, each observation posted to Microsoft's test server.
import type { CellValue } from "../trading/cells";
import type { LogRecord } from "../trading/log/hedge-log";
import type { Snapshotter } from "../monthend/snapshot-plan";

/** One observation, in the shape of Microsoft's sample (office-addin-test-helpers' sendTestResults posts the list). */
export interface SmokeObservation {
  Name: string;
  Value: unknown;
}

/** The sheet the script works on: Excel's own (src/excel/smoke-sheet.ts) or the memory workbook's (src/excel/memory-formulas.ts). */
export interface SmokeSheet {
  prepare(): Promise<void>;
  writeRows(rows: CellValue[][], select: string): Promise<void>;
  enter(address: string, formula: string): Promise<void>;
  shown(address: string): Promise<CellValue[][]>;
  formulas(): Promise<string[]>;
  close?(): Promise<void>;
}

interface SmokeOptions {
  sheet: SmokeSheet;
  /** Snapshot to values as the pane has it (officeSnapshotter() in Excel). */
  snapshotter: Snapshotter;
  /** The pane's workbook's Hedge Log. */
  readLog: () => Promise<LogRecord[]>;
  /** The sandbox's demo key and base URL (a test build only: the script refuses any other than a loopback sandbox). */
  apiKey: string;
  baseUrl: string;
  /** Each wait's bound. */
  waitMs?: number;
  /** Where each observation goes as it is made (the page's console and data attribute). */
  onObservation?: (o: SmokeObservation) => void;
}

/** What the script asks and trades: one market, one Open of 100,000 USD buy for 7 days. */
const SMOKE_MARKET = "USDTNGN";
const SMOKE_NOTIONAL = 100_000;
/** Where the formulas go on the smoke sheet (the trade row is at A1:E2). */
const CELLS = { version: "H1", price: "H3", quote: "H5", positions: "H7" };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const el = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The pane has no #${id}`);
  return found as T;
};

/** Waits until `probe` gives a value other than undefined, or fails naming `what`. */
async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, waitMs: number): Promise<T> {
  const deadline = Date.now() + waitMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`Waited ${waitMs / 1000} s for ${what}${last ? ` (${String(last)})` : ""}`);
    await sleep(250);
  }
}

const isBusy = (v: CellValue) => v === null || v === "" || (typeof v === "string" && v.startsWith("#"));

/** The pane's buttons are Fluent elements: a click event is how the user's press reaches them. */
const press = (id: string) => el(id).click();
const visible = (id: string) => {
  const e = document.getElementById(id);
  return e !== null && !e.hidden && !e.closest("[hidden]");
};

/**
 * The script: each step's observation is recorded whatever happens (an error as { error }), so the test server's table
 * shows how far it got. 8 steps, in the order the issue lists them.
 */
// Over 80 lines: the eight steps read top to bottom as the IT team's table lists them; each is a few lines, split apart they would hide the order.
export async function runSmoke(options: SmokeOptions): Promise<SmokeObservation[]> {
  const waitMs = options.waitMs ?? 60_000;
  const { sheet } = options;
  const observations: SmokeObservation[] = [];
  const step = async (name: string, body: () => Promise<unknown>) => {
    let value: unknown;
    try {
      value = await body();
    } catch (e) {
      value = { error: e instanceof Error ? e.message : String(e) };
    }
    const o = { Name: name, Value: value };
    observations.push(o);
    options.onObservation?.(o);
  };
  const cellValue = (address: string, what: string, accept: (v: CellValue[][]) => boolean) =>
    until(
      what,
      async () => {
        const shown = await sheet.shown(address);
        return accept(shown) ? shown : undefined;
      },
      waitMs,
    );

  if (!/^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?\//.test(options.baseUrl) || !options.apiKey.startsWith("svc_test_"))
    throw new Error("The smoke script runs only with a sandbox key against a sandbox on this computer.");
  await sheet.prepare();
  const reference = `SMOKE-${Date.now()}`;

  await step("UserAgent", async () => navigator.userAgent);
  await step("VERSION", async () => {
    await sheet.enter(CELLS.version, "=HEDGE.VERSION()");
    return (await cellValue(CELLS.version, "=HEDGE.VERSION()", (v) => !isBusy(v[0][0])))[0][0];
  });
  await step("CONNECT", async () => {
    const key = el<HTMLInputElement>("api-key");
    key.value = options.apiKey;
    key.dispatchEvent(new Event("input", { bubbles: true }));
    (el("base-url") as HTMLElement & { value: string }).value = options.baseUrl;
    press("connect");
    await until(
      "the pane to connect",
      () => (/Connected with key/.test(el("connection-status").textContent ?? "") ? true : undefined),
      waitMs,
    );
    return { connected: true, environment: el("env-badge").textContent?.trim() ?? "" };
  });
  await step("PRICE", async () => {
    await sheet.enter(CELLS.price, `=HEDGE.PRICE("${SMOKE_MARKET}")`);
    return (await cellValue(CELLS.price, "a price in =HEDGE.PRICE", (v) => typeof v[0][0] === "number"))[0][0];
  });
  await step("QUOTE", async () => {
    const f = `=HEDGE.QUOTE("${SMOKE_MARKET}","buy",${SMOKE_NOTIONAL},7,"pricing.execution_price")`;
    await sheet.enter(CELLS.quote, f);
    return (await cellValue(CELLS.quote, "a value in =HEDGE.QUOTE", (v) => typeof v[0][0] === "number"))[0][0];
  });
  await step("OPEN", async () => {
    await sheet.writeRows(
      [
        ["Market", "Side", "Notional USD", "Tenor", "Client reference"],
        [SMOKE_MARKET, "buy", SMOKE_NOTIONAL, 7, reference],
      ],
      "A2:E2",
    );
    await until("the trade panel", () => (visible("read-selection") ? true : undefined), waitMs);
    press("read-selection");
    await until("Preview", () => (visible("preview") ? true : undefined), waitMs);
    press("preview");
    await until("the priced preview", () => (document.querySelector('#preview-table[data-state="final"]') ? true : undefined), waitMs);
    await until("Confirm", () => (visible("confirm") ? true : undefined), waitMs);
    press("confirm");
    const row = await until(
      "the row's final state",
      () => {
        const li = document.querySelector<HTMLElement>("#row-status li");
        const s = li?.dataset.status ?? "";
        return ["filled", "failed", "closed", "rejected", "not_sent"].includes(s) ? s : undefined;
      },
      waitMs,
    );
    return { status: row, rows: document.querySelectorAll("#row-status li").length };
  });
  await step("LOG", async () => {
    const row = await until(
      "its Hedge Log row filled",
      async () => (await options.readLog()).find((r) => r.clientReference === reference && r.status === "filled"),
      waitMs,
    );
    return { status: row.status, hedgeId: row.hedgeId !== null && row.hedgeId !== "", struckRate: row.struckRate, filledAt: row.filledAt };
  });
  await step("POSITIONS", async () => {
    await sheet.enter(CELLS.positions, `=HEDGE.POSITIONS("${SMOKE_MARKET}","buy")`);
    return cellValue(CELLS.positions, "=HEDGE.POSITIONS to spill the open hedge", (v) =>
      v.some((r) => r.includes(SMOKE_MARKET) && r.some((c) => typeof c === "number" && c >= SMOKE_NOTIONAL)),
    );
  });
  await step("SNAPSHOT", async () => {
    const result = await options.snapshotter.snapshot("sheet");
    const left = (await sheet.formulas()).filter((f) => /HEDGE\./i.test(f));
    return { replaced: result.replaced.length, skipped: result.skipped.length, cells: result.cells, hedgeFormulasLeft: left.length };
  });
  return observations;
}
