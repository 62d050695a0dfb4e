// The per-user intent journal over OfficeRuntime.storage (one small item per intent, per environment and account) and its bounds: final entries pruned after a week or beyond 2,000, unfinished ones never.
import { MemoryIntentStore, officeIntentStore } from "../../src/excel/intent-store";
import {
  FINAL_KEEP_COUNT,
  FINAL_KEEP_MS,
  decodeStoredIntent,
  encodeStoredIntent,
  intentScope,
  prunable,
  type StoredIntent,
} from "../../src/trading/intent-store";
import { intentFromRow, intentToLogRecord } from "../../src/trading/intent";
import { LOG_COLUMNS } from "../../src/trading/log/hedge-log";
import { Journal } from "../../src/trading/journal";
import { MemoryWorkbook } from "../../src/excel/memory-workbook";

/** OfficeRuntime.storage as the add-in sees it: string items by key. */
function fakeStorage(): OfficeRuntime.Storage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: async (k: string) => items.get(k) ?? null,
    setItem: async (k: string, v: string) => void items.set(k, v),
    removeItem: async (k: string) => void items.delete(k),
    getItems: async (keys: string[]) => Object.fromEntries(keys.map((k) => [k, items.get(k) ?? null])),
    setItems: async (kv: Record<string, string>) => void Object.entries(kv).forEach(([k, v]) => items.set(k, v)),
    removeItems: async (keys: string[]) => void keys.forEach((k) => items.delete(k)),
    getKeys: async () => [...items.keys()],
  } as unknown as OfficeRuntime.Storage & { items: Map<string, string> };
}

const entry = (key: string, finalAt: string | null = null, over: Partial<StoredIntent> = {}): StoredIntent => {
  const intent = intentFromRow(
    { rowNumber: 2, action: "add", market: "USDTNGN", side: "buy", notional: 83_333.33, tenor: null, clientReference: "DEAL-1001" },
    key,
    "sandbox",
    "2026-11-23T08:00:00.000Z",
    "0x5a4d0e1b2c3f40516273849a0b1c2d3e4f506172",
  );
  return {
    record: { ...intentToLogRecord(intent), status: finalAt ? "filled" : "submitting" },
    keyId: "k0123456789abcdef",
    anchor: null,
    finalAt,
    workbookId: "wb-5d7e2f1a-0c3b-4e8d-9f6a-2b1c0d9e8f7a",
    workbookName: "Treasury hedges FY26.xlsx",
    dismissedIn: [],
    parkedFor: null,
    ...over,
  };
};

describe("OfficeRuntime.storage journal", () => {
  it("keeps one item per intent under its environment and account, beside the settings, and reads back what it wrote", async () => {
    const storage = fakeStorage();
    await storage.setItem("hedge.apiKey", "svc_test_secret");
    const store = officeIntentStore(storage);
    const a = intentScope("sandbox", "0xAA");
    const b = intentScope("production", "0xAA");
    await store.put(a, [entry("k1"), entry("k2", "2026-11-23T09:00:00.000Z")]);
    await store.put(b, [entry("k3")]);
    expect([...storage.items.keys()].sort()).toEqual([
      "hedge.apiKey",
      "hedge.intent.production:0xaa.k3",
      "hedge.intent.sandbox:0xaa.k1",
      "hedge.intent.sandbox:0xaa.k2",
    ]);
    expect((await store.load(a)).map((e) => e.record.idempotencyKey).sort()).toEqual(["k1", "k2"]);
    expect(await store.load(a)).toContainEqual(entry("k2", "2026-11-23T09:00:00.000Z"));
    await store.remove(a, ["k1"]);
    expect((await store.load(a)).map((e) => e.record.idempotencyKey)).toEqual(["k2"]);
    expect((await store.load(b)).map((e) => e.record.idempotencyKey)).toEqual(["k3"]);
    // An item another version wrote (or garbage) is left alone, not fatal.
    storage.items.set("hedge.intent.sandbox:0xaa.bad", "{not json");
    expect(await store.load(a)).toHaveLength(1);
  });

  it("an entry is small (a 10,000-row batch in flight stays well inside the ~10 MB OfficeRuntime.storage allows)", () => {
    const text = encodeStoredIntent(entry("5f0c2a8e-7b1d-4c3e-9a2f-1d2e3f4a5b6c"));
    expect(decodeStoredIntent(text)).toEqual(entry("5f0c2a8e-7b1d-4c3e-9a2f-1d2e3f4a5b6c"));
    expect(text.length).toBeLessThan(400);
    // A row sent under an approval keeps its batch hash and both fingerprints too (the chain's cells are the log's alone).
    const approved = entry("5f0c2a8e-7b1d-4c3e-9a2f-1d2e3f4a5b6c");
    Object.assign(approved.record, { batchHash: "e".repeat(64), preparedBy: "fp-0123456789abcdef", approvedBy: "fp-fedcba9876543210" });
    Object.assign(approved.record, { prevHash: "0".repeat(64), rowHash: "1".repeat(64), finalHash: "2".repeat(64) });
    expect(encodeStoredIntent(approved).length).toBeLessThan(500);
  });
});

