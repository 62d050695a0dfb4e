// The intent state machine, log round trip, duplicate detection and the journal over the in-memory workbook.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import {
  canMove,
  applyPatch,
  IllegalTransition,
  intentFromLogRecord,
  unusableReason,
  intentFromRow,
  intentToLogRecord,
  isFinal,
  submit,
} from "../../src/trading/intent";
import { useDeskWorlds, world } from "../support/desk-world";
import type { HedgingClient } from "../../src/api/client";
import { journalled } from "../support/builders";
import { findDuplicate } from "../../src/trading/duplicates";
import { Journal } from "../../src/trading/journal";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { intentScope } from "../../src/trading/intent-store";
import { FINAL_STATUSES, INTENT_STATUSES, type TradeRow } from "../../src/trading/types";
import { LOG_COLUMNS, LOG_SHEET_NAME } from "../../src/trading/log/hedge-log";

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
  useDeskWorlds();
  it("allows submitting → submitted → final, and nothing out of a final state", () => {
    expect(canMove("submitting", "submitted")).toBe(true);
    expect(canMove("submitting", "rejected")).toBe(true);
    expect(canMove("submitted", "filled")).toBe(true);
    expect(canMove("submitted", "failed")).toBe(true);
    expect(canMove("submitted", "closed")).toBe(true);
    expect(canMove("submitted", "submitting")).toBe(false);
    expect(canMove("submitted", "rejected")).toBe(false);
    for (const final of ["filled", "failed", "closed", "rejected", "not_sent"] as const) {
      expect(isFinal(final)).toBe(true);
      for (const to of INTENT_STATUSES) expect(canMove(final, to)).toBe(false);
    }
  });

  it("allows exactly the moves it documents, and refuses every other", () => {
    const allowed: Record<string, string[]> = {
      submitting: ["submitting", "submitted", "needs_decision", "rejected", "failed", "filled", "closed"],
      submitted: ["submitted", "needs_decision", "filled", "failed", "closed"],
      needs_decision: ["needs_decision", "submitted", "filled", "failed", "closed", "not_sent"],
    };
    for (const from of INTENT_STATUSES)
      for (const to of INTENT_STATUSES) expect([from, to, canMove(from, to)]).toEqual([from, to, (allowed[from] ?? []).includes(to)]);
    for (const status of INTENT_STATUSES) expect([status, isFinal(status)]).toEqual([status, !(status in allowed)]);
    expect(isFinal("done")).toBe(false);
  });

  it("a patch changes only the fields it gives, and says which changed", () => {
    const intent = intentFromRow(row(), "k1", "sandbox", "2025-01-01T00:00:00.000Z");
    applyPatch(intent, { status: "submitted", hedgeId: "h1", orderTxHash: "0xabc" });
    expect(applyPatch(intent, { status: "submitted", hedgeId: undefined, orderTxHash: "0xabc", message: "Submitted." })).toEqual({
      message: "Submitted.",
    });
    expect(intent).toMatchObject({ status: "submitted", hedgeId: "h1", orderTxHash: "0xabc", message: "Submitted." });
  });

  it("refuses an illegal move and leaves the intent as it was", () => {
    const intent = intentFromRow(row(), "k1", "sandbox", "2025-01-01T00:00:00.000Z");
    applyPatch(intent, { status: "submitted", hedgeId: "h1" });
    applyPatch(intent, { status: "filled", struckRate: 1500.1 });
    expect(() => applyPatch(intent, { status: "failed" })).toThrow(IllegalTransition);
    // What the pane shows (and a support ticket quotes): which row, and the move refused.
    expect(() => applyPatch(intent, { status: "failed" })).toThrow(/^Intent k1 cannot go from filled to failed\.$/);
    try {
      applyPatch(intent, { status: "submitting" });
    } catch (e) {
      expect(String(e)).toBe("IllegalTransition: Intent k1 cannot go from filled to submitting.");
    }
    expect.assertions(5);
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
    // Rows it cannot act on, each with the reason the pane shows.
    for (const [bad, reason] of [
      [{ action: "hedge" }, 'its Action "hedge" is not open, add, reduce or close'],
      [{ status: "done" }, 'its Status "done" is not one the add-in writes'],
      [{ side: "long" }, 'its Side "long" is not buy or sell'],
    ] as const) {
      const record = { ...intentToLogRecord(intent), ...bad };
      expect(intentFromLogRecord(record)).toBeNull();
      expect(unusableReason(record)).toBe(reason);
    }
    expect(intentFromLogRecord({ ...intentToLogRecord(intent), side: "sell" })).toMatchObject({ side: "sell" });
  });

  it("round-trips the columns written before a request leaves (notional before, sent at) and the user's decision", () => {
    const intent = intentFromRow(row({ action: "reduce", tenor: null }), "k3", "sandbox", "2025-01-01T00:00:00.000Z", "0xaa");
    applyPatch(intent, { sentAt: "2025-01-01T00:00:01.000Z", notionalBefore: 400_000, hedgeId: "h-3" });
    applyPatch(intent, { status: "needs_decision" });
    applyPatch(intent, { status: "not_sent", decision: "not done", decidedAt: "2025-01-02T00:00:00.000Z" });
    expect(intentFromLogRecord(intentToLogRecord(intent))).toMatchObject({
      account: "0xaa",
      sentAt: "2025-01-01T00:00:01.000Z",
      notionalBefore: 400_000,
      hedgeId: "h-3",
      status: "not_sent",
      decision: "not done",
      decidedAt: "2025-01-02T00:00:00.000Z",
    });
  });

  it("never takes up a log row whose idempotency key or market is blank (or padded): it is the user's to sort out", () => {
    const good = intentToLogRecord(intentFromRow(row(), "k4", "sandbox", "2025-01-01T00:00:00.000Z"));
    for (const bad of [{ idempotencyKey: "" }, { idempotencyKey: "   " }, { idempotencyKey: " k4" }, { market: "" }, { market: "  " }]) {
      const record = { ...good, ...bad };
      expect(intentFromLogRecord(record)).toBeNull();
      expect(unusableReason(record)).toMatch(/Idempotency key is empty|Market is empty/);
    }
    expect(unusableReason(good)).toBeNull();
  });

  it("a Hedge Log row sent before whose Idempotency key or Market was blanked is never re-sent: Resume lists it for the user", async () => {
    const ACC = "0x00000000000000000000000000000000000000aa";
    const sent = { sentAt: "2025-01-02T03:04:06.000Z", account: ACC, loggedAt: "2025-01-02T03:04:05.000Z" };
    const workbook = new MemoryWorkbook();
    await workbook.appendLog([
      journalled("", { ...sent, clientReference: "D-1" }),
      journalled("  ", { ...sent, clientReference: "D-2" }),
      journalled("k-no-market", { ...sent, action: "add", market: "", tenor: null, clientReference: null, hedgeId: "h1" }),
    ]);
    const sends: string[] = [];
    const send = (what: string) => async () => {
      sends.push(what);
      throw new Error("nothing may be sent");
    };
    const client = {
      environment: "sandbox",
      keyId: "k-key",
      account: async () => ({ data: { account_address: ACC } }),
      open: send("open"),
      add: send("add"),
      list: async () => ({ data: [] }),
      get: async () => ({ data: [] }),
    } as unknown as HedgingClient;
    const desk = await world({ workbook, intentStore: null }).desk({ client });
    const plan = await desk.inspect();
    expect(plan.items).toEqual([]);
    expect(plan.unusable.map((u) => u.reason)).toEqual([
      expect.stringMatching(/^Never sent by the add-in: its Idempotency key is empty/),
      expect.stringMatching(/^Never sent by the add-in: its Idempotency key is empty/),
      expect.stringMatching(/^Never sent by the add-in: its Market is empty/),
    ]);
    expect((await desk.resume({ claim: ["", "  ", "k-no-market"] })).resumed).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    desk.stop();
    expect(sends).toEqual([]);
    const unfinished = await workbook.readLog({ statusNotIn: FINAL_STATUSES });
    expect(unfinished.map((r) => [r.idempotencyKey, r.status])).toEqual([
      ["", "submitting"],
      ["  ", "submitting"],
      ["k-no-market", "submitting"],
    ]);
  });

  it("a Close carries no amount and only an Open a tenor, in the log as in the request", () => {
    const close = intentFromRow(row({ action: "close", notional: 5, tenor: 7 }), "k5", "sandbox", "2025-01-01T00:00:00.000Z");
    expect(intentToLogRecord(close)).toMatchObject({ action: "close", notional: null, tenor: null });
    const add = intentFromRow(row({ action: "add", tenor: 7 }), "k6", "sandbox", "2025-01-01T00:00:00.000Z");
    expect(intentToLogRecord(add)).toMatchObject({ action: "add", notional: 250_000, tenor: null });
  });

  it("submit() sends each action's body with the row's own key, the same again after a reload, and keeps what the answer says", async () => {
    const sent: Array<[string, unknown, string]> = [];
    const answer = (what: string, data: Record<string, unknown>) =>
      jest.fn(async (body: unknown, options: { idempotencyKey: string }) => {
        sent.push([what, body, options.idempotencyKey]);
        return { data };
      });
    const client = {
      open: answer("open", { hedge_id: "h-1", order_tx_hash: "0x1", quote: { notional_usd: 250_000 } }),
      add: answer("add", { hedge_id: "h-1", order_tx_hash: "0x2", new_notional_usd: 500_000 }),
      decrease: answer("reduce", { order_tx_hash: "0x3" }),
      close: answer("close", {}),
    } as unknown as HedgingClient;
    const at = "2025-01-01T00:00:00.000Z";
    const open = intentFromRow(row(), "k-open", "sandbox", at);
    const add = intentFromRow(row({ action: "add", tenor: null, clientReference: null }), "k-add", "sandbox", at);
    const reduce = intentFromRow(row({ action: "reduce", tenor: null, notional: 1_000 }), "k-reduce", "sandbox", at);
    const close = intentFromRow(row({ action: "close", notional: null, tenor: null }), "k-close", "sandbox", at);
    expect(await submit(client, open)).toEqual({ hedgeId: "h-1", orderTxHash: "0x1", newNotional: 250_000 });
    expect(await submit(client, add)).toEqual({ hedgeId: "h-1", orderTxHash: "0x2", newNotional: 500_000 });
    // An answer without hedge_id (the spec allows it): the row is then found by its client reference.
    expect(await submit(client, reduce)).toEqual({ hedgeId: null, orderTxHash: "0x3", newNotional: null });
    expect(await submit(client, close)).toEqual({ hedgeId: null, orderTxHash: null, newNotional: 0 });
    expect(sent).toEqual([
      ["open", { market: "USDTNGN", side: "buy", notional_usd: 250_000, tenor_days: 7, client_reference: "D-1" }, "k-open"],
      ["add", { market: "USDTNGN", side: "buy", additional_notional_usd: 250_000 }, "k-add"],
      ["reduce", { market: "USDTNGN", side: "buy", reduce_notional_usd: 1_000 }, "k-reduce"],
      ["close", { market: "USDTNGN", side: "buy" }, "k-close"],
    ]);
    // Rebuilt from its log row after a reload, each request is the same: the service replays instead of acting again.
    const first = [...sent];
    sent.length = 0;
    for (const i of [open, add, reduce, close]) await submit(client, intentFromLogRecord(intentToLogRecord(i))!);
    expect(sent).toEqual(first);
  });

  it("submit() refuses an intent without a usable key before anything is sent", async () => {
    const open = jest.fn();
    const client = { open } as unknown as HedgingClient;
    for (const key of ["", " ", " k1", "k1 "]) {
      const intent = intentFromRow(row(), key, "sandbox", "2025-01-01T00:00:00.000Z");
      await expect(submit(client, intent)).rejects.toThrow(/no usable idempotency key: nothing was sent/);
    }
    expect(open).not.toHaveBeenCalled();
  });

  it("moves to needs_decision from submitting or submitted, and from there only on the user's word; not_sent is final", () => {
    expect(canMove("submitting", "needs_decision")).toBe(true);
    expect(canMove("submitted", "needs_decision")).toBe(true);
    expect(canMove("needs_decision", "not_sent")).toBe(true);
    expect(canMove("needs_decision", "submitted")).toBe(true);
    expect(canMove("submitting", "not_sent")).toBe(false);
    expect(canMove("needs_decision", "submitting")).toBe(false);
    expect(isFinal("not_sent")).toBe(true);
    expect(isFinal("needs_decision")).toBe(false);
  });
});

