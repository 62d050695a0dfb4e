// The merge on load (pure): which side's hedge id a row keeps, the seal a row final in the journal but not yet in the log gets, which missing rows are written back unasked, and whether a log is the workbook this computer wrote its rows into.
import { mayBeMine, mergeRow, ownerOf, ownLogOf, sealOf, writtenBack } from "../../src/trading/journal-merge";
import type { StoredIntent } from "../../src/trading/intent-store";
import { intentFromRow, intentToLogRecord, type Intent } from "../../src/trading/intent";
import { CHAIN_START, rowHashOf } from "../../src/trading/log/log-chain";

const ACCOUNT = "0x00000000000000000000000000000000000000aa";

function row(patch: Partial<Intent> = {}): Intent {
  const i = intentFromRow(
    { rowNumber: 2, action: "add", market: "USDTNGN", side: "buy", notional: 50_000, tenor: null, clientReference: null },
    "k-a",
    "sandbox",
    "2026-11-23T09:00:00.000Z",
    ACCOUNT,
  );
  return Object.assign(i, { keyId: "k-key", sentAt: "2026-11-23T09:01:00.000Z", notionalBefore: 100_000 }, patch);
}

/** The same row as the log holds it (a copy) and as this computer's journal holds it. */
function bothSides(log: Partial<Intent>, journal: Partial<Intent>) {
  const fromLog = row(log);
  return { fromLog, record: intentToLogRecord(fromLog), stored: row(journal) };
}

describe("the merge of one row on load: the hedge it acted on", () => {
  it("a Hedge ID typed over in the log of a row the journal is not behind: the journal's hedge stands and is written back", () => {
    const { fromLog, record, stored } = bothSides({ status: "submitted", hedgeId: "h-typed" }, { status: "submitted", hedgeId: "h-a" });
    const merged = mergeRow(fromLog, record, stored);
    expect(merged.intent.hedgeId).toBe("h-a");
    expect(merged.logFix).toEqual({ hedgeId: "h-a" });
    expect(merged.storeAgain).toBe(false);
  });

  it("a log row further on whose Hedge ID is empty (another session's fill written without it): the hedge the journal knows is kept", () => {
    const filled = { status: "filled" as const, struckRate: 1501, fillTxHash: "0xfill" };
    const { fromLog, record, stored } = bothSides({ ...filled, hedgeId: null }, { status: "submitted", hedgeId: "h-a" });
    const merged = mergeRow(fromLog, record, stored);
    expect(merged.intent).toMatchObject({ ...filled, hedgeId: "h-a" });
    expect(merged.logFix).toEqual({ hedgeId: "h-a" });
    expect(merged.storeAgain).toBe(true);
  });

  it("a log row that knows the hedge the journal does not (saved by another session): the log's hedge is taken", () => {
    const { fromLog, record, stored } = bothSides({ status: "submitted", hedgeId: "h-a" }, { status: "submitted", hedgeId: null });
    expect(mergeRow(fromLog, record, stored).intent.hedgeId).toBe("h-a");
  });
});

describe("the merge of one row on load: a log row edited or no longer usable", () => {
  it("an unfinished row edited in two cells keeps what was journalled, and its message names both, a comma between", () => {
    const { fromLog, record, stored } = bothSides({ status: "submitting", side: "sell", notional: 60_000 }, { status: "submitting" });
    const merged = mergeRow(fromLog, record, stored);
    expect([merged.intent.side, merged.intent.notional]).toEqual(["buy", 50_000]);
    expect(merged.edited).toEqual(["side", "notional"]);
    expect(merged.intent.message).toBe("The Hedge Log row was edited (side, notional): the add-in keeps what it journalled and sent.");
  });

  it("a log row no longer usable: the journal's row stands, its status goes back to the log, and this computer's journal is not written again", () => {
    const { record, stored } = bothSides({ market: "" }, { status: "submitted", hedgeId: "h-a" });
    const merged = mergeRow(null, record, stored);
    expect(merged).toEqual({ intent: stored, logFix: { status: "submitted", message: null }, storeAgain: false, edited: ["row"] });
  });
});

describe("the merge of one row on load: the seal", () => {
  const linked = (patch: Partial<Intent>) => {
    const prevHash = CHAIN_START;
    const rowHash = rowHashOf(prevHash, intentToLogRecord(row()));
    return { prevHash, rowHash, finalHash: null, ...patch };
  };

  it("a row final in the journal whose log row is still accepted (saved before the fill) gets its seal now, in the log too", () => {
    const { fromLog, record, stored } = bothSides(
      linked({ status: "submitted", hedgeId: "h-a" }),
      linked({ status: "filled", hedgeId: "h-a", struckRate: 1502, filledAt: "2026-11-23T09:05:00.000Z" }),
    );
    const merged = mergeRow(fromLog, record, stored);
    const seal = sealOf(merged.intent);
    expect(seal).toMatch(/^[0-9a-f]{64}$/);
    expect(merged.intent.finalHash).toBe(seal);
    expect(merged.logFix).toMatchObject({ status: "filled", struckRate: 1502, finalHash: seal });
  });

  it("a row final in the log keeps the log's seal as it is, even one that no longer matches (the chain check reports it)", () => {
    const { fromLog, record, stored } = bothSides(
      linked({ status: "filled", hedgeId: "h-a", struckRate: 1502, finalHash: "f".repeat(64) }),
      linked({ status: "submitted", hedgeId: "h-a" }),
    );
    const merged = mergeRow(fromLog, record, stored);
    expect(merged.intent.finalHash).toBe("f".repeat(64));
    expect(merged.logFix).toEqual({});
  });
});