describe("what the journal can read back", () => {
  it("an entry keeps its key's fingerprint, its anchor and when it became final; a scope is per environment and account, any case", () => {
    const full = entry("k1", "2026-11-23T09:00:00.000Z", { keyId: "k-fp", anchor: "k0" });
    expect(decodeStoredIntent(encodeStoredIntent(full))).toEqual(full);
    expect(intentScope("sandbox", "0xAbC")).toBe("sandbox:0xabc");
    expect(intentScope("production", null)).toBe("production:-");
  });

  it("text this version did not write is not an entry (and is then left alone): another format version, too short, no key", () => {
    const good = JSON.parse(encodeStoredIntent(entry("k1"))) as unknown[];
    const columns = good[1] as number;
    const keyAt = 2 + LOG_COLUMNS.findIndex((c) => c.field === "idempotencyKey");
    const variants = {
      version3: [3, ...good.slice(1)],
      noCount: [2, ...good.slice(2)],
      fewerColumnsThanTheFirstVersion: [2, 21, ...good.slice(2)],
      countNotWhole: [2, columns - 0.5, ...good.slice(2)],
      short: good.slice(0, 2 + columns + 2),
      object: { ...good },
      emptyKey: good.map((v, i) => (i === keyAt ? "" : v)),
      numberKey: good.map((v, i) => (i === keyAt ? 7 : v)),
    };
    for (const [name, value] of Object.entries(variants)) expect([name, decodeStoredIntent(JSON.stringify(value))]).toEqual([name, null]);
    expect(decodeStoredIntent("")).toBeNull();
    // Extras written by a later version are ignored.
    expect(decodeStoredIntent(JSON.stringify([...good, "later"]))).toEqual(entry("k1"));
  });

  it("an entry of the first text form (22 log columns, before the approval and chain columns) still reads, with those empty", () => {
    const good = JSON.parse(encodeStoredIntent(entry("k1"))) as unknown[];
    const firstColumns = LOG_COLUMNS.findIndex((c) => c.field === "batchHash");
    const first = [1, ...good.slice(2, 2 + firstColumns), ...good.slice(2 + (good[1] as number))];
    expect(decodeStoredIntent(JSON.stringify(first))).toEqual(entry("k1"));
  });

  it("an entry as the journal wrote it before issue 38 (25 columns: up to the chain's, which it did not hold) still reads the same", () => {
    const text =
      '[2,25,"2026-11-23T08:00:00.000Z","sandbox","add","USDTNGN","buy",83333.33,null,"DEAL-1001","5f0c2a8e-7b1d-4c3e-9a2f-1d2e3f4a5b6c",' +
      '"needs_decision","h_1","0xorder",null,null,null,null,"The service could not be asked","0x5a4d0e1b2c3f40516273849a0b1c2d3e4f506172",' +
      '100000,"2026-11-23T08:00:01.000Z",null,null,"' +
      "e".repeat(64) +
      '","fp-0123456789abcdef","fp-fedcba9876543210","k0123456789abcdef","k0",null,"wb-5d7e","Treasury hedges FY26.xlsx",["wb-b"],' +
      '"The service could not be asked (timeout)."]';
    const expected = entry("5f0c2a8e-7b1d-4c3e-9a2f-1d2e3f4a5b6c", null, {
      anchor: "k0",
      workbookId: "wb-5d7e",
      dismissedIn: ["wb-b"],
      parkedFor: "The service could not be asked (timeout).",
    });
    Object.assign(expected.record, {
      status: "needs_decision",
      hedgeId: "h_1",
      orderTxHash: "0xorder",
      message: "The service could not be asked",
      notionalBefore: 100000,
      sentAt: "2026-11-23T08:00:01.000Z",
      batchHash: "e".repeat(64),
      preparedBy: "fp-0123456789abcdef",
      approvedBy: "fp-fedcba9876543210",
    });
    expect(decodeStoredIntent(text)).toEqual(expected);
    // Written again now, it holds every column (the chain's as null) and reads back the same.
    const again = encodeStoredIntent(expected);
    expect(JSON.parse(again)[1]).toBe(LOG_COLUMNS.length);
    expect(decodeStoredIntent(again)).toEqual(expected);
  });

  it("every column but the chain's is kept, in LOG_COLUMNS order (a column added to the list is kept with no other change)", () => {
    const full = entry("k1");
    LOG_COLUMNS.forEach((c, i) => {
      if (c.field !== "idempotencyKey") (full.record as unknown as Record<string, unknown>)[c.field] = c.kind === "text" ? `v${i}` : i;
    });
    const kept = decodeStoredIntent(encodeStoredIntent(full))!.record as unknown as Record<string, unknown>;
    for (const c of LOG_COLUMNS)
      expect([c.field, kept[c.field]]).toEqual([
        c.field,
        c.part === "link" ? null : (full.record as unknown as Record<string, unknown>)[c.field],
      ]);
  });

  it("the journal keeps a row's approval, not its chain cells (the log's own: a row written back is a new link)", () => {
    const approved = entry("k1", null);
    Object.assign(approved.record, { batchHash: "b".repeat(64), preparedBy: "fp-0123456789abcdef", approvedBy: "fp-fedcba9876543210" });
    const chained = { ...approved, record: { ...approved.record, prevHash: "0".repeat(64), rowHash: "a".repeat(64), finalHash: null } };
    expect(decodeStoredIntent(encodeStoredIntent(chained))).toEqual({
      ...chained,
      record: { ...chained.record, rowHash: null, prevHash: null },
    });
  });

  it("an entry journalled before workbook ids were kept reads as of no known workbook; one dismissed keeps where", () => {
    const good = JSON.parse(encodeStoredIntent(entry("k1"))) as unknown[];
    const before = good.slice(0, 2 + (good[1] as number) + 3);
    expect(decodeStoredIntent(JSON.stringify(before))).toEqual(entry("k1", null, { workbookId: null, workbookName: null }));
    const dismissed = entry("k1", null, { dismissedIn: ["wb-b", "wb-c"] });
    expect(decodeStoredIntent(encodeStoredIntent(dismissed))).toEqual(dismissed);
    // An entry written without dismissals is dismissed nowhere; of a damaged list, only the workbook ids are read.
    expect(decodeStoredIntent(encodeStoredIntent(entry("k1", null, { dismissedIn: undefined })))?.dismissedIn).toEqual([]);
    const damaged = JSON.parse(encodeStoredIntent(dismissed)) as unknown[];
    damaged[damaged.length - 2] = ["wb-b", 7, null, "wb-c"];
    expect(decodeStoredIntent(JSON.stringify(damaged))?.dismissedIn).toEqual(["wb-b", "wb-c"]);
    // Why a row waits for a decision is kept; an entry written before it was (or with something else there) reads as none.
    const parked = entry("k1", null, { parkedFor: "The service could not be asked (timeout) since the row was sent 25 min ago." });
    expect(decodeStoredIntent(encodeStoredIntent(parked))).toEqual(parked);
    const odd = JSON.parse(encodeStoredIntent(parked)) as unknown[];
    odd[odd.length - 1] = 7;
    expect(decodeStoredIntent(JSON.stringify(odd))?.parkedFor).toBeNull();
  });

  it("this computer's newest link in a workbook reads back as written; text it cannot read there is no head kept (never a wrong one)", async () => {
    const storage = fakeStorage();
    const store = officeIntentStore(storage);
    const head = { workbookId: "wb-5d7e", rowHash: "a".repeat(64), writtenAt: "2026-11-23T08:00:01.000Z" };
    await store.putHead(head);
    expect(await store.loadHead("wb-5d7e")).toEqual(head);
    expect(await store.loadHead("wb-other")).toBeNull();
    const [name] = [...storage.items.keys()];
    for (const damaged of [
      "{not json",
      "null",
      JSON.stringify({ ...head, workbookId: 5 }),
      JSON.stringify({ ...head, rowHash: null }),
      JSON.stringify({ workbookId: head.workbookId, rowHash: head.rowHash }),
    ]) {
      storage.items.set(name, damaged);
      expect([damaged, await store.loadHead("wb-5d7e")]).toEqual([damaged, null]);
    }
  });

  it("nothing stored under a scope reads as no entries; writing or removing nothing writes nothing", async () => {
    const storage = fakeStorage();
    const setItems = jest.spyOn(storage, "setItems");
    const removeItems = jest.spyOn(storage, "removeItems");
    const store = officeIntentStore(storage);
    expect(await store.load("sandbox:0xaa")).toEqual([]);
    await store.put("sandbox:0xaa", []);
    await store.remove("sandbox:0xaa", []);
    expect([setItems.mock.calls.length, removeItems.mock.calls.length]).toEqual([0, 0]);
  });
});

