// The intent state machine, log round trip, duplicate detection and the journal over the in-memory workbook.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import {
  canMove,
  applyPatch,
  IllegalTransition,
  intentFromLogRecord,
  intentFromRow,
  intentToLogRecord,
  isFinal,
} from "../../src/trading/intent";
import { findDuplicate } from "../../src/trading/duplicates";
import { Journal } from "../../src/trading/journal";
import { expectedFromMessage, submittedMessage } from "../../src/trading/desk";
import { INTENT_STATUSES, type TradeRow } from "../../src/trading/types";
import { LOG_COLUMNS, LOG_SHEET_NAME } from "../../src/trading/hedge-log";

const row = (over: Partial<TradeRow> = {}): TradeRow => ({
  rowNumber: 5,
  action: "open",
  market: "USDTNGN",
  side: "buy",
  notional: 250_000,
  tenor: 7,
  clientReference: "D-1",
  ...over,
});

describe("intent state machine", () => {
  it("allows submitting → submitted → final, and nothing out of a final state", () => {
    expect(canMove("submitting", "submitted")).toBe(true);
    expect(canMove("submitting", "rejected")).toBe(true);
    expect(canMove("submitted", "filled")).toBe(true);
    expect(canMove("submitted", "failed")).toBe(true);
    expect(canMove("submitted", "closed")).toBe(true);
    expect(canMove("submitted", "submitting")).toBe(false);
    expect(canMove("submitted", "rejected")).toBe(false);
    for (const final of ["filled", "failed", "closed", "rejected"] as const) {
      expect(isFinal(final)).toBe(true);
      for (const to of INTENT_STATUSES) expect(canMove(final, to)).toBe(false);
    }
  });

  it("refuses an illegal move and leaves the intent as it was", () => {
    const intent = intentFromRow(row(), "k1", "sandbox", "2025-01-01T00:00:00.000Z");
    applyPatch(intent, { status: "submitted", hedgeId: "h1" });
    applyPatch(intent, { status: "filled", struckRate: 1500.1 });
    expect(() => applyPatch(intent, { status: "failed" })).toThrow(IllegalTransition);
    expect(intent.status).toBe("filled");
    expect(applyPatch(intent, { struckRate: 1500.1 })).toEqual({});
  });

  it("round-trips through a log record, and ignores rows it did not write", () => {
    const intent = intentFromRow(row({ action: "add", tenor: null }), "k2", "production", "2025-01-01T00:00:00.000Z");
    const back = intentFromLogRecord(intentToLogRecord(intent));
    expect(back).toMatchObject({
      idempotencyKey: "k2",
      action: "add",
      environment: "production",
      notional: 250_000,
      tenor: null,
      status: "submitting",
    });
    expect(intentFromLogRecord({ ...intentToLogRecord(intent), action: "hedge" })).toBeNull();
    expect(intentFromLogRecord({ ...intentToLogRecord(intent), status: "done" })).toBeNull();
  });

  it("keeps the notional an Add or Reduce leads to in its message, for a resume", () => {
    expect(expectedFromMessage(submittedMessage("add", 1_250_000.5))).toBe(1_250_000.5);
    expect(expectedFromMessage(submittedMessage("reduce", 0))).toBe(0);
    expect(expectedFromMessage(submittedMessage("open", 5))).toBeNull();
    expect(expectedFromMessage("edited by hand")).toBeNull();
  });
});

describe("duplicate detection", () => {
  const ACC = "0x00000000000000000000000000000000000000aa";
  const OTHER = "0x00000000000000000000000000000000000000bb";
  const logged = (status: string, over: Partial<TradeRow> = {}, environment = "sandbox", account: string | null = ACC) => ({
    ...intentToLogRecord(intentFromRow(row(over), `key-${status}`, environment as "sandbox", "2025-01-02T03:04:05.000Z", account)),
    status,
  });

  it("counts only rows of the same account; rows without an account (older logs) count for any account of their environment", () => {
    expect(findDuplicate(row(), "sandbox", [logged("filled", {}, "sandbox", OTHER)], ACC)).toBeNull();
    expect(findDuplicate(row(), "sandbox", [logged("filled", {}, "sandbox", ACC.toUpperCase().replace("0X", "0x"))], ACC)).not.toBeNull();
    expect(findDuplicate(row(), "sandbox", [logged("filled", {}, "sandbox", null)], OTHER)).toMatchObject({ idempotencyKey: "key-filled" });
    expect(findDuplicate(row(), "production", [logged("filled", {}, "sandbox", null)], OTHER)).toBeNull();
  });

  it("flags a row the log shows as done with the same action, market, side, amount and reference", () => {
    for (const status of ["submitting", "submitted", "filled", "closed"]) {
      expect(findDuplicate(row(), "sandbox", [logged(status)], ACC)).toMatchObject({ idempotencyKey: `key-${status}`, status });
    }
  });

  it("does not flag failed or rejected rows, other environments, or any differing field", () => {
    expect(findDuplicate(row(), "sandbox", [logged("failed"), logged("rejected")], ACC)).toBeNull();
    expect(findDuplicate(row(), "production", [logged("filled")], ACC)).toBeNull();
    expect(findDuplicate(row({ notional: 250_001 }), "sandbox", [logged("filled")], ACC)).toBeNull();
    expect(findDuplicate(row({ side: "sell" }), "sandbox", [logged("filled")], ACC)).toBeNull();
    expect(findDuplicate(row({ clientReference: "D-2" }), "sandbox", [logged("filled")], ACC)).toBeNull();
    expect(findDuplicate(row({ action: "add", tenor: null }), "sandbox", [logged("filled")], ACC)).toBeNull();
  });

  it("treats Close rows (no amount) as the same when market, side and reference match", () => {
    const close = row({ action: "close", notional: null, tenor: null, clientReference: null });
    expect(
      findDuplicate(close, "sandbox", [logged("closed", { action: "close", notional: null, tenor: null, clientReference: null })], ACC),
    ).not.toBeNull();
  });
});

