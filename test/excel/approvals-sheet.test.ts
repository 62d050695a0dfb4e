// The Approvals sheet through Microsoft's own Excel request serializer: blocks of 500 rows appended, listed, one batch read and decided, every sync within the payload limit of test/README.md, one batch's work bounded by its block, hostile text kept as text.
import { OfficeWorkbook } from "../../src/excel/office-workbook";
import { publicKeyFingerprint } from "../../src/api/environment";
import { Approvals } from "../../src/trading/approvals/approval-desk";
import { APPROVALS_SHEET_NAME } from "../../src/trading/approvals/block";
import type { Preview, TradeRow } from "../../src/trading/types";
import { OfficeMeter } from "./wire/office-vm";
import { MiB, kib } from "./wire/scenarios";
import { WireHost } from "./wire/wire-host";

const PREPARER = publicKeyFingerprint("svc_test_demo_read_key_0001");
const APPROVER = publicKeyFingerprint("svc_test_demo_sandbox_key_0001");
const BATCHES = 12;
const ROWS = 500;

/** A batch of opens whose client references are the longest the pane accepts (128 characters), the first one hostile. */
function previewOf(batch: number): Preview {
  const rows: TradeRow[] = Array.from({ length: ROWS }, (_, i) => ({
    rowNumber: i + 2,
    action: "open",
    market: "USDTNGN",
    side: i % 2 ? "buy" : "sell",
    notional: 1_000 + batch * 10_000 + i + 0.25,
    tenor: 7,
    clientReference: i === 0 ? "=HYPERLINK(1)" : `B${batch}-R${i}-`.padEnd(128, "x"),
  }));
  return { action: "column", lines: rows.map((row) => ({ row, blockers: [] })), blockers: [], cancelled: false } as unknown as Preview;
}

let meter: OfficeMeter;
let host: WireHost;
let approvals: Approvals;
const ids: string[] = [];

beforeAll(async () => {
  host = new WireHost();
  host.addSheet("Sheet1");
  meter = new OfficeMeter(host);
  approvals = new Approvals({ sheet: new OfficeWorkbook(meter.excel) });
  meter.label("append");
  for (let b = 0; b < BATCHES; b++) ids.push((await approvals.submit(previewOf(b), PREPARER)).id);
}, 120_000);

/** Runs a step under a label and returns its syncs' figures. */
async function measured(label: string, work: () => Promise<unknown>) {
  meter.label(label);
  await work();
  meter.label("between steps");
  return OfficeMeter.largest(meter.of(label));
}

describe(`the Approvals sheet of ${BATCHES} batches of ${ROWS} rows, through Microsoft's serializer`, () => {
  it("lists every batch in chunks: more than 1 MiB in all, every sync within 1 MiB each way", async () => {
    let listed = 0;
    const m = await measured("list", async () => (listed = (await approvals.list()).length));
    expect(listed).toBe(BATCHES);
    expect(m.total).toBeGreaterThan(MiB);
    expect(m.syncs).toBeGreaterThan(2);
    const over = meter.syncs.filter((s) => s.requestBytes > MiB || s.responseBytes > MiB).map((s) => `${s.label}: ${kib(s.responseBytes)}`);
    expect(over).toEqual([]);
  });

  it("checks one batch reading its block (found by the first column), not the others: a fraction of the sheet", async () => {
    const all = await measured("list again", () => approvals.list());
    let rows = 0;
    const one = await measured("check one", async () => {
      const check = await approvals.check(ids[5], APPROVER);
      expect(check.refusal).toBeNull();
      rows = check.batch.rows.length;
    });
    expect(rows).toBe(ROWS);
    expect(one.total).toBeLessThan(all.total / 4);
    expect(one.response).toBeLessThanOrEqual(MiB);
  });

  it("writes a decision into its block's header line only, and keeps hostile text as text", async () => {
    const decided = await measured("reject one", () => approvals.reject(ids[3], APPROVER, "=cmd|' /C calc'!A0"));
    expect(decided.request).toBeLessThan(32 * 1024);
    expect(decided.total).toBeLessThan(MiB / 2);
    const sheet = host.sheet(APPROVALS_SHEET_NAME);
    const block = (await approvals.list()).find((b) => b.id === ids[3])!;
    expect(block).toMatchObject({ status: "rejected", reason: "=cmd|' /C calc'!A0" });
    const cells = sheet.rows.flatMap((row) => (row ?? []).filter((c) => c && typeof c.v === "string" && c.v.startsWith("=")));
    expect(cells.length).toBeGreaterThanOrEqual(BATCHES + 1);
    for (const c of cells) expect(c).toMatchObject({ nf: "@", f: undefined });
  });

  it("writes a decision only over the status it expects (another approver first: nothing written), and names a batch it cannot find", async () => {
    const workbook = new OfficeWorkbook(meter.excel);
    const decision = { status: "executed" as const, approvedBy: APPROVER, decidedAt: "2026-11-25T10:00:00.000Z", reason: null };
    await expect(workbook.setApprovalStatus(ids[4], ["approved"], decision)).rejects.toThrow(
      /is pending now, not approved: someone decided it first/,
    );
    expect((await approvals.check(ids[4], APPROVER)).batch).toMatchObject({ status: "pending", approvedBy: null });
    await expect(workbook.setApprovalStatus("AB-20261125-000000000000", ["pending"], decision)).rejects.toThrow(
      /No batch AB-20261125-000000000000/,
    );
  });

  it("a decision reads the status in the same sync as it writes: a co-author's decision arriving just before it is kept, ours undone", async () => {
    const workbook = new OfficeWorkbook(meter.excel);
    const sheet = host.sheet(APPROVALS_SHEET_NAME);
    const headerRow = sheet.rows.findIndex((r) => r?.[0]?.v === ids[6]);
    const other = publicKeyFingerprint("svc_test_other_approver_0001");
    const execute = host.execute.bind(host);
    let arrived = false;
    // Another approver's decision lands between our read of the first column and the sync that writes ours.
    host.execute = (request) => {
      if (!arrived && JSON.stringify(request).includes("2026-11-25T11:00:00.000Z")) {
        arrived = true;
        sheet.rows[headerRow]![1] = { v: "approved" } as (typeof sheet.rows)[number][number];
        sheet.rows[headerRow]![6] = { v: other } as (typeof sheet.rows)[number][number];
      }
      return execute(request);
    };
    try {
      const decision = { status: "approved" as const, approvedBy: APPROVER, decidedAt: "2026-11-25T11:00:00.000Z", reason: null };
      await expect(workbook.setApprovalStatus(ids[6], ["pending"], decision)).rejects.toThrow(
        /is approved now, not pending: someone decided it first/,
      );
    } finally {
      host.execute = execute;
    }
    expect(arrived).toBe(true);
    expect((await approvals.list()).find((b) => b.id === ids[6])).toMatchObject({ status: "approved", approvedBy: other, decidedAt: null });
  });

  it("every approvals call waits for cell-edit mode to end (request flag 64), like the log's", () => {
    expect(meter.syncs.length).toBeGreaterThan(0);
    expect(meter.syncs.every((s) => (s.flags & 64) === 64)).toBe(true);
  });
});