describe("bounds", () => {
  const now = Date.parse("2026-11-30T00:00:00.000Z");
  it("final entries go after a week, and beyond the newest 2,000; unfinished ones never", () => {
    const old = entry("old", new Date(now - FINAL_KEEP_MS - 1).toISOString());
    const recent = entry("recent", new Date(now - 1_000).toISOString());
    const unfinished = { ...entry("open"), record: { ...entry("open").record, loggedAt: "2020-01-01T00:00:00.000Z" } };
    expect(prunable([old, recent, unfinished], now)).toEqual(["old"]);
    const many = Array.from({ length: FINAL_KEEP_COUNT + 3 }, (_, i) => entry(`f${i}`, new Date(now - 1_000 - i).toISOString()));
    expect(prunable(many, now)).toEqual(["f2000", "f2001", "f2002"]);
  });

  it("a final entry is kept for a week to the millisecond; of entries final at the same time the newest 2,000 by key are kept", () => {
    const week = entry("week", new Date(now - FINAL_KEEP_MS).toISOString());
    const over = entry("over", new Date(now - FINAL_KEEP_MS - 1).toISOString());
    expect(prunable([week, over], now)).toEqual(["over"]);
    const same = new Date(now - 1_000).toISOString();
    const many = Array.from({ length: FINAL_KEEP_COUNT + 1 }, (_, i) => entry(`k${String(i).padStart(4, "0")}`, same)).reverse();
    expect(prunable(many, now)).toEqual([`k${FINAL_KEEP_COUNT}`]);
    expect(prunable(many.slice(1), now)).toEqual([]);
  });

  it("unfinished entries are never pruned, however many final ones there are; ties go by key whatever the order read", () => {
    const full = Array.from({ length: FINAL_KEEP_COUNT }, (_, i) => entry(`f${i}`, new Date(now - 1_000 - i).toISOString()));
    expect(prunable([entry("unfinished"), ...full, entry("unfinished-2")], now)).toEqual([]);
    const same = new Date(now - 1_000).toISOString();
    const keys = Array.from({ length: FINAL_KEEP_COUNT + 1 }, (_, i) => `k${String(i).padStart(4, "0")}`);
    const shuffled = keys.map((k, i) => keys[(i * 7919) % keys.length]); // 7919 is prime to 2,001: every key once
    for (const order of [keys, shuffled])
      expect(
        prunable(
          order.map((k) => entry(k, same)),
          now,
        ),
      ).toEqual([`k${FINAL_KEEP_COUNT}`]);
  });

  it("the journal prunes on opening", async () => {
    const store = new MemoryIntentStore();
    const scope = intentScope("sandbox", "0x5a4d0e1b2c3f40516273849a0b1c2d3e4f506172");
    await store.put(scope, [entry("stale", "2026-11-01T00:00:00.000Z"), entry("fresh", "2026-11-29T00:00:00.000Z")]);
    const journal = new Journal(new MemoryWorkbook(), { store, scope, now: () => new Date(now) });
    await journal.load();
    expect((await store.load(scope)).map((e) => e.record.idempotencyKey)).toEqual(["fresh"]);
  });
});

