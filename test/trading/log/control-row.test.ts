// Control rows of the Hedge Log (issue 40 item 6a): a change of "LIVE trades need approval" is a chained, sealed row journalled on this computer; a rehash-edited one is caught where the chain can catch it; no reader of trades (resume, merge, duplicates, month end) takes it for a trade; month end lists it and flags an unticking.
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../../src/excel/intent-store";
import { createDesk } from "../../../src/trading/desk";
import type { HedgingClient } from "../../../src/api/client";
import { intentScope } from "../../../src/trading/intent-store";
import { chainHeadOf } from "../../../src/trading/chain-head";
import { CHAIN_START, finalHashOf, rowHashOf } from "../../../src/trading/log/log-chain";
import { CONTROLS, CONTROL_STATUS, controlRecord, isControlRecord, readControl } from "../../../src/trading/log/control-row";
import type { LogRecord } from "../../../src/trading/log/hedge-log";
import { WORKBOOK_ID_PROPERTY } from "../../../src/trading/workbook";
import { findDuplicate } from "../../../src/trading/duplicates";
import { liveApprovalChange } from "../../../src/taskpane/approvals-model";
import { publicKeyFingerprint } from "../../../src/api/environment";
import { reconcile } from "../../../src/monthend/reconcile";
import { checkLogAgainstService } from "../../../src/monthend/log-vs-service";
import { reconContent } from "../../../src/monthend/recon-layout";
import { verifyLogChain } from "../../../src/monthend/log-chain-check";
import { chainFindings } from "../../support/chain";
import { OPEN_ROW, hedge, logRow, monthData } from "../../support/builders";

const ACCOUNT = "0x00000000000000000000000000000000000000aa";
const WORKBOOK = "wb-controls";
const ME = publicKeyFingerprint("svc_live_controls_test_key_0001");
const T0 = Date.parse("2026-11-23T09:00:00.000Z");

/** A desk over a memory workbook and this computer's journal; no request is made (recording a control sends nothing). */
async function deskWith(
  store = new MemoryIntentStore(),
  workbook = new MemoryWorkbook({ customProperties: { [WORKBOOK_ID_PROPERTY]: WORKBOOK } }),
) {
  let clock = T0;
  const client = { environment: "production" } as unknown as HedgingClient;
  const desk = await createDesk({ client, workbook, intentStore: store, account: ACCOUNT, now: () => new Date((clock += 60_000)) });
  return { desk, workbook, store };
}

/** Rewrites row `i` of the log and recomputes its link and seal, as a forger who knows the recipe would. */
function rehash(log: LogRecord[], i: number, edit: Partial<LogRecord>): LogRecord[] {
  const out = log.map((r) => ({ ...r }));
  Object.assign(out[i], edit);
  out[i].rowHash = rowHashOf(out[i].prevHash!, out[i]);
  out[i].finalHash = finalHashOf(out[i].rowHash!, out[i]);
  return out;
}

