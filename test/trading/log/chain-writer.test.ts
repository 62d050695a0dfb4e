// The chain writer over its ports: which link the next row follows (this session's last, else the log's last row or this computer's newer head), one append at a time, and the head kept only once the log holds the rows.
import { ChainWriter, type ChainPorts } from "../../../src/trading/log/chain-writer";
import { CHAIN_START, rowHashOf } from "../../../src/trading/log/log-chain";
import type { LogRecord, RowChain } from "../../../src/trading/log/hedge-log";

type Row = RowChain & { key: string; final: boolean };
const row = (key: string, final = false): Row => ({ key, final, prevHash: null, rowHash: null, finalHash: null });
const record = (r: Row) =>
  ({ loggedAt: "2026-11-25T10:00:00.000Z", idempotencyKey: r.key, rowHash: r.rowHash, prevHash: r.prevHash }) as unknown as LogRecord;
const seal = (r: Row) => (r.final ? `seal-${r.rowHash}` : null);

function ports(last: Partial<LogRecord> | null, head: { rowHash: string; writtenAt: string } | null) {
  const calls: string[] = [];
  const appended: LogRecord[][] = [];
  const kept: string[] = [];
  let failNext = false;
  const p: ChainPorts = {
    readLastRow: async () => {
      calls.push("last");
      return last as LogRecord | null;
    },
    loadHead: async () => {
      calls.push("head");
      return head;
    },
    append: async (records) => {
      if (failNext) {
        failNext = false;
        throw new Error("Excel is busy");
      }
      appended.push(records);
    },
    keepHead: async (link) => {
      kept.push(link);
    },
  };
  return { p, calls, appended, kept, failNext: () => (failNext = true) };
}

const append = (w: ChainWriter, rows: Row[]) => w.append({ rows, record, seal });

describe("the chain writer", () => {
  it("an empty log with no head starts the chain; each row follows the one before, a final row is sealed, the head is the last link", async () => {
    const { p, appended, kept } = ports(null, null);
    const w = new ChainWriter(p);
    const [a, b] = [row("a"), row("b", true)];
    await append(w, [a, b]);
    expect(a.prevHash).toBe(CHAIN_START);
    expect(a.rowHash).toBe(rowHashOf(CHAIN_START, record({ ...a, rowHash: null, prevHash: CHAIN_START })));
    expect(b.prevHash).toBe(a.rowHash);
    expect([a.finalHash, b.finalHash]).toEqual([null, `seal-${b.rowHash}`]);
    expect(appended).toEqual([[record(a), record(b)]]);
    expect(kept).toEqual([b.rowHash]);
  });

  it("follows the log's last row, unless this computer's head was written after it (the rows after the head were cut off)", async () => {
    const lastRow = { rowHash: "L".repeat(64), loggedAt: "2026-11-25T09:00:00.000Z" };
    const older = { rowHash: "H".repeat(64), writtenAt: "2026-11-25T08:00:00.000Z" };
    const newer = { rowHash: "H".repeat(64), writtenAt: "2026-11-25T09:30:00.000Z" };
    for (const [head, expected] of [
      [null, lastRow.rowHash],
      [older, lastRow.rowHash],
      [newer, newer.rowHash],
      [{ ...older, rowHash: lastRow.rowHash }, lastRow.rowHash],
    ] as const) {
      const r = row("x");
      await append(new ChainWriter(ports(lastRow, head).p), [r]);
      expect(r.prevHash).toBe(expected);
    }
    // A last row without a link (a log older than the chain) or with a Logged at typed by hand: the head is followed.
    const r1 = row("y");
    await append(new ChainWriter(ports({ rowHash: null, loggedAt: "x" }, older).p), [r1]);
    expect(r1.prevHash).toBe(older.rowHash);
    const r2 = row("z");
    await append(new ChainWriter(ports({ rowHash: lastRow.rowHash, loggedAt: "not a time" }, older).p), [r2]);
    expect(r2.prevHash).toBe(older.rowHash);
    // A log emptied since the head was kept, or whose last row (logged after the head) has no link: the head is followed,
    // so the next row shows the rows cut off rather than starting a new chain.
    const emptied = row("e");
    await append(new ChainWriter(ports(null, older).p), [emptied]);
    expect(emptied.prevHash).toBe(older.rowHash);
    const unlinked = row("u");
    await append(new ChainWriter(ports({ rowHash: null, loggedAt: lastRow.loggedAt }, older).p), [unlinked]);
    expect(unlinked.prevHash).toBe(older.rowHash);
    const r3 = row("w");
    await append(new ChainWriter(ports({ rowHash: null, loggedAt: lastRow.loggedAt }, null).p), [r3]);
    expect(r3.prevHash).toBe(CHAIN_START);
  });

  it("a head kept at the very millisecond the log's last row was logged is followed: only a row logged later proves the head old", async () => {
    // A row is logged before it is appended, and the head is kept once the log holds this computer's rows: a last row
    // logged at the head's own instant is no later row, so the rows after the head are taken as cut off.
    const at = "2026-11-25T09:00:00.000Z";
    const r = row("x");
    await append(new ChainWriter(ports({ rowHash: "L".repeat(64), loggedAt: at }, { rowHash: "H".repeat(64), writtenAt: at }).p), [r]);
    expect(r.prevHash).toBe("H".repeat(64));
    const later = row("y");
    const oneMsLater = { rowHash: "L".repeat(64), loggedAt: "2026-11-25T09:00:00.001Z" };
    await append(new ChainWriter(ports(oneMsLater, { rowHash: "H".repeat(64), writtenAt: at }).p), [later]);
    expect(later.prevHash).toBe("L".repeat(64));
  });

  it("reads the log once a session; after an append that failed, reads its last row again and keeps no head for it", async () => {
    const lastRow = { rowHash: "L".repeat(64), loggedAt: "2026-11-25T09:00:00.000Z" };
    const world = ports(lastRow, null);
    const w = new ChainWriter(world.p);
    const a = row("a");
    await append(w, [a]);
    const b = row("b");
    await append(w, [b]);
    expect(b.prevHash).toBe(a.rowHash);
    expect(world.calls).toEqual(["last", "head"]);
    world.failNext();
    await expect(append(w, [row("c")])).rejects.toThrow("Excel is busy");
    expect(world.kept).toEqual([a.rowHash, b.rowHash]);
    const d = row("d");
    await append(w, [d]);
    expect(world.calls).toEqual(["last", "head", "last", "head"]);
    expect(d.prevHash).toBe(lastRow.rowHash);
  });

  it("one append at a time: a second append waits for the first to be held, and a failed one does not stop the next", async () => {
    const world = ports(null, null);
    const w = new ChainWriter(world.p);
    world.failNext();
    const [a, b] = [row("a"), row("b")];
    const first = append(w, [a]);
    const second = append(w, [b]);
    await expect(first).rejects.toThrow();
    await second;
    expect(b.prevHash).toBe(CHAIN_START);
    expect(world.appended).toEqual([[record(b)]]);
  });
});