describe("duplicate detection", () => {
  const TODAY = { dayStart: "2025-01-02T00:00:00.000Z", hedgeId: null };
  const ACC = "0x00000000000000000000000000000000000000aa";
  const OTHER = "0x00000000000000000000000000000000000000bb";
  const logged = (status: string, over: Partial<TradeRow> = {}, environment = "sandbox", account: string | null = ACC) => ({
    ...intentToLogRecord(intentFromRow(row(over), `key-${status}`, environment as "sandbox", "2025-01-02T03:04:05.000Z", account)),
    status,
  });

  it("counts only rows of the same account; rows without an account (older logs) count for any account of their environment", () => {
    expect(findDuplicate(row(), "sandbox", [logged("filled", {}, "sandbox", OTHER)], ACC, TODAY)).toBeNull();
    expect(
      findDuplicate(row(), "sandbox", [logged("filled", {}, "sandbox", ACC.toUpperCase().replace("0X", "0x"))], ACC, TODAY),
    ).not.toBeNull();
    expect(findDuplicate(row(), "sandbox", [logged("filled", {}, "sandbox", null)], OTHER, TODAY)).toMatchObject({
      idempotencyKey: "key-filled",
    });
    expect(findDuplicate(row(), "production", [logged("filled", {}, "sandbox", null)], OTHER, TODAY)).toBeNull();
  });

  it("flags a row the log shows as done with the same action, market, side, amount and reference", () => {
    for (const status of ["submitting", "submitted", "filled", "closed"]) {
      expect(findDuplicate(row(), "sandbox", [logged(status)], ACC, TODAY)).toMatchObject({ idempotencyKey: `key-${status}`, status });
    }
  });

  it("does not flag failed or rejected rows, other environments, or any differing field", () => {
    expect(findDuplicate(row(), "sandbox", [logged("failed"), logged("rejected")], ACC, TODAY)).toBeNull();
    expect(findDuplicate(row(), "production", [logged("filled")], ACC, TODAY)).toBeNull();
    expect(findDuplicate(row({ notional: 250_001 }), "sandbox", [logged("filled")], ACC, TODAY)).toBeNull();
    expect(findDuplicate(row({ side: "sell" }), "sandbox", [logged("filled")], ACC, TODAY)).toBeNull();
    expect(findDuplicate(row({ market: "USDTKES" }), "sandbox", [logged("filled")], ACC, TODAY)).toBeNull(); // another market
    // a log row whose amount cell was emptied is not this amount
    expect(findDuplicate(row(), "sandbox", [{ ...logged("filled"), notional: null }], ACC, TODAY)).toBeNull();
    expect(findDuplicate(row({ clientReference: "D-2" }), "sandbox", [logged("filled")], ACC, TODAY)).toBeNull();
    expect(findDuplicate(row({ action: "add", tenor: null }), "sandbox", [logged("filled")], ACC, TODAY)).toBeNull();
  });

  it("looks only at rows of the same UTC day or of the same hedge, and says which row it matched", () => {
    const close = row({ action: "close", notional: null, tenor: null, clientReference: null });
    const october = {
      ...logged("closed", { action: "close", notional: null, tenor: null, clientReference: null }),
      loggedAt: "2024-10-15T09:00:00.000Z",
      hedgeId: "h-october",
    };
    // A Close today is not a duplicate of another hedge's Close in October…
    expect(findDuplicate(close, "sandbox", [october], ACC, { dayStart: "2025-01-02T00:00:00.000Z", hedgeId: "h-today" })).toBeNull();
    // …but it is of a Close of the same hedge, whenever, and of one logged today.
    expect(findDuplicate(close, "sandbox", [october], ACC, { dayStart: "2025-01-02T00:00:00.000Z", hedgeId: "h-october" })).toEqual({
      idempotencyKey: "key-closed",
      loggedAt: "2024-10-15T09:00:00.000Z",
      status: "closed",
      hedgeId: "h-october",
      reason: "same_hedge",
    });
    const today = { ...october, loggedAt: "2025-01-02T08:00:00.000Z" };
    expect(findDuplicate(close, "sandbox", [today], ACC, { dayStart: "2025-01-02T00:00:00.000Z", hedgeId: "h-today" })).toMatchObject({
      reason: "same_day",
    });
    // A row waiting for the user's decision may have acted: it counts; one the user marked not sent does not.
    expect(findDuplicate(row(), "sandbox", [logged("needs_decision")], ACC, TODAY)).not.toBeNull();
    expect(findDuplicate(row(), "sandbox", [logged("not_sent")], ACC, TODAY)).toBeNull();
  });

  it("says which row: the newest of several that match", () => {
    const older = { ...logged("filled"), idempotencyKey: "older", loggedAt: "2025-01-02T01:00:00.000Z" };
    const newer = { ...logged("filled"), idempotencyKey: "newer", loggedAt: "2025-01-02T02:00:00.000Z" };
    expect(findDuplicate(row(), "sandbox", [older, newer], ACC, TODAY)).toMatchObject({ idempotencyKey: "newer", reason: "same_day" });
  });

  it("a row logged at midnight UTC is today's; one a millisecond before is not (unless on the same hedge)", () => {
    const at = (loggedAt: string) => ({ ...logged("filled"), loggedAt });
    expect(findDuplicate(row(), "sandbox", [at("2025-01-02T00:00:00.000Z")], ACC, TODAY)).not.toBeNull();
    expect(findDuplicate(row(), "sandbox", [at("2025-01-01T23:59:59.999Z")], ACC, TODAY)).toBeNull();
    // Yesterday's row that has no hedge id yet is not "the same hedge" as a row whose hedge is not known either.
    expect(findDuplicate(row(), "sandbox", [{ ...at("2025-01-01T23:59:59.999Z"), hedgeId: null }], ACC, TODAY)).toBeNull();
  });

  it("reads the log as typed: a market in lower case, an amount equal to the cent, a blank reference", () => {
    expect(findDuplicate(row(), "sandbox", [{ ...logged("filled"), market: "usdtngn" }], ACC, TODAY)).not.toBeNull();
    expect(findDuplicate(row({ notional: 250_000.004 }), "sandbox", [logged("filled")], ACC, TODAY)).not.toBeNull();
    expect(findDuplicate(row({ notional: 250_000.01 }), "sandbox", [logged("filled")], ACC, TODAY)).toBeNull();
    expect(findDuplicate(row({ notional: 249_999.99 }), "sandbox", [logged("filled")], ACC, TODAY)).toBeNull();
    const noRef = { ...logged("filled", { action: "add", tenor: null }), clientReference: undefined as unknown as null };
    expect(findDuplicate(row({ action: "add", tenor: null, clientReference: null }), "sandbox", [noRef], ACC, TODAY)).not.toBeNull();
    // A desk whose account is not known claims only rows without one.
    expect(findDuplicate(row(), "sandbox", [logged("filled")], null, TODAY)).toBeNull();
  });

  it("treats Close rows (no amount) as the same when market, side and reference match", () => {
    const close = row({ action: "close", notional: null, tenor: null, clientReference: null });
    expect(
      findDuplicate(
        close,
        "sandbox",
        [logged("closed", { action: "close", notional: null, tenor: null, clientReference: null })],
        ACC,
        TODAY,
      ),
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
    // The workbook's id, load, the log's last row (the link the first append follows), append, read back, and nothing
    // written yet: updates are coalesced.
    expect(wb.calls).toBe(5);
    await journal.flush();
    expect(wb.calls).toBe(7); // the first flush checks the log has every column, then one update call
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

  it("without an explicit flush, an update reaches the log and this computer's journal within the flush delay, in one write", async () => {
    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"] });
    try {
      const wb = new MemoryWorkbook();
      const store = new MemoryIntentStore();
      const journal = new Journal(wb, { store, scope: intentScope("sandbox", null), flushDelayMs: 100 });
      await journal.load();
      const a = intentFromRow(row(), "key-a", "sandbox", "2025-01-02T03:04:05.000Z");
      await journal.append([a]);
      journal.update(a, { status: "submitted", hedgeId: "h-1" });
      await jest.advanceTimersByTimeAsync(60);
      journal.update(a, { status: "filled", struckRate: 1501.25 });
      await jest.advanceTimersByTimeAsync(39);
      // Within the delay, updates wait to be written together…
      expect((await wb.readLog())[0].status).toBe("submitting");
      await jest.advanceTimersByTimeAsync(1);
      // …and then reach both journals with no one calling flush().
      expect((await wb.readLog())[0]).toMatchObject({ status: "filled", hedgeId: "h-1", struckRate: 1501.25 });
      expect((await store.load(intentScope("sandbox", null)))[0].record).toMatchObject({ status: "filled", hedgeId: "h-1" });
      expect(journal.unflushed()).toBe(0);
      // A later update starts a new delay of its own.
      const b = intentFromRow(row({ side: "sell" }), "key-b", "sandbox", "2025-01-02T03:04:05.000Z");
      await journal.append([b]);
      journal.update(b, { status: "rejected", errorCode: "hedge_exists" });
      await jest.advanceTimersByTimeAsync(100);
      expect((await wb.readLog())[1]).toMatchObject({ status: "rejected", errorCode: "hedge_exists" });
    } finally {
      jest.useRealTimers();
    }
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
    expect(errors.map((e) => e.message)).toEqual([
      "The Hedge Log has no row with idempotency key key-a (open USDTNGN buy): it was deleted or its key edited. " +
        "The row was written again at the end of the log with its current state.",
    ]);
    // Reported once: the row is back, and a later update of it says nothing more.
    journal.update(a, { message: "Filled." });
    await journal.flush();
    expect(errors).toHaveLength(1);
    // Deleted again: written back again, and said again (each loss is the user's to know about).
    const again = wb.cells(LOG_SHEET_NAME);
    again.splice(
      again.findIndex((r) => r[keyCol] === "key-a"),
      1,
    );
    wb.setSheet(LOG_SHEET_NAME, again);
    journal.update(a, { message: "Filled at 1,501." });
    await journal.flush();
    expect((await wb.readLog()).filter((r) => r.idempotencyKey === "key-a")).toEqual([
      expect.objectContaining({ message: "Filled at 1,501." }),
    ]);
    expect(errors.map((e) => e.message)).toEqual([errors[0].message, errors[0].message]);
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
