// Issue 40 over the sandbox (HTTP): a roll batch's stale copy approved 25 sandbox hours later is refused ("prepare it again") and sends nothing; on a service that forgot the keys, the roll's Open found by client reference stops its Close; a batch is approved only in its preparer's environment and account.
import { publicKeyFingerprint } from "../../../src/api/environment";
import { defaultAccounts } from "../../../src/sandbox/accounts";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { Approvals } from "../../../src/trading/approvals/approval-desk";
import { APPROVALS_SHEET_NAME } from "../../../src/trading/approvals/block";
import type { CellValue } from "../../../src/trading/cells";
import type { RunningSandbox, SandboxOptions } from "../../../src/sandbox/server";
import { DEMO_API_KEY, DEMO_API_KEY_2, DEMO_APPROVER_API_KEY, DEMO_LIVE_API_KEY, DEMO_READ_API_KEY } from "../../../src/sandbox/demo";
import { deskClient, serviceState, start, until } from "../../sandbox/helpers";
import { sandboxWorld } from "../../support/sandbox-world";

const HOUR = 3_600_000;
const TITLES = ["Action", "Market", "Side", "Notional", "Tenor", "Client reference"];
const ROLL: CellValue[][] = [
  ["Close", "USDTNGN", "buy", "", "", "ROLL-CLOSE"],
  ["Open", "USDTNGN", "buy", 100_000, 7, "ROLL-OPEN"],
];

/** A sandbox of the demo accounts, its clock, the account's hedges and everything it did. */
function world(options: SandboxOptions = {}) {
  const w = {
    sb: null as unknown as RunningSandbox,
    /** The computers' clock: the sandbox's (the approvals' times are read against it). */
    now: () => new Date(w.sb.clock.now()),
    account: () => serviceState(w.sb, DEMO_API_KEY),
    filled: async () => (await w.account()).hedges.filter((h) => h.status === "filled").map((h) => [h.side, h.notional_usd]),
    acted: async () => {
      const a = await w.account();
      return a.hedges.length + a.history.length;
    },
  };
  beforeAll(async () => {
    w.sb = await start({ accounts: defaultAccounts(), fillMs: 100, ...options });
  });
  afterAll(() => w.sb.close());
  return w;
}

type World = ReturnType<typeof world>;

/** The buy hedge of 100,000 the roll closes, opened straight through the API. */
async function holding(w: World): Promise<void> {
  await deskClient(w.sb, DEMO_API_KEY).open({ market: "USDTNGN", side: "buy", notional_usd: 100_000, tenor_days: 7 });
  await until(async () => (await w.filled()).length === 1, 5_000, "the open's fill");
}

/** A read-only preparer submits `rows` as a batch; returns the workbook, the batch id and the sheet as saved then (pending). */
async function prepared(w: World, rows: CellValue[][], preparerKey = DEMO_READ_API_KEY) {
  const grid = [TITLES, ...rows];
  const { workbook, desk } = sandboxWorld(w.sb, preparerKey, {
    workbook: new MemoryWorkbook({ sheets: { Exposures: grid } }).select("Exposures", `A2:F${grid.length}`),
    intentStore: null,
    pollIntervalMs: 100,
  });
  const preparer = await desk();
  const read = await preparer.readRows("open");
  expect(read.problems).toEqual([]);
  const batch = await new Approvals({ sheet: workbook, now: w.now }).submit(
    await preparer.preview(read.action, read.rows),
    publicKeyFingerprint(preparerKey),
  );
  preparer.stop();
  return { workbook, id: batch.id, saved: workbook.cells(APPROVALS_SHEET_NAME) };
}

/** Approves the batch on `book` (its own computer, the sandbox's clock) with `key`; waits for every row to be final. */
async function approve(w: World, book: MemoryWorkbook, id: string, key: string) {
  const desk = await sandboxWorld(w.sb, key, { workbook: book, pollIntervalMs: 100 }).desk();
  try {
    const result = await new Approvals({ sheet: book, now: w.now }).approve(id, publicKeyFingerprint(key), desk);
    await desk.settled(20_000);
    return result;
  } finally {
    desk.stop();
  }
}