describe("a change of 'LIVE trades need approval' is a chained control row", () => {
  it("toggling off and on writes two chained, sealed rows (who, when, from → to), journalled on this computer; the log checks clean against its head", async () => {
    const { desk, workbook, store } = await deskWith();
    await desk.recordControl(liveApprovalChange(false, ME));
    await desk.recordControl(liveApprovalChange(true, ME));
    const log = await workbook.readLog();
    expect(log).toHaveLength(2);
    expect(log.map((r) => [r.action, r.market, r.clientReference, r.status, r.approvedBy, r.environment, r.account])).toEqual([
      ["control", CONTROLS.liveApproval, "on → off", CONTROL_STATUS, ME, "production", ACCOUNT],
      ["control", CONTROLS.liveApproval, "off → on", CONTROL_STATUS, ME, "production", ACCOUNT],
    ]);
    // What the Status and Side cells show: "recorded" (final at once, never a trade's state) and a blank Side (no buy, no sell).
    expect(log.map((r) => [r.status, r.side])).toEqual([
      ["recorded", ""],
      ["recorded", ""],
    ]);
    // When, in UTC, at the desk's clock: the second after the first.
    expect(log.every((r) => /^2026-11-23T09:0\d:00\.000Z$/.test(r.loggedAt))).toBe(true);
    expect(log[0].loggedAt < log[1].loggedAt).toBe(true);
    expect(log[0].prevHash).toBe(CHAIN_START);
    expect(log[1].prevHash).toBe(log[0].rowHash);
    expect(log[1].rowHash).toBe(rowHashOf(log[0].rowHash!, log[1]));
    expect(log[1].finalHash).toBe(finalHashOf(log[1].rowHash!, log[1]));
    expect(await chainHeadOf(store, WORKBOOK)).toBe(log[1].rowHash);
    expect(chainFindings(log, log[1].rowHash)).toEqual([]);
    // Journalled here: this computer's store holds both rows.
    const stored = await store.load(intentScope("production", ACCOUNT));
    expect(stored.map((e) => e.record.clientReference)).toEqual(["on → off", "off → on"]);
    // The key never: only its public fingerprint.
    expect(JSON.stringify(log)).not.toContain("svc_live_");
  });

  it("refuses a key where a fingerprint belongs, naming the field, and a value that holds the arrow", () => {
    const change = { ...liveApprovalChange(false, ME), at: "2026-11-23T09:00:00.000Z", environment: "sandbox", account: null };
    expect(() => controlRecord({ ...change, by: "svc_live_abcdefabcdef0123" }, "k")).toThrow(
      /control row's by must be a key's public fingerprint/,
    );
    expect(() => controlRecord({ ...change, preparedBy: "svc_test_x" }, "k")).toThrow(/preparedBy/);
    expect(() => controlRecord({ ...change, to: "a → b" }, "k")).toThrow(/may not contain "→"/);
    expect(() => controlRecord({ ...change, from: "a → b" }, "k")).toThrow(/may not contain "→"/);
    // Read back whole: every field of the change, as written.
    const whole = { ...change, account: ACCOUNT, hash: "a".repeat(64), preparedBy: ME };
    expect(readControl(controlRecord(whole, "k"))).toEqual(whole);
    // A Client reference typed without the arrow reads as the value after.
    expect(readControl({ ...controlRecord(change, "k"), clientReference: "off" })).toMatchObject({ from: "", to: "off" });
    // A change with no value before (an empty from) reads back as written: " → off" is from "" to "off", not to " → off".
    expect(readControl(controlRecord({ ...change, from: "" }, "k"))).toMatchObject({ from: "", to: "off" });
    expect(
      readControl({ ...controlRecord(change, "k"), clientReference: null, approvedBy: null, batchHash: undefined, message: null }),
    ).toMatchObject({
      from: "",
      to: "",
      by: "",
      hash: null,
      message: "",
    });
    expect(readControl(logRow())).toBeNull();
    expect(isControlRecord({ action: " Control " })).toBe(true);
    expect(isControlRecord({ action: "open" })).toBe(false);
  });

  it("a rehash-edited control row is caught where the chain can: by the row after it, or, as the last row, by this computer's head", async () => {
    const { desk, workbook, store } = await deskWith();
    await desk.recordControl(liveApprovalChange(false, ME));
    await desk.recordControl(liveApprovalChange(true, ME));
    const log = await workbook.readLog();
    const head = await chainHeadOf(store, WORKBOOK);
    // Edited in place (the unticking made to read as nothing): its own link no longer holds.
    expect(chainFindings([{ ...log[0], clientReference: "on → on" }, log[1]], head)).toEqual(["edited@2"]);
    // Edited and rehashed: the row after it follows a link no row holds.
    expect(chainFindings(rehash(log, 0, { clientReference: "on → on" }), head)).toEqual(["deleted_before@3"]);
    // The last row rehashed (the ticking back forged earlier): this computer's head is no longer in the log.
    expect(chainFindings(rehash(log, 1, { loggedAt: "2026-11-23T09:01:30.000Z" }), head)).toEqual(["cut_off@3"]);
    // Its message (outcome) edited and resealed alone: the seal holds, the link too — the chain cannot see a rehash of the
    // last row on a computer without the head (documented).
    expect(chainFindings(rehash(log, 1, { message: "x" }), null)).toEqual([]);
    // Deleted: the chain says so at the next row.
    expect(chainFindings([log[1]], head)).toEqual(["deleted_before@2"]);
  });
});