describe("the rows the log lost written back unasked (writtenBack)", () => {
  const ME = { id: "wb-this", name: "Hedges.xlsx" };
  /** A journal entry of `workbookId` (null: journalled before ids were kept), final unless said, appended after `anchor`. */
  const entry = (key: string, anchor: string | null, workbookId: string | null, status: Intent["status"] = "filled"): StoredIntent => ({
    record: intentToLogRecord(row({ idempotencyKey: key, status })),
    keyId: "k-key",
    anchor,
    finalAt: null,
    workbookId,
  });
  const back = (missing: StoredIntent[], present: string[], live: string[] = []) =>
    [...writtenBack(missing, new Set(present), ME, (k) => (live.includes(k) ? row({ idempotencyKey: k }) : undefined), true)].sort();

  it("another workbook's row is never written back, even appended after a row this log holds", () => {
    expect(back([entry("a-1", "held", "wb-other"), entry("b-1", "held", ME.id)], ["held"])).toEqual(["b-1"]);
  });

  it("a final row is written back for a row appended after it only when that row is written back itself", () => {
    // x: final, of no known workbook, tied to nothing here; y, appended after it, is another workbook's: x stays out.
    expect(back([entry("x", "gone", null), entry("y", "x", "wb-other")], [])).toEqual([]);
    // z, appended after x, is this workbook's unfinished row: both come back.
    expect(back([entry("x", "gone", null), entry("z", "x", ME.id, "submitted")], [])).toEqual(["x", "z"]);
    // v, final and tied to nothing here, comes not back with z: z was appended after x, not after v.
    expect(back([entry("x", "gone", null), entry("v", "gone", null), entry("z", "x", ME.id, "submitted")], [])).toEqual(["x", "z"]);
  });

  it("a row this session is working on is this workbook's: written back though final and tied to nothing", () => {
    expect(back([entry("w", "gone", null)], [], ["w"])).toEqual(["w"]);
    expect(back([entry("w", "gone", null)], [])).toEqual([]);
  });
});

describe("another workbook's row offered as maybe this one's (mayBeMine)", () => {
  const other = (workbookName: string | null): StoredIntent => ({
    record: intentToLogRecord(row()),
    keyId: "k-key",
    anchor: null,
    finalAt: null,
    workbookId: "wb-other",
    workbookName,
  });

  it("only to a file of the same name that got its id only now; a file Excel names nothing matches nothing", () => {
    expect(mayBeMine(other("Hedges.xlsx"), { id: "wb-new", name: "Hedges.xlsx", fresh: true })).toBe(true);
    expect(mayBeMine(other("Hedges.xlsx"), { id: "wb-new", name: "Hedges.xlsx" })).toBe(false);
    expect(mayBeMine(other(null), { id: "wb-new", name: null, fresh: true })).toBe(false);
  });
});

describe("whether this file's log is the workbook this computer wrote its rows of this id into (ownLogOf, issue 40)", () => {
  const ME = { id: "wb-this", name: "Hedges.xlsx" };
  const entry = (key: string, anchor: string | null, workbookId: string | null = ME.id): StoredIntent => ({
    record: intentToLogRecord(row({ idempotencyKey: key })),
    keyId: "k-key",
    anchor,
    finalAt: null,
    workbookId,
    workbookName: ME.name,
  });
  const own = (stored: StoredIntent[], present: string[], live: string[] = []) =>
    ownLogOf(stored, new Set(present), ME, (k) => (live.includes(k) ? row({ idempotencyKey: k }) : undefined));

  it("it is when the log holds one of them, or the row one was appended after, or a row this session works on", () => {
    expect(own([entry("a", null), entry("b", "a")], ["b"])).toBe(true);
    expect(own([entry("b", "x")], ["x"])).toBe(true);
    expect(own([entry("b", "x")], [], ["b"])).toBe(true);
  });

  it("it is not when the log holds none of them: rows of other workbooks or of no known one, or anchors of none, do not count", () => {
    expect(own([entry("a", null), entry("b", "a")], [])).toBe(false);
    expect(own([entry("o", "x", "wb-other"), entry("u", "y", null), entry("b", "z")], ["o", "x", "u", "y"], ["o"])).toBe(false);
    expect(own([entry("b", null)], ["null", ""])).toBe(false);
  });

  it("this id's row in a log that is not the workbook's is a copy's, whatever its name; in the workbook's log, by its name", () => {
    expect(ownerOf(entry("b", null), ME, false)).toBe("copy");
    expect(ownerOf(entry("b", null), { ...ME, name: null }, false)).toBe("copy");
    expect(ownerOf(entry("b", null), ME, true)).toBe("mine");
    expect(ownerOf(entry("b", null), { ...ME, name: "Hedges copy.xlsx" }, true)).toBe("copy");
    expect(ownerOf(entry("b", null, "wb-other"), ME, false)).toBe("other");
    expect(ownerOf(entry("b", null, null), ME, false)).toBe("unknown");
  });

  it("writtenBack writes nothing of this id's rows into a log that is not the workbook's, unfinished or live", () => {
    const missing = [{ ...entry("b", null), record: intentToLogRecord(row({ idempotencyKey: "b", status: "submitted" })) }];
    expect([...writtenBack(missing, new Set(), ME, () => row({ idempotencyKey: "b" }), false)]).toEqual([]);
    expect([...writtenBack(missing, new Set(), ME, () => undefined, true)]).toEqual(["b"]);
  });
});