describe("journal", () => {
  it("appends intents as submitting before anything else and updates status cells in place", async () => {
    const wb = new MemoryWorkbook();
    const journal = new Journal(wb, { flushDelayMs: 5 });
    await journal.load();
    const a = intentFromRow(row(), "key-a", "sandbox", "2025-01-02T03:04:05.000Z");
    const b = intentFromRow(row({ side: "sell", clientReference: "D-2" }), "key-b", "sandbox", "2025-01-02T03:04:05.000Z");
    await journal.append([a, b]);
    let log = await wb.readLog();
    expect(log.map((r) => [r.idempotencyKey, r.status])).toEqual([
      ["key-a", "submitting"],
      ["key-b", "submitting"],
    ]);
    journal.update(a, { status: "submitted", hedgeId: "h-1", orderTxHash: "0xabc" });
    journal.update(a, { status: "filled", struckRate: 1501.25, filledAt: "2025-01-02T03:04:07.000Z", fillTxHash: "0xdef" });
    journal.update(b, { status: "rejected", errorCode: "hedge_exists", message: "exists" });
    expect(wb.calls).toBe(3); // load, append, and nothing written yet: updates are coalesced
    await journal.flush();
    expect(wb.calls).toBe(4);
    log = await wb.readLog();
    expect(log[0]).toMatchObject({
      status: "filled",
      hedgeId: "h-1",
      orderTxHash: "0xabc",
      fillTxHash: "0xdef",
      struckRate: 1501.25,
      filledAt: "2025-01-02T03:04:07.000Z",
    });
    expect(log[1]).toMatchObject({ status: "rejected", errorCode: "hedge_exists", hedgeId: null });
    // Rows are only appended: the first cells of each row are what was journalled.
    expect(wb.cells(LOG_SHEET_NAME).length).toBe(3);
  });

  it("refuses to journal an intent twice or in a state other than submitting", async () => {
    const journal = new Journal(new MemoryWorkbook());
    await journal.load();
    const a = intentFromRow(row(), "key-a", "sandbox", "2025-01-02T03:04:05.000Z");
    await journal.append([a]);
    await expect(journal.append([a])).rejects.toThrow(/already in the log/);
    const b = { ...intentFromRow(row(), "key-b", "sandbox", "2025-01-02T03:04:05.000Z"), status: "filled" as const };
    await expect(journal.append([b])).rejects.toThrow(/must be journalled as submitting/);
  });

  it("a row deleted from the log is reported once and does not hold back the others' updates", async () => {
    const wb = new MemoryWorkbook();
    const errors: Error[] = [];
    const journal = new Journal(wb, { flushDelayMs: 1_000, onError: (e) => errors.push(e) });
    await journal.load();
    const a = intentFromRow(row(), "key-a", "sandbox", "2025-01-02T03:04:05.000Z");
    const b = intentFromRow(row({ side: "sell" }), "key-b", "sandbox", "2025-01-02T03:04:05.000Z");
    await journal.append([a, b]);
    // The user deletes row a's key (as good as deleting the row).
    const cells = wb.cells(LOG_SHEET_NAME);
    const keyCol = LOG_COLUMNS.findIndex((c) => c.field === "idempotencyKey");
    cells[1][keyCol] = "";
    wb.setSheet(LOG_SHEET_NAME, cells);
    journal.update(a, { status: "submitted", hedgeId: "h-a" });
    journal.update(b, { status: "submitted", hedgeId: "h-b" });
    await journal.flush();
    journal.update(a, { status: "filled" });
    await journal.flush();
    expect(journal.unflushed()).toBe(0);
    expect((await wb.readLog()).find((r) => r.idempotencyKey === "key-b")).toMatchObject({ status: "submitted", hedgeId: "h-b" });
    expect(errors.map((e) => e.message)).toEqual([expect.stringContaining("has no row with idempotency key key-a (open USDTNGN buy)")]);
  });

  it("keeps an update whose write failed and writes it on the next flush", async () => {
    const wb = new MemoryWorkbook();
    const journal = new Journal(wb, { flushDelayMs: 1_000 });
    await journal.load();
    const a = intentFromRow(row(), "key-a", "sandbox", "2025-01-02T03:04:05.000Z");
    await journal.append([a]);
    const real = wb.updateLog.bind(wb);
    wb.updateLog = async () => {
      throw new Error("Excel is busy");
    };
    journal.update(a, { status: "submitted", hedgeId: "h-9" });
    await expect(journal.flush()).rejects.toThrow("Excel is busy");
    wb.updateLog = real;
    await journal.flush();
    expect((await wb.readLog())[0]).toMatchObject({ status: "submitted", hedgeId: "h-9" });
  });
});
