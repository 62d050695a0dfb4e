// A control row journalled: refused unless it is one, kept in this computer's journal when there is one, chained into the log with its seal, and given its chain cells.
import { journalControl, type ControlJournalPorts } from "../../src/trading/control-journal";
import { controlRecord, CONTROLS } from "../../src/trading/log/control-row";
import type { ChainWriter } from "../../src/trading/log/chain-writer";
import type { IntentStore } from "../../src/trading/intent-store";
import { logRow } from "../support/builders";

const BY = "fp-0123456789abcdef";
const change = {
  control: CONTROLS.rollInstruction,
  from: "pending",
  to: "approved",
  by: BY,
  at: "2026-11-28T09:00:00.000Z",
  environment: "sandbox",
  account: null,
  hash: null,
  preparedBy: null,
  message: "Roll instruction approved.",
};

function ports(store: boolean) {
  const appended: Array<Record<string, unknown>> = [];
  const put: unknown[][] = [];
  const chain = {
    append: async ({ rows, seal }: { rows: Array<Record<string, unknown>>; seal: (r: never) => string }) => {
      for (const r of rows) {
        r.prevHash = "prev-link";
        r.rowHash = "a".repeat(64);
        r.finalHash = seal(r as never);
        appended.push(r);
      }
    },
  } as unknown as ChainWriter;
  const p: ControlJournalPorts = {
    store: store
      ? { store: { put: async (_scope: string, entries: unknown[]) => void put.push(entries) } as unknown as IntentStore, scope: "wb" }
      : null,
    chain,
    me: { id: "wb-1", name: "Book.xlsx" } as ControlJournalPorts["me"],
    anchor: null,
    now: new Date("2026-11-28T09:00:00Z"),
  };
  return { p, appended, put };
}

describe("journalControl", () => {
  it("refuses a trade row, naming it, and writes nothing", async () => {
    const { p, appended, put } = ports(true);
    await expect(journalControl(logRow({ idempotencyKey: "k-trade" }), p)).rejects.toThrow(/^Row k-trade is not a control row\.$/);
    expect(appended).toEqual([]);
    expect(put).toEqual([]);
  });

  it("keeps the row in this computer's journal when there is one, then chains it, and the record gets its chain cells and seal", async () => {
    const { p, appended, put } = ports(true);
    const record = controlRecord(change as never, "k-control");
    await journalControl(record, p);
    expect(put).toHaveLength(1);
    expect(appended).toHaveLength(1);
    expect(record.prevHash).toBe("prev-link");
    expect(record.rowHash).toBe("a".repeat(64));
    expect(record.finalHash).toMatch(/^[0-9a-f]{64}$/);
    expect(record.finalHash).toBe(appended[0].finalHash);
  });

  it("without a journal on this computer, writes the log alone", async () => {
    const { p, appended } = ports(false);
    const record = controlRecord(change as never, "k-control-2");
    await journalControl(record, p);
    expect(appended).toHaveLength(1);
  });
});
