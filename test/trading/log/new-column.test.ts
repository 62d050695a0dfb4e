// A new Hedge Log column is one line of LOG_COLUMNS: with two columns added to the list (one of the body, one of the outcome), the intent carries them, a status update sets the new outcome, this computer's journal keeps both (and writes them back into a log that lost the row), the chain's newest form covers both while version 1 stays as released, and the memory and Office.js workbooks write and read them by header.
import type * as Columns from "../../../src/trading/log/log-columns";
import { OfficeWorkbook } from "../../../src/excel/office-workbook";
import { LOG_SHEET_NAME } from "../../../src/trading/log/hedge-log";
import { ExcelModel } from "../../excel/excel-model";

const COLUMNS_MODULE = "../../../src/trading/log/log-columns";
const ACCOUNT = "0x00000000000000000000000000000000000000aa";
const NOW = new Date("2026-11-23T12:00:00.000Z");

/** The two columns the test adds, as the recipe writes them: the next chain version (2). */
const ADDED = [
  { field: "counterparty", header: "Counterparty", kind: "text", numberFormat: "@", width: 120, part: "body", chain: 2 },
  { field: "settlementNote", header: "Settlement note", kind: "text", numberFormat: "@", width: 160, part: "outcome", chain: 2 },
];

/** The modules of the log's way, loaded afresh over LOG_COLUMNS with `extra` appended (as if the list said so). */
function loadWith(extra: readonly object[]) {
  let loaded: {
    hedgeLog: typeof import("../../../src/trading/log/hedge-log");
    chain: typeof import("../../../src/trading/log/log-chain");
    intent: typeof import("../../../src/trading/intent");
    store: typeof import("../../../src/trading/intent-store");
    journal: typeof import("../../../src/trading/journal");
    memory: typeof import("../../../src/excel/memory-workbook");
    memoryStore: typeof import("../../../src/excel/intent-store");
    workbook: typeof import("../../../src/trading/workbook");
    office: typeof import("../../../src/excel/office-workbook");
  };
  jest.isolateModules(() => {
    jest.doMock(COLUMNS_MODULE, () => {
      const real = jest.requireActual<typeof Columns>(COLUMNS_MODULE);
      return { ...real, LOG_COLUMNS: [...real.LOG_COLUMNS, ...extra] };
    });
    /* eslint-disable @typescript-eslint/no-require-imports */
    loaded = {
      hedgeLog: require("../../../src/trading/log/hedge-log"),
      chain: require("../../../src/trading/log/log-chain"),
      intent: require("../../../src/trading/intent"),
      store: require("../../../src/trading/intent-store"),
      journal: require("../../../src/trading/journal"),
      memory: require("../../../src/excel/memory-workbook"),
      memoryStore: require("../../../src/excel/intent-store"),
      workbook: require("../../../src/trading/workbook"),
      office: require("../../../src/excel/office-workbook"),
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  jest.dontMock(COLUMNS_MODULE);
  return loaded!;
}

const OPEN_ROW = {
  rowNumber: 2,
  action: "open" as const,
  market: "USDTNGN",
  side: "buy" as const,
  notional: 50_000,
  tenor: 7 as const,
  clientReference: "D-1",
};

describe("a column appended to LOG_COLUMNS is taken up everywhere (one line and this test)", () => {
  const m = loadWith(ADDED);
  type Extra = { counterparty?: string | null; settlementNote?: string | null };

  it("the field lists: the body gets the body column, status updates the outcome column; the chain a version 2 form with each at its end, version 1 untouched", () => {
    expect(m.hedgeLog.LOG_HEADERS.slice(-2)).toEqual(["Counterparty", "Settlement note"]);
    expect(m.hedgeLog.LOG_BODY_FIELDS.at(-1)).toBe("counterparty");
    expect(m.hedgeLog.LOG_STATUS_FIELDS.at(-1)).toBe("settlementNote");
    const [v1, v2] = m.chain.CHAIN_FORMS;
    expect(m.chain.CHAIN_FORMS).toHaveLength(2);
    expect(m.chain.chainVersion()).toBe(2);
    expect(v1).toEqual(
      jest.requireActual<typeof import("../../../src/trading/log/log-chain")>("../../../src/trading/log/log-chain").CHAIN_FORMS[0],
    );
    expect(v2).toEqual({ version: 2, body: [...v1.body, "counterparty"], final: [...v1.final, "settlementNote"] });
  });

  it("the intent carries both, to its log row and back, and a status change sets the new outcome", () => {
    const intent = m.intent.intentFromRow(OPEN_ROW, "k-1", "sandbox", "2026-11-23T09:00:00.000Z", ACCOUNT) as ReturnType<
      typeof m.intent.intentFromRow
    > &
      Extra;
    expect([intent.counterparty, intent.settlementNote]).toEqual([null, null]);
    intent.counterparty = "ACME";
    const changed = m.intent.applyPatch(intent, { status: "submitted", settlementNote: "T+0" } as never);
    expect(changed).toEqual({ status: "submitted", settlementNote: "T+0" });
    const record = m.intent.intentToLogRecord(intent) as ReturnType<typeof m.intent.intentToLogRecord> & Extra;
    expect([record.counterparty, record.settlementNote]).toEqual(["ACME", "T+0"]);
    const back = m.intent.intentFromLogRecord(record) as Extra;
    expect([back.counterparty, back.settlementNote]).toEqual(["ACME", "T+0"]);
  });

  it("the journal writes both to the log (by header, linked in version 2) and to this computer's journal, which writes them back into a log that lost the row", async () => {
    const store = new m.memoryStore.MemoryIntentStore();
    const scope = m.store.intentScope("sandbox", ACCOUNT);
    const file = () =>
      new m.memory.MemoryWorkbook({ customProperties: { [m.workbook.WORKBOOK_ID_PROPERTY]: "wb-this" }, name: "Hedges.xlsx" });
    const journalOn = (wb: InstanceType<typeof m.memory.MemoryWorkbook>) =>
      new m.journal.Journal(wb, { store, scope, now: () => NOW, flushDelayMs: 60_000 });

    const wb = file();
    const journal = journalOn(wb);
    await journal.load();
    const intent = m.intent.intentFromRow(OPEN_ROW, "k-1", "sandbox", "2026-11-23T09:00:00.000Z", ACCOUNT);
    (intent as Extra).counterparty = "ACME";
    await journal.append([intent]);
    journal.update(intent, { status: "submitted", hedgeId: "h-1", settlementNote: "T+0" } as never);
    await journal.flush();

    const [logged] = (await wb.readLog()) as Array<Awaited<ReturnType<typeof wb.readLog>>[number] & Extra>;
    expect([logged.counterparty, logged.settlementNote, logged.status]).toEqual(["ACME", "T+0", "submitted"]);
    expect(m.chain.versionOf(logged.rowHash!, logged)).toBe(2);
    const [kept] = await store.load(scope);
    expect([(kept.record as Extra).counterparty, (kept.record as Extra).settlementNote]).toEqual(["ACME", "T+0"]);

    // The workbook closed without saving: the file reopens without the log. It cannot be told from a copy (issue 40
    // item 5), so the row is asked about; on the user's word the journal writes it back, whole.
    const reopened = file();
    const again = journalOn(reopened);
    await again.load();
    expect(again.copiedRows().map((i) => i.idempotencyKey)).toEqual(["k-1"]);
    await again.restore(["k-1"]);
    const [restored] = (await reopened.readLog()) as Array<Extra & { idempotencyKey: string }>;
    expect([restored.idempotencyKey, restored.counterparty, restored.settlementNote]).toEqual(["k-1", "ACME", "T+0"]);
  });

  it("the Office.js adapter appends both to a log written before them, by header at its end, and writes and reads them", async () => {
    const model = new ExcelModel();
    await new OfficeWorkbook(model.excel).ensureLog(); // a log as today's version makes it
    const wb = new m.office.OfficeWorkbook(model.excel);
    const record = {
      ...m.intent.intentToLogRecord(m.intent.intentFromRow(OPEN_ROW, "k-1", "sandbox", "2026-11-23T09:00:00.000Z", ACCOUNT)),
      counterparty: "ACME",
    };
    await wb.appendLog([record]);
    expect(await wb.updateLog([{ idempotencyKey: "k-1", status: "submitted", settlementNote: "T+0" } as never])).toEqual({ missing: [] });
    expect(model.grid(LOG_SHEET_NAME)[0].slice(-3)).toEqual(["Final hash", "Counterparty", "Settlement note"]);
    const [read] = (await wb.readLog()) as Array<Extra & { status: string }>;
    expect([read.counterparty, read.settlementNote, read.status]).toEqual(["ACME", "T+0", "submitted"]);
  });

  it("an entry this computer's journal wrote before the columns existed still reads, with them empty", () => {
    const before = JSON.stringify([2, 28, ...Array.from({ length: 28 }, (_, i) => (i === 8 ? "k-1" : null)), null, null, null]);
    const entry = m.store.decodeStoredIntent(before)!;
    expect(entry.record.idempotencyKey).toBe("k-1");
    expect([(entry.record as Extra).counterparty, (entry.record as Extra).settlementNote]).toEqual([null, null]);
  });
});

describe("every column of today's list", () => {
  // Imported as the rest of the tests do: the list as it is.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { LOG_BODY_FIELDS, LOG_COLUMNS, LOG_STATUS_FIELDS } =
    require("../../../src/trading/log/hedge-log") as typeof import("../../../src/trading/log/hedge-log");
  const intent = require("../../../src/trading/intent") as typeof import("../../../src/trading/intent");
  const store = require("../../../src/trading/intent-store") as typeof import("../../../src/trading/intent-store");
  /* eslint-enable @typescript-eslint/no-require-imports */
  const base = intent.intentToLogRecord(intent.intentFromRow(OPEN_ROW, "k-1", "sandbox", "2026-11-23T09:00:00.000Z", ACCOUNT));
  /** A record with a value of its own in every column (the key kept usable, the typed fields valid). */
  const full = () => {
    const record = { ...base } as unknown as Record<string, unknown>;
    LOG_COLUMNS.forEach((c, i) => {
      if (!["idempotencyKey", "environment", "action", "market", "side", "status", "tenor"].includes(c.field))
        record[c.field] = c.kind === "text" || c.kind === "date" ? `v${i}` : i;
    });
    return record as unknown as typeof base;
  };

  it("status updates set the outcome columns, the Account (claimed on an older log's row) and the Final hash; the body is the rest but the links", () => {
    const outcome = LOG_COLUMNS.filter((c) => c.part === "outcome").map((c) => c.field);
    expect(LOG_STATUS_FIELDS).toEqual([...outcome.slice(0, 8), "account", ...outcome.slice(8), "finalHash"]);
    expect(LOG_BODY_FIELDS).toEqual(LOG_COLUMNS.filter((c) => c.part === "body").map((c) => c.field));
    expect(LOG_BODY_FIELDS).toHaveLength(13);
  });

  it("goes from a log row into the intent and back unchanged; an empty or absent cell reads as null", () => {
    expect(intent.intentToLogRecord(intent.intentFromLogRecord(full())!)).toEqual(full());
    for (const c of LOG_COLUMNS.filter(
      (c) => !["idempotencyKey", "environment", "action", "market", "side", "status", "loggedAt"].includes(c.field),
    )) {
      const blank = intent.intentFromLogRecord({ ...full(), [c.field]: "" }) as unknown as Record<string, unknown>;
      const absent = intent.intentFromLogRecord({ ...full(), [c.field]: undefined }) as unknown as Record<string, unknown>;
      expect([c.field, blank[c.field], absent[c.field]]).toEqual([c.field, null, null]);
    }
  });

  it("is kept by this computer's journal but the chain's cells, which read as null even when a text holds them", () => {
    const entry = {
      record: full(),
      keyId: null,
      anchor: null,
      finalAt: null,
      workbookId: null,
      workbookName: null,
      dismissedIn: [],
      parkedFor: null,
    };
    const text = store.encodeStoredIntent(entry);
    const links = LOG_COLUMNS.flatMap((c, i) => (c.part === "link" ? [i] : []));
    const parsed = JSON.parse(text) as unknown[];
    expect(links.map((i) => parsed[2 + i])).toEqual(links.map(() => null));
    const expected = { ...full(), prevHash: null, rowHash: null, finalHash: null };
    expect(store.decodeStoredIntent(text)!.record).toEqual(expected);
    // A text holding the chain's cells (another version's) still reads them as null: they are the log's.
    links.forEach((i) => (parsed[2 + i] = "f".repeat(64)));
    expect(store.decodeStoredIntent(JSON.stringify(parsed))!.record).toEqual(expected);
  });
});
