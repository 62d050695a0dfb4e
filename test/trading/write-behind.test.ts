// The journal's write-behind queue (write-behind.ts) on its own: this computer's journal gets the entries the journal queued (the newest per row, before the Hedge Log, in one call), a failed write keeps them under anything newer, and after the journal read its rows again the queued entries are made again from the rows it holds (dropped for a row it holds no more).
import { WriteBehind, type WriteBehindPorts } from "../../src/trading/write-behind";
import { intentFromRow, intentToLogRecord, type Intent } from "../../src/trading/intent";
import type { StoredIntent } from "../../src/trading/intent-store";
import type { LogUpdate } from "../../src/trading/log/hedge-log";

const LOGGED = "2026-11-02T10:00:00.000Z";

function row(key: string): Intent {
  return intentFromRow(
    { rowNumber: 2, action: "open", market: "USDTNGN", side: "buy", notional: 10_000, tenor: 7, clientReference: `DEAL-${key}` },
    key,
    "sandbox",
    LOGGED,
  );
}

/** The entry of a row as the journal makes it, with `message` to tell two entries of one row apart. */
function entry(intent: Intent, message: string): StoredIntent {
  return { record: { ...intentToLogRecord(intent), message }, keyId: null, anchor: null, finalAt: null };
}

/**
 * A queue over a store and a log that note every call (in one list, to see their order); the first `failPuts` puts fail,
 * `duringPut` runs while a put is out.
 */
function queue(
  options: { failPuts?: number; held?: Map<string, Intent>; store?: boolean; duringPut?: () => void; missing?: string[] } = {},
) {
  const calls: string[] = [];
  const reports: string[] = [];
  const appended: Intent[][] = [];
  const puts: StoredIntent[][] = [];
  const updates: LogUpdate[][] = [];
  let failPuts = options.failPuts ?? 0;
  let ensured = 0;
  const ports: WriteBehindPorts = {
    workbook: {
      ensureLog: async () => {
        ensured++;
      },
      updateLog: async (batch) => {
        calls.push("log");
        updates.push(batch);
        return { missing: options.missing ?? [] };
      },
    },
    store:
      options.store === false
        ? undefined
        : {
            scope: "sandbox|0xaa",
            put: async (scope, entries) => {
              calls.push(`put ${scope}`);
              options.duringPut?.();
              if (failPuts-- > 0) throw new Error("storage is busy");
              puts.push([...entries]);
            },
          },
    intent: (key) => options.held?.get(key),
    appendAgain: async (rows) => {
      appended.push(rows);
    },
    report: (e) => reports.push(e.message),
    delayMs: 10_000,
  };
  return { wb: new WriteBehind(ports), calls, puts, updates, ensured: () => ensured, reports, appended };
}

describe("the write-behind queue", () => {
  it("writes the newest entry queued for each row to this computer's journal, in one call, before the Hedge Log", async () => {
    const [a, b] = [row("k-a"), row("k-b")];
    const { wb, calls, puts, updates } = queue();
    wb.store(entry(a, "first"));
    wb.store(entry(b, "only"));
    wb.store(entry(a, "second"));
    wb.log(a, { status: "submitted" });
    expect(wb.unflushed()).toBe(2);
    await wb.flush();
    expect(calls).toEqual(["put sandbox|0xaa", "log"]);
    expect(puts).toEqual([[entry(a, "second"), entry(b, "only")]]);
    expect(updates).toEqual([[{ idempotencyKey: "k-a", status: "submitted" }]]);
    expect(wb.unflushed()).toBe(0);
    await wb.flush(); // nothing queued: no call
    expect(calls).toHaveLength(2);
  });

  it("a row the Hedge Log no longer has is written again at its end, and the user is told which and why; one this journal no longer holds is not", async () => {
    const a = row("k-a");
    const { wb, reports, appended } = queue({ held: new Map([["k-a", a]]), missing: ["k-a", "k-gone"] });
    wb.log(a, { status: "submitted" });
    await wb.flush();
    expect(appended).toEqual([[a]]);
    expect(reports).toEqual([
      "The Hedge Log has no row with idempotency key k-a (open USDTNGN buy): it was deleted or its key edited. " +
        "The row was written again at the end of the log with its current state.",
    ]);
  });

  it("the Hedge Log is made sure of (an older log gets the columns added since) before the first update is written, and once", async () => {
    const a = row("k-a");
    const { wb, updates, ensured } = queue();
    await wb.flush();
    expect(ensured()).toBe(0); // nothing to write: nothing asked of the workbook
    wb.log(a, { status: "submitted" });
    await wb.flush();
    wb.log(a, { status: "filled" });
    await wb.flush();
    expect([ensured(), updates.length]).toEqual([1, 2]);
  });

  it("a failed write keeps its entries for the next flush, under an entry of the same row queued while it was out; the log waits", async () => {
    const [a, b] = [row("k-a"), row("k-b")];
    let first = true;
    const { wb, calls, puts } = queue({
      failPuts: 1,
      duringPut: () => {
        // The row changes again while the first write is out.
        if (first) wb.store(entry(a, "filled"));
        first = false;
      },
    });
    wb.store(entry(a, "sent"));
    wb.store(entry(b, "sent"));
    wb.log(a, { status: "submitted" });
    await expect(wb.flush()).rejects.toThrow("storage is busy");
    expect(calls).toEqual(["put sandbox|0xaa"]);
    expect(wb.unflushed()).toBe(2);
    await wb.flush();
    expect(puts).toEqual([[entry(a, "filled"), entry(b, "sent")]]);
    expect(calls).toEqual(["put sandbox|0xaa", "put sandbox|0xaa", "log"]);
  });

  it("without this computer's journal, entries are not kept (the log alone is written)", async () => {
    const a = row("k-a");
    const { wb, calls } = queue({ store: false });
    wb.store(entry(a, "sent"));
    wb.log(a, { status: "submitted" });
    await wb.flush();
    expect(calls).toEqual(["log"]);
    expect(wb.unflushed()).toBe(0);
  });

  it("after the journal read its rows again, each queued entry is made again from the row it holds, and dropped for a row it no longer holds", async () => {
    const [a, b] = [row("k-a"), row("k-b")];
    const { wb, puts } = queue();
    wb.store(entry(a, "before the read"));
    wb.store(entry(b, "before the read"));
    const asked: string[] = [];
    wb.retake((key) => {
      asked.push(key);
      return key === "k-a" ? entry(a, "as held now") : undefined;
    });
    expect(asked).toEqual(["k-a", "k-b"]);
    expect(wb.unflushed()).toBe(1);
    await wb.flush();
    expect(puts).toEqual([[entry(a, "as held now")]]);
  });
});