describe("no reader of trades takes a control row for a trade", () => {
  it("a desk opened again lists no control row: not an unfinished row, not an unusable one, not in the activity log", async () => {
    const store = new MemoryIntentStore();
    const workbook = new MemoryWorkbook({ customProperties: { [WORKBOOK_ID_PROPERTY]: WORKBOOK } });
    const first = await deskWith(store, workbook);
    await first.desk.recordControl(liveApprovalChange(false, ME));
    const { desk } = await deskWith(store, workbook);
    const plan = await desk.inspect();
    expect(plan.items).toEqual([]);
    expect(plan.copied).toBeNull();
    expect(plan.otherWorkbooks).toEqual([]);
    expect(plan.unusable).toEqual([]);
    expect(plan.missing).toEqual([]);
    expect(await desk.log()).toEqual([]);
    expect(desk.pending()).toEqual([]);
  });

  it("a control row deleted from the log is not written back as a trade (the chain shows the gap)", async () => {
    const store = new MemoryIntentStore();
    const workbook = new MemoryWorkbook({ customProperties: { [WORKBOOK_ID_PROPERTY]: WORKBOOK } });
    const first = await deskWith(store, workbook);
    await first.desk.recordControl(liveApprovalChange(false, ME));
    const other = new MemoryWorkbook({ customProperties: { [WORKBOOK_ID_PROPERTY]: WORKBOOK } }); // the log lost it
    const { desk } = await deskWith(store, other);
    await desk.inspect();
    expect(await other.readLog()).toEqual([]);
  });

  it("the duplicate check never matches a control row", () => {
    const row = controlRecord(
      { ...liveApprovalChange(false, ME), at: "2026-11-23T09:00:00.000Z", environment: "sandbox", account: null },
      "k",
    );
    const look = {
      ...row,
      clientReference: OPEN_ROW.clientReference,
      market: OPEN_ROW.market,
      side: OPEN_ROW.side,
      notional: OPEN_ROW.notional,
    };
    expect(findDuplicate(OPEN_ROW, "sandbox", [look], null, { dayStart: "2026-11-23T00:00:00.000Z", hedgeId: null })).toBeNull();
  });

  it("month end: listed under Controls changed, an unticking flagged (with when it was ticked again), no difference, no service finding, not an other-account row", () => {
    const at = (d: string) => ({ environment: "sandbox", account: "0xACCOUNT", at: d });
    const off = controlRecord({ ...liveApprovalChange(false, ME), ...at("2026-11-10T08:00:00.000Z") }, "c1");
    const on = controlRecord({ ...liveApprovalChange(true, ME), ...at("2026-11-10T09:30:00.000Z") }, "c2");
    const offAgain = controlRecord({ ...liveApprovalChange(false, ME), ...at("2026-11-20T08:00:00.000Z") }, "c3");
    const october = controlRecord({ ...liveApprovalChange(false, ME), ...at("2026-10-20T08:00:00.000Z") }, "c0");
    const trade = logRow({ account: "0xACCOUNT", clientReference: "DEAL-1" });
    const log = [october, off, trade, on, offAgain];
    const data = monthData({ log, hedges: [hedge({ id: "h1", client_reference: "DEAL-1" })] });
    const service = checkLogAgainstService({
      rows: log.map((record, i) => ({ sheet: "Hedge Log", rowNumber: i + 2, record })),
      environment: "sandbox",
      accountAddress: "0xACCOUNT",
      hedges: data.hedges,
      history: [],
      hedgesComplete: true,
    });
    expect(service.lines.filter((l) => [2, 3, 5, 6].includes(l.rowNumber ?? 0))).toEqual([]);
    const recon = reconcile({ ...data, service });
    expect(recon.controls.map((c) => [c.loggedAt, c.from, c.to, c.by])).toEqual([
      ["2026-11-10T08:00:00.000Z", "on", "off", ME],
      ["2026-11-10T09:30:00.000Z", "off", "on", ME],
      ["2026-11-20T08:00:00.000Z", "on", "off", ME],
    ]);
    expect(recon.controls.map((c) => c.flag)).toEqual([
      `LIVE approval unticked: LIVE trades could be sent without a second key until 2026-11-10T09:30:00.000Z (ticked again by ${ME}).`,
      null,
      "LIVE approval unticked: LIVE trades could be sent without a second key for the rest of the period.",
    ]);
    expect(recon.counts).toMatchObject({ controls: 3, controlFlags: 2, logRows: 1, otherEnvironmentLogRows: 0 });
    // The trade's reconciliation is the same with and without the control rows: none of them is a difference.
    const tradesOnly = reconcile({ ...data, log: [trade], service });
    expect(recon.differences).toEqual(tradesOnly.differences);
    expect(recon.counts.differences).toBe(tradesOnly.counts.differences);
    expect(recon.notes[0]).toMatch(/^“LIVE trades need approval” was unticked 2 times in the period/);
    const sheet = reconContent(recon);
    const section = sheet.sections.find((s) => s.title === "Controls changed in the period")!;
    const texts = sheet.values.slice(section.firstRow, section.lastRow + 1).map((r) => r.join("|"));
    expect(texts[1]).toMatch(/^Logged at \(UTC\)\|Control\|From\|To\|By\|Environment\|Hash\|Flag/);
    expect(texts.filter((t) => t.includes(CONTROLS.liveApproval))).toHaveLength(3);
  });

  it("month end's chain check judges a control row sealed: its outcome edited is found", async () => {
    const { desk, workbook } = await deskWith();
    await desk.recordControl(liveApprovalChange(false, ME));
    const [row] = await workbook.readLog();
    const placed = [{ sheet: "Hedge Log", rowNumber: 2, record: { ...row, message: "nothing changed" } }];
    expect(verifyLogChain(placed, null).lines.map((l) => l.kind)).toEqual(["edited_after_final"]);
    expect(verifyLogChain([{ ...placed[0], record: row }], row.rowHash!).lines).toEqual([]);
  });
});