describe("two panes on one journal (two workbooks open at once)", () => {
  const scope = intentScope("sandbox", "0xAA");
  const at = (e: StoredIntent, status: string, over: Partial<StoredIntent["record"]> = {}): StoredIntent => ({
    ...e,
    record: { ...e.record, status, ...over },
  });
  for (const [name, make] of [
    ["OfficeRuntime.storage", () => officeIntentStore(fakeStorage())],
    ["memory", () => new MemoryIntentStore()],
  ] as const) {
    it(`${name}: a slower pane's older copy never takes a row back, and never loses that it was sent`, async () => {
      const store = make();
      const sent = at(entry("k1"), "submitting", { sentAt: "2026-11-23T08:00:01.000Z", notionalBefore: 100_000 });
      await store.put(scope, [sent]);
      // The other pane still holds the row as journalled before it was sent: writing it must not erase Sent at
      // (a row with no Sent at may be sent blindly after a reopen).
      await store.put(scope, [entry("k1")]);
      let [row] = await store.load(scope);
      expect(row.record).toMatchObject({ status: "submitting", sentAt: "2026-11-23T08:00:01.000Z", notionalBefore: 100_000 });
      await store.put(scope, [at(sent, "filled")]);
      await store.put(scope, [at(sent, "submitted")]);
      await store.put(scope, [sent]);
      [row] = await store.load(scope);
      expect(row.record.status).toBe("filled");
      // Moves the state machine allows are taken: the user's word on a row that needed a decision included.
      await store.put(scope, [at(entry("k2"), "needs_decision")]);
      await store.put(scope, [at(entry("k2"), "submitted", { decision: "done: submitted" })]);
      expect((await store.load(scope)).find((e) => e.record.idempotencyKey === "k2")?.record).toMatchObject({
        status: "submitted",
        decision: "done: submitted",
      });
      // A newer write in the same state is taken (the hedge id an answer brought); the sending key is kept, or replaced.
      await store.put(scope, [at(entry("k3"), "submitted")]);
      await store.put(scope, [{ ...at(entry("k3"), "submitted", { hedgeId: "h-3" }), keyId: null }]);
      let k3 = (await store.load(scope)).find((e) => e.record.idempotencyKey === "k3")!;
      expect([k3.record.hedgeId, k3.keyId]).toEqual(["h-3", "k0123456789abcdef"]);
      await store.put(scope, [{ ...at(entry("k3"), "filled", { hedgeId: "h-3" }), keyId: "k-other" }]);
      k3 = (await store.load(scope)).find((e) => e.record.idempotencyKey === "k3")!;
      expect([k3.record.status, k3.keyId]).toEqual(["filled", "k-other"]);
      // …and so is a final row written again with what came later (its struck rate), final to final.
      await store.put(scope, [at(entry("k3"), "filled", { hedgeId: "h-3", struckRate: 1_502.5 })]);
      k3 = (await store.load(scope)).find((e) => e.record.idempotencyKey === "k3")!;
      expect(k3.record.struckRate).toBe(1_502.5);
      // The other pane's copy without the row's workbook, or without where it was dismissed, loses neither.
      await store.put(scope, [entry("k4", null, { dismissedIn: ["wb-b"] })]);
      await store.put(scope, [{ ...at(entry("k4"), "submitted"), workbookId: null, workbookName: null, dismissedIn: ["wb-c"] }]);
      const k4 = (await store.load(scope)).find((e) => e.record.idempotencyKey === "k4")!;
      expect([k4.record.status, k4.workbookId, k4.workbookName, k4.dismissedIn]).toEqual([
        "submitted",
        "wb-5d7e2f1a-0c3b-4e8d-9f6a-2b1c0d9e8f7a",
        "Treasury hedges FY26.xlsx",
        ["wb-b", "wb-c"],
      ]);
      // A row dismissed nowhere, written again, is still dismissed nowhere.
      await store.put(scope, [entry("k6", null, { dismissedIn: undefined })]);
      await store.put(scope, [entry("k6", null, { dismissedIn: undefined })]);
      expect((await store.load(scope)).find((e) => e.record.idempotencyKey === "k6")?.dismissedIn).toEqual([]);
      // A status this version does not know (a newer version's) neither blocks a write nor is kept over one.
      await store.put(scope, [at(entry("k5"), "archived")]);
      await store.put(scope, [at(entry("k5"), "submitted")]);
      await store.put(scope, [at(entry("k5"), "settled_elsewhere")]);
      expect((await store.load(scope)).find((e) => e.record.idempotencyKey === "k5")?.record.status).toBe("settled_elsewhere");
    });
  }
});