describe("a roll batch's stale copy, approved 25 sandbox hours later (past the sandbox's 24 h key retention)", () => {
  const w = world();

  it("is refused as expired, says 'prepare it again', and sends nothing: the roll's new hedge stays", async () => {
    await holding(w);
    const { workbook, id, saved } = await prepared(w, ROLL);
    await approve(w, workbook, id, DEMO_API_KEY);
    await until(async () => JSON.stringify(await w.filled()) === JSON.stringify([["buy", 100_000]]), 5_000, "the roll");
    const before = await w.acted();

    w.sb.clock.advance(25 * HOUR);
    const copy = new MemoryWorkbook({ sheets: { [APPROVALS_SHEET_NAME]: saved } });
    const approving = approve(w, copy, id, DEMO_APPROVER_API_KEY);
    await expect(approving).rejects.toThrow(
      /it expired, so it cannot be approved nor its rows sent\. Nothing was sent: prepare it again\./,
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(await w.filled()).toEqual([["buy", 100_000]]);
    expect(await w.acted()).toBe(before);
    expect(await copy.readLog()).toEqual([]);
    expect(copy.cells(APPROVALS_SHEET_NAME)[1][1]).toBe("pending");
  });
});

describe("on a service that keeps idempotency keys 1 hour, the copy approved 2 hours later (still valid, its keys forgotten)", () => {
  const w = world({ idempotencyRetentionMs: HOUR });

  it("the roll's Open is found by its client reference: the batch was executed, its Close is not sent again", async () => {
    await holding(w);
    const { workbook, id, saved } = await prepared(w, ROLL);
    await approve(w, workbook, id, DEMO_API_KEY);
    await until(async () => JSON.stringify(await w.filled()) === JSON.stringify([["buy", 100_000]]), 5_000, "the roll");
    const before = await w.acted();

    w.sb.clock.advance(2 * HOUR);
    const copy = new MemoryWorkbook({ sheets: { [APPROVALS_SHEET_NAME]: saved } });
    const result = await approve(w, copy, id, DEMO_APPROVER_API_KEY);
    expect(await w.filled()).toEqual([["buy", 100_000]]);
    expect(await w.acted()).toBe(before);
    expect(result.skipped.map((s) => s.reason)).toEqual([
      expect.stringMatching(/^This batch was executed already: its Open of USDTNGN buy with client reference ROLL-OPEN is on the service/),
    ]);
    // The Open is recorded from the service, never sent; the Close is not in the log at all.
    expect((await copy.readLog()).map((r) => [r.action, r.clientReference, r.sentAt ?? "never sent"])).toEqual([
      ["open", "ROLL-OPEN", "never sent"],
    ]);
  });
});

describe("a batch is bound to its preparer's environment and account", () => {
  const w = world();

  it("a sandbox (test) batch cannot be approved by a LIVE key, nor by a key of another account: refused, nothing traded", async () => {
    const { workbook, id } = await prepared(w, [["Open", "USDTNGN", "sell", 20_000, 7, "BOUND-1"]]);
    const cells = workbook.cells(APPROVALS_SHEET_NAME);
    expect(cells[0].slice(9)).toEqual(["Environment", "Account"]);
    expect(cells[1][9]).toBe("sandbox");
    const before = await w.acted();

    await expect(approve(w, workbook, id, DEMO_LIVE_API_KEY)).rejects.toThrow(
      `Batch ${id} was prepared in sandbox (test), and this key is a production (LIVE) key: a batch is approved only in the environment it was prepared in. Nothing was sent`,
    );
    await expect(approve(w, workbook, id, DEMO_API_KEY_2)).rejects.toThrow(
      new RegExp(
        `Batch ${id} was prepared for account \\S+, and this key trades for account \\S+: a batch is approved only by a key of the account it was prepared for\\. Nothing was sent\\.`,
      ),
    );
    expect(await w.acted()).toBe(before);
    expect(workbook.cells(APPROVALS_SHEET_NAME)[1][1]).toBe("pending");
    // Its own account's trading key approves it.
    await approve(w, workbook, id, DEMO_API_KEY);
    expect(workbook.cells(APPROVALS_SHEET_NAME)[1][1]).toBe("executed");
  });
});
