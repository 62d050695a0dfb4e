// Standing roll instructions (issue 39 item 3): coversRoll's bounds as a table, the instruction hash over each term and its binding, the terms refused by field, and the four-eyes flow over the memory workbook and a real desk's control rows: submitted, refused to the preparer, another environment or account and once expired, approved once by a second key (logged with its hash), revoked (logged) and then refused by coversRoll, a status typed back outranked by the log.
import { createHash } from "crypto";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../../src/excel/intent-store";
import { createDesk } from "../../../src/trading/desk";
import type { HedgingClient } from "../../../src/api/client";
import { publicKeyFingerprint } from "../../../src/api/environment";
import { WORKBOOK_ID_PROPERTY } from "../../../src/trading/workbook";
import { coversRoll, recordedStatus, rollApprovalOf, type RollToCover } from "../../../src/trading/approvals/covers-roll";
import {
  instructionHash,
  instructionLines,
  instructionTerms,
  newInstructionId,
  parseInstructions,
  type RollInstruction,
} from "../../../src/trading/approvals/roll-instruction";
import { controlRecord } from "../../../src/trading/log/control-row";
import { RollInstructions } from "../../../src/trading/approvals/roll-instructions";
import { Approvals } from "../../../src/trading/approvals/approval-desk";
import { parseApprovals, blockSpan, nonBlankLines } from "../../../src/trading/approvals/block-read";
import { blockFormats } from "../../../src/trading/approvals/block";
import { chainFindings } from "../../support/chain";
import { OPEN_ROW, logRow } from "../../support/builders";
import { matchesLogQuery, type LogQuery } from "../../../src/trading/log/hedge-log";
import type { Preview } from "../../../src/trading/types";
import type { CellValue } from "../../../src/trading/cells";

const PREPARER = publicKeyFingerprint("svc_test_preparer_key_0001");
const APPROVER = publicKeyFingerprint("svc_test_approver_key_0001");
const ACCOUNT = "0x00000000000000000000000000000000000000aa";
const T0 = Date.parse("2026-11-28T09:00:00.000Z");
const HOUR = 3_600_000;

/** An approved instruction whose hash matches its terms: USDTNGN buy, until Dec 5, at most 100,000.00 per hedge, tenors up to 7. */
function approved(over: Partial<RollInstruction> = {}): RollInstruction {
  const base = {
    id: "RI-20261128-0123456789ab",
    status: "approved" as const,
    market: "USDTNGN",
    side: "buy" as const,
    until: "2026-12-05T00:00:00.000Z",
    maxPerHedgeUsd: 100_000,
    maxTenor: 7,
    environment: "sandbox" as const,
    account: ACCOUNT,
    preparedAt: "2026-11-28T09:00:00.000Z",
    preparedBy: PREPARER,
    decidedBy: APPROVER,
    decidedAt: "2026-11-28T10:00:00.000Z",
    reason: null,
    problems: [],
    ...over,
  };
  return { ...base, hash: instructionHash(base), ...("hash" in over ? { hash: over.hash! } : {}) };
}

const ROLL: RollToCover = {
  market: "USDTNGN",
  side: "buy",
  notional: 100_000,
  tenor: 7,
  ruleTenor: 7,
  environment: "sandbox",
  account: ACCOUNT,
};
const NOW = Date.parse("2026-12-01T12:00:00.000Z");

describe("coversRoll: each bound", () => {
  const cases: Array<[string, Partial<RollInstruction>, Partial<RollToCover>, number, RegExp | null]> = [
    ["within every bound", {}, {}, NOW, null],
    ["the notional exactly the most per hedge", {}, { notional: 100_000 }, NOW, null],
    ["a shorter tenor the rule picks", {}, { tenor: 3, ruleTenor: 3 }, NOW, null],
    ["a side in any case of market", {}, { market: "usdtngn" }, NOW, null],
    [
      "a cent above the most per hedge",
      {},
      { notional: 100_000.01 },
      NOW,
      /at most 100,000.00 USD per hedge, and this roll is 100,000.01 USD/,
    ],
    ["no notional", {}, { notional: 0 }, NOW, /cannot cover a notional of 0/],
    ["a notional without end", {}, { notional: Infinity }, NOW, /cannot cover a notional of Infinity/],
    ["a notional a fraction of a cent above, to the cent the most", {}, { notional: 100_000.004 }, NOW, null],
    ["a notional that is no number", {}, { notional: NaN }, NOW, /cannot cover a notional of NaN/],
    ["another market", {}, { market: "USDTKES" }, NOW, /keeps USDTNGN buy hedged, not USDTKES buy/],
    ["the other side", {}, { side: "sell" }, NOW, /keeps USDTNGN buy hedged, not USDTNGN sell/],
    ["at its Until", {}, {}, Date.parse("2026-12-05T00:00:00.000Z"), /ended at 2026-12-05T00:00:00.000Z/],
    ["a millisecond before its Until", {}, {}, Date.parse("2026-12-05T00:00:00.000Z") - 1, null],
    ["a tenor that is not the rule's", {}, { tenor: 7, ruleTenor: 3 }, NOW, /this roll's 7 days is not the rule's 3/],
    ["a tenor above its most", { maxTenor: 3 }, {}, NOW, /tenors of at most 3 days, and this roll's is 7/],
    [
      "another environment",
      {},
      { environment: "production" },
      NOW,
      /was approved for sandbox account 0x0+aa, and this desk trades production/,
    ],
    ["another account", {}, { account: "0xbb" }, NOW, /and this desk trades sandbox account 0xbb/],
    ["an unknown account", {}, { account: null }, NOW, /account \(not known\)/],
    ["pending", { status: "pending" }, {}, NOW, /is pending, not approved by a second key/],
    ["rejected", { status: "rejected" }, {}, NOW, /is rejected, not approved/],
    [
      "revoked",
      { status: "revoked", decidedBy: APPROVER, decidedAt: "2026-11-30T00:00:00.000Z" },
      {},
      NOW,
      /was revoked by fp-[0-9a-f]{16} at 2026-11-30/,
    ],
    [
      "revoked, who and when not known",
      { status: "revoked", decidedBy: null, decidedAt: null },
      {},
      NOW,
      /was revoked by a key at \(no time\)/,
    ],
    [
      "its amount edited (hash kept)",
      { hash: approved().hash, maxPerHedgeUsd: 1_000_000 },
      { notional: 500_000 },
      NOW,
      /was edited since it was prepared/,
    ],
  ];
  it.each(cases)("%s", (_, over, roll, now, refused) => {
    const cover = coversRoll(approved(over), { ...ROLL, ...roll }, now);
    if (refused === null) expect(cover).toEqual({ ok: true });
    else {
      expect(cover.ok).toBe(false);
      const reason = (cover as { reason: string }).reason;
      expect(reason).toMatch(refused);
      expect(reason).toMatch(/^Roll instruction RI-20261128-0123456789ab .*: this roll needs a new approval\.$/);
    }
  });

  it("a roll under it carries the instruction's hash and both fingerprints into its log row; only an approved one", () => {
    expect(rollApprovalOf(approved())).toEqual({ batchHash: approved().hash, preparedBy: PREPARER, approvedBy: APPROVER });
    expect(() => rollApprovalOf(approved({ status: "revoked" }))).toThrow(/is revoked: no roll is sent under it/);
    expect(() => rollApprovalOf(approved({ decidedBy: null }))).toThrow(/is approved: no roll/);
  });

  it("takes a Date as now", () => {
    expect(coversRoll(approved(), ROLL, new Date(NOW))).toEqual({ ok: true });
    expect(coversRoll(approved(), ROLL, new Date("2026-12-06T00:00:00Z")).ok).toBe(false);
  });
});

describe("the instruction hash", () => {
  const base = approved();
  const edits: Array<[string, Partial<RollInstruction>]> = [
    ["environment", { environment: "production" }],
    ["environment unknown", { environment: null }],
    ["account", { account: "0xbb" }],
    ["account unknown", { account: null }],
    ["prepared at", { preparedAt: "2026-11-28T09:00:01.000Z" }],
    ["market", { market: "USDTKES" }],
    ["side", { side: "sell" }],
    ["until", { until: "2026-12-05T00:00:01.000Z" }],
    ["max per hedge", { maxPerHedgeUsd: 100_000.01 }],
    ["max tenor", { maxTenor: 3 }],
  ];
  it.each(edits)("changes with its %s", (_, over) => {
    expect(instructionHash({ ...base, ...over })).not.toBe(base.hash);
  });
  it("is SHA-256 of its label and fields, one a line, as released (Node's own SHA-256): an unknown place hashes as empty", () => {
    const lines = (env: string, account: string) =>
      ["hedge-roll-instruction-v1", env, account, base.preparedAt, "USDTNGN", "buy", base.until, "100000.00", "7"].join("\n");
    expect(base.hash).toBe(createHash("sha256").update(lines("sandbox", ACCOUNT)).digest("hex"));
    expect(instructionHash({ ...base, environment: null, account: null })).toBe(createHash("sha256").update(lines("", "")).digest("hex"));
  });
  it("is the same for the same terms, the amount read to the cent", () => {
    expect(instructionHash({ ...base, maxPerHedgeUsd: 100_000.001 })).toBe(base.hash);
    expect(base.hash).toMatch(/^[0-9a-f]{64}$/);
  });
  it("reads back from its block as written", () => {
    const lines = nonBlankLines(instructionLines(base), 0);
    const [read] = parseInstructions(lines);
    expect(read).toMatchObject({ ...base, problems: [] });
    expect(instructionHash(read)).toBe(base.hash);
  });
});

describe("its record and its block read back", () => {
  const row = (to: string, hash: string, control = "Roll instruction") =>
    controlRecord(
      {
        control,
        from: "x",
        to,
        by: APPROVER,
        hash,
        preparedBy: PREPARER,
        message: "",
        at: "2026-11-29T00:00:00.000Z",
        environment: "sandbox",
        account: ACCOUNT,
      },
      `k-${to}-${hash.slice(0, 4)}`,
    );
  it("the log's control rows of its own hash decide: revoked by one, approved only with one", () => {
    const i = approved();
    expect(recordedStatus(i, [row("approved", i.hash)])).toEqual(i);
    expect(recordedStatus(i, [row("approved", i.hash), row("revoked", "f".repeat(64))])).toEqual(i);
    expect(recordedStatus(i, [row("approved", i.hash), row("revoked", i.hash, "LIVE trades need approval")])).toEqual(i);
    expect(recordedStatus(i, [row("approved", i.hash), row("revoked", i.hash)])).toMatchObject({
      status: "revoked",
      decidedBy: APPROVER,
      decidedAt: "2026-11-29T00:00:00.000Z",
    });
    expect(recordedStatus(i, [row("approved", "e".repeat(64))])).toMatchObject({
      status: "pending",
      problems: [expect.stringMatching(/a status typed in/)],
    });
    expect(recordedStatus(approved({ status: "pending" }), [])).toMatchObject({ status: "pending", problems: [] });
    expect(recordedStatus(approved({ status: "rejected" }), [row("approved", "e".repeat(64))]).status).toBe("rejected");
  });

  it("cells typed over read as they stand: an unknown status is a problem and reads pending; case, text amounts and a tenor the add-in did not write", () => {
    const lines = instructionLines(approved());
    lines[1][1] = " Approved ";
    expect(parseInstructions(nonBlankLines(lines, 0))[0]).toMatchObject({ status: "approved", problems: [] });
    lines[1][1] = "Maybe";
    lines[1][9] = "SANDBOX";
    lines[3][3] = "100,000.00";
    const [read] = parseInstructions(nonBlankLines(lines, 0));
    expect(read.status).toBe("pending");
    expect(read.problems).toEqual(['its Status cell reads "Maybe", not one the add-in writes (pending, approved, rejected, revoked)']);
    expect(read.environment).toBe("sandbox");
    expect(read.maxPerHedgeUsd).toBe(100_000);
    lines[3][4] = "whatever the rule says";
    lines[1][9] = "staging";
    const [typed] = parseInstructions(nonBlankLines(lines, 0));
    expect(typed.maxTenor).toBeNaN();
    expect(typed.environment).toBeNull();
    expect(coversRoll({ ...typed, status: "approved" }, ROLL, NOW).ok).toBe(false);
    expect(lines.every((l) => l.length === 11)).toBe(true);
  });

  it("its titles; a production one, a hash in capitals, two blocks in a row, a block without its values line", () => {
    const lines = instructionLines(approved({ environment: "production" }));
    expect(lines[0]).toEqual([
      "Roll instruction id",
      "Status",
      "Instruction hash",
      "Kind",
      "Prepared by",
      "Prepared at (UTC)",
      "Approved/revoked by",
      "Decided at (UTC)",
      "Reason",
      "Environment",
      "Account",
    ]);
    lines[1][2] = String(lines[1][2]).toUpperCase();
    const second = instructionLines(approved({ id: "RI-20261128-bbbbbbbbbbbb" }));
    const read = parseInstructions(nonBlankLines([...lines, [], ...second], 0));
    expect(read.map((i) => [i.id, i.environment])).toEqual([
      ["RI-20261128-0123456789ab", "production"],
      ["RI-20261128-bbbbbbbbbbbb", "sandbox"],
    ]);
    expect(read[0].hash).toBe(approved({ environment: "production" }).hash);
    const headless = parseInstructions(nonBlankLines([lines[0], [], lines[2], lines[3]], 0)); // its values line deleted, a blank left
    expect(headless[0]).toMatchObject({ id: "", status: "pending", market: "USDTNGN" });
  });

  it("is written as the user sees it: its Kind, the terms' titles, and a blank cell for what is not known or not decided yet", () => {
    const pending = approved({ status: "pending", decidedBy: null, decidedAt: null, environment: null, account: null });
    const blank = (n: number) => Array<string>(n).fill("");
    expect(instructionLines(pending)).toEqual([
      [
        ...["Roll instruction id", "Status", "Instruction hash", "Kind", "Prepared by", "Prepared at (UTC)"],
        ...["Approved/revoked by", "Decided at (UTC)", "Reason", "Environment", "Account"],
      ],
      [pending.id, "pending", pending.hash, "standing roll", PREPARER, "2026-11-28T09:00:00.000Z", ...blank(5)],
      ["Market", "Side", "Until (UTC)", "Max per hedge (USD)", "Tenors", ...blank(6)],
      ["USDTNGN", "buy", "2026-12-05T00:00:00.000Z", 100_000, "by the rule, at most 7 days", ...blank(6)],
    ]);
    const [read] = parseInstructions(nonBlankLines(instructionLines(pending), 0));
    expect(read).toEqual({ ...pending, problems: [] });
  });

  it("a block cut short reads with what is left, its missing terms blank and refused as edited, and never breaks the sheet's reading", () => {
    const lines = instructionLines(approved());
    const read = (kept: CellValue[][]) => {
      const [one] = parseInstructions(nonBlankLines(kept, 0));
      expect(coversRoll(one, ROLL, NOW)).toEqual({ ok: false, reason: expect.stringMatching(/was edited since it was prepared/) });
      return one;
    };
    const noTerms = { market: "", side: "", until: "", maxPerHedgeUsd: 0, maxTenor: NaN }; // a blank amount reads 0, as Number("")
    // Only its titles, the last line of the sheet.
    expect(read([lines[0]])).toMatchObject({ id: "", status: "pending", hash: "", ...noTerms });
    // Its terms' titles deleted: the values line below is not read as terms, nor is the header.
    expect(read([lines[0], lines[1], [], lines[3]])).toMatchObject({ id: "RI-20261128-0123456789ab", status: "approved", ...noTerms });
    // Its terms' values deleted: the titles are the block's last line.
    expect(read([lines[0], lines[1], lines[2]])).toMatchObject({ id: "RI-20261128-0123456789ab", ...noTerms });
  });

  it("reads its Tenors cell only in the add-in's own words: words typed around them read as no tenor and cover nothing; a number typed in reads as typed", () => {
    const typed = (tenors: string) => {
      const lines = instructionLines(approved());
      lines[3][4] = tenors;
      return parseInstructions(nonBlankLines(lines, 0))[0];
    };
    expect(typed("by the rule, at most 7 days").maxTenor).toBe(7);
    expect(coversRoll(typed("by the rule, at most 7 days"), ROLL, NOW)).toEqual({ ok: true });
    for (const around of ["by the rule, at most 7 days or 30", "not by the rule, at most 7 days"]) {
      const one = typed(around);
      expect(one.maxTenor).toBeNaN();
      expect(coversRoll(one, ROLL, NOW)).toEqual({ ok: false, reason: expect.stringMatching(/was edited since it was prepared/) });
    }
    // Shown in the pane as the cell says ("up to 30 days"), and refused: the hash was made over 7.
    const widened = typed("by the rule, at most 30 days");
    expect(widened.maxTenor).toBe(30);
    expect(coversRoll(widened, ROLL, NOW).ok).toBe(false);
  });

  it("its Max per hedge shows to the cent (#,##0.00), its terms' other cells and titles as General", () => {
    const formats = blockFormats(instructionLines(approved()));
    expect(formats[3]).toEqual(["General", "General", "General", "#,##0.00", ...Array<string>(7).fill("General")]);
    expect(formats[2]).toEqual(Array<string>(11).fill("General")); // the terms' titles
  });

  it("a new id: the UTC day and the first 12 hex digits of the random text, lower case", () => {
    expect(newInstructionId(new Date("2026-11-28T23:59:59Z"), () => "ABCDEF-0123-4567-89ab-zz")).toBe("RI-20261128-abcdef012345");
  });
});

describe("the terms typed in the pane", () => {
  const ok = { market: " usdt /ngn", side: "Buy", until: " 2026-12-05T00:00:00Z", maxPerHedgeUsd: " 100,000.004 ", maxTenor: "7" };
  it("are normalised: market, side, Until in UTC to the second, amount to the cent", () => {
    expect(instructionTerms(ok, T0)).toEqual({
      ok: true,
      terms: { market: "USDTNGN", side: "buy", until: "2026-12-05T00:00:00.000Z", maxPerHedgeUsd: 100_000, maxTenor: 7 },
    });
  });
  const bad: Array<[string, Partial<typeof ok>, RegExp]> = [
    ["no market", { market: " " }, /^Market: /],
    ["a side", { side: "long" }, /^Side "long": use buy or sell/],
    ["an Until in the past", { until: "2026-11-27T00:00:00Z" }, /^Until "2026-11-27T00:00:00Z": type a date and time in the future/],
    ["an Until that is no date", { until: "soon" }, /^Until "soon"/],
    ["no amount", { maxPerHedgeUsd: "0" }, /^Max per hedge \(USD\) "0"/],
    ["an amount above the most a row may be", { maxPerHedgeUsd: "2000000000" }, /^Max per hedge \(USD\)/],
    ["a tenor", { maxTenor: "5" }, /^Tenors: "5" is not one of the rule's tenors — type the most days, 1, 3 or 7/],
    [
      "an Until only a browser would guess at",
      { until: "Dec 31 2026" },
      /^Until "Dec 31 2026": type a date and time in the future \(ISO 8601, UTC\)/,
    ],
  ];
  it("read an Until without a zone as UTC (the field says UTC; never this computer's zone), an amount half a cent up, a tenor with its unit", () => {
    expect(instructionTerms({ ...ok, until: "2026-12-05 17:00", maxPerHedgeUsd: "1.005", maxTenor: "3 days" }, T0)).toEqual({
      ok: true,
      terms: expect.objectContaining({ until: "2026-12-05T17:00:00.000Z", maxPerHedgeUsd: 1.01, maxTenor: 3 }),
    });
    expect(instructionTerms({ ...ok, maxTenor: " 7d " }, T0)).toMatchObject({ ok: true, terms: { maxTenor: 7 } });
    expect(instructionTerms({ ...ok, maxTenor: "1 day" }, T0)).toMatchObject({ ok: true, terms: { maxTenor: 1 } });
  });
  it("take numbers as typed, an Until cut to its second, and the most amount a row may be", () => {
    const read = instructionTerms({ ...ok, until: "2026-12-05T00:00:00.700Z", maxPerHedgeUsd: 1_000_000_000, maxTenor: 3 }, T0);
    expect(read).toEqual({
      ok: true,
      terms: expect.objectContaining({ until: "2026-12-05T00:00:00.000Z", maxPerHedgeUsd: 1_000_000_000, maxTenor: 3 }),
    });
    expect(instructionTerms({ ...ok, market: "usd-tngn" }, T0).ok).toBe(false);
    expect(instructionTerms({ ...ok, side: " SELL " }, T0)).toMatchObject({ ok: true, terms: { side: "sell" } });
    expect(instructionTerms({ ...ok, until: new Date(T0).toISOString() }, T0).ok).toBe(false);
  });
  it.each(bad)("refuse %s, naming the field", (_, over, error) => {
    const read = instructionTerms({ ...ok, ...over }, T0);
    expect(read.ok).toBe(false);
    expect((read as { error: string }).error).toMatch(error);
  });
});

/** The workflow over one workbook, with a desk of each key (its control rows) and a clock the test moves. */
async function world() {
  let clock = T0;
  const now = () => new Date(clock);
  const workbook = new MemoryWorkbook({ customProperties: { [WORKBOOK_ID_PROPERTY]: "wb-roll" } });
  const client = { environment: "sandbox" } as unknown as HedgingClient;
  const desk = await createDesk({ client, workbook, intentStore: new MemoryIntentStore(), account: ACCOUNT, now });
  const flow = new RollInstructions({ sheet: workbook, recordControl: (c) => desk.recordControl(c), now });
  const place = { environment: "sandbox" as const, account: ACCOUNT };
  const terms = { market: "USDTNGN", side: "buy", until: "2026-12-05T00:00:00Z", maxPerHedgeUsd: 100_000, maxTenor: 7 };
  return { workbook, flow, place, terms, advance: (ms: number) => (clock += ms), now: () => clock };
}

describe("four eyes on a standing roll instruction", () => {
  it("without a clock given, an instruction is prepared at the time it is submitted", async () => {
    const { workbook, place, terms } = await world();
    const flow = new RollInstructions({ sheet: workbook, recordControl: async () => undefined });
    const submitted = await flow.submit({ ...terms, until: "2099-01-01T00:00:00Z" }, PREPARER, place);
    expect(Math.abs(Date.parse(submitted.preparedAt) - Date.now())).toBeLessThan(5_000);
  });

  it("submitted pending; refused to the preparer, another environment or account; approved once by a second key, logged with its hash; revoked, logged, and then coversRoll refuses", async () => {
    const { workbook, flow, place, terms, advance, now } = await world();
    const submitted = await flow.submit(terms, PREPARER, place);
    expect(submitted).toMatchObject({
      status: "pending",
      market: "USDTNGN",
      preparedBy: PREPARER,
      environment: "sandbox",
      account: ACCOUNT,
    });
    expect(submitted.id).toMatch(/^RI-20261128-[0-9a-f]{12}$/);
    expect(coversRoll(submitted, ROLL, now()).ok).toBe(false);

    expect((await flow.check(submitted.id, PREPARER, place)).refusal).toMatch(/The key that prepared a roll instruction cannot approve it/);
    expect((await flow.check(submitted.id, APPROVER, { environment: "production", account: ACCOUNT })).refusal).toMatch(
      /Roll instruction RI-.* was prepared in sandbox \(test\), and this key is a production \(LIVE\) key/,
    );
    expect((await flow.check(submitted.id, APPROVER, { ...place, account: "0xbb" })).refusal).toMatch(/prepared for account 0x0+aa/);
    await expect(flow.approve(submitted.id, PREPARER, place)).rejects.toThrow(/cannot approve it/);

    advance(HOUR);
    const ok = await flow.approve(submitted.id, APPROVER, place);
    expect(ok).toMatchObject({ status: "approved", decidedBy: APPROVER });
    expect(coversRoll(ok, ROLL, now())).toEqual({ ok: true });
    await expect(flow.approve(submitted.id, APPROVER, place)).rejects.toThrow(/is approved: an instruction is approved once/);

    let log = await workbook.readLog();
    expect(log.map((r) => [r.action, r.market, r.clientReference, r.batchHash, r.preparedBy, r.approvedBy])).toEqual([
      ["control", "Roll instruction", "pending → approved", submitted.hash, PREPARER, APPROVER],
    ]);

    advance(HOUR);
    const revoked = await flow.revoke(submitted.id, PREPARER, "desk closes the program");
    expect(revoked).toMatchObject({ status: "revoked", decidedBy: PREPARER });
    log = await workbook.readLog();
    expect(log.map((r) => [r.clientReference, r.batchHash, r.approvedBy])).toEqual([
      ["pending → approved", submitted.hash, APPROVER],
      ["approved → revoked", submitted.hash, PREPARER],
    ]);
    expect(log[1].message).toMatch(
      /revoked \(USDTNGN buy until 2026-12-05T00:00:00.000Z, at most 100000.00 USD per hedge.*\): desk closes the program\.$/,
    );
    expect(chainFindings(log)).toEqual([]);
    const cover = coversRoll(revoked, ROLL, now());
    expect(cover).toEqual({
      ok: false,
      reason: expect.stringMatching(/was revoked by fp-[0-9a-f]{16} at .*: this roll needs a new approval\.$/),
    });
    await expect(flow.revoke(submitted.id, APPROVER)).rejects.toThrow(/is revoked already/);

    // A Status typed back to "approved": the log's revocation outranks the cell.
    const lines = workbook.cells("Approvals");
    const headerRow = lines.findIndex((r) => r[0] === submitted.id);
    lines[headerRow][1] = "approved";
    workbook.setSheet("Approvals", lines);
    const typedBack = await flow.read(submitted.id);
    expect(typedBack.status).toBe("revoked");
    expect(coversRoll(typedBack, ROLL, now()).ok).toBe(false);
  });

  it("lists newest first and reads each by its id; an id no block has is named; the Status cell follows a revocation; the log is read by its control rows only", async () => {
    const { workbook, flow, place, terms, advance } = await world();
    const queries: LogQuery[] = [];
    const readLog = workbook.readLog.bind(workbook);
    workbook.readLog = (q?: LogQuery) => (q && queries.push(q), readLog(q));
    const first = await flow.submit(terms, PREPARER, place);
    advance(60_000);
    const second = await flow.submit({ ...terms, side: "sell" }, PREPARER, place);
    expect((await flow.list()).map((i) => i.id)).toEqual([second.id, first.id]);
    expect((await flow.read(first.id)).side).toBe("buy");
    expect((await flow.read(` ${second.id} `)).side).toBe("sell");
    await expect(flow.read("RI-20261128-000000000000")).rejects.toThrow(/No batch RI-20261128-000000000000 on the Approvals sheet/);
    await flow.revoke(first.id, APPROVER);
    const cells = workbook.cells("Approvals");
    expect(cells[cells.findIndex((r) => r[0] === first.id)][1]).toBe("revoked");
    const trade = logRow();
    const control = (await workbook.readLog())[0];
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) {
      expect(matchesLogQuery(trade, q)).toBe(false);
      expect(matchesLogQuery(control, q)).toBe(true);
    }
  });

  it("refuses an instruction whose Status cell is not one it writes, and one past its Until", async () => {
    const { workbook, flow, place, terms, advance } = await world();
    const odd = await flow.submit(terms, PREPARER, place);
    const cells = workbook.cells("Approvals");
    cells[cells.findIndex((r) => r[0] === odd.id)][1] = "maybe";
    workbook.setSheet("Approvals", cells);
    expect((await flow.check(odd.id, APPROVER, place)).refusal).toMatch(/^Roll instruction RI-\S+: its Status cell reads "maybe"/);
    const short = await flow.submit({ ...terms, until: new Date(T0 + HOUR).toISOString() }, PREPARER, place);
    advance(2 * HOUR);
    expect((await flow.check(short.id, APPROVER, place)).refusal).toMatch(/ended at 2026-11-28T10:00:00.000Z: nothing to approve/);
  });

  it("its words: an approvable one has no refusal; refusals are sentences a space apart; a key where a fingerprint belongs named by its field; Until reached at its instant; a revocation without a reason ends at its terms", async () => {
    const { workbook, flow, place, terms, advance } = await world();
    const one = await flow.submit(terms, PREPARER, place);
    expect((await flow.check(one.id, APPROVER, place)).refusal).toBeNull();
    expect((await flow.check(one.id, PREPARER, { ...place, account: "0xbb" })).refusal).toMatch(
      /^The key that prepared a roll instruction cannot approve it: approval needs a second person's trading key\. Roll instruction RI-\S+ was prepared for account 0x0+aa/,
    );
    const key = "svc_test_approver_key_0001";
    await expect(flow.check(one.id, key, place)).rejects.toThrow(/^approverFingerprint must be a key's public fingerprint/);
    await expect(flow.reject(one.id, key, "no")).rejects.toThrow(/^by must be a key's public fingerprint/);
    await expect(flow.revoke(one.id, key)).rejects.toThrow(/^by must be a key's public fingerprint/);
    // Whatever rows the workbook hands back for an id, the block read is the one of that id.
    const other = await flow.submit({ ...terms, side: "sell" }, PREPARER, place);
    const readApprovals = workbook.readApprovals.bind(workbook);
    workbook.readApprovals = () => readApprovals();
    expect((await flow.read(other.id)).id).toBe(other.id);
    await flow.revoke(other.id, APPROVER);
    const [revocation] = await workbook.readLog();
    expect(revocation.message).toMatch(
      / revoked \(USDTNGN sell until 2026-12-05T00:00:00.000Z, at most 100000.00 USD per hedge, tenors by the rule up to 7 days\)\.$/,
    );
    const short = await flow.submit({ ...terms, until: new Date(T0 + HOUR).toISOString() }, PREPARER, place);
    advance(HOUR);
    expect((await flow.check(short.id, APPROVER, place)).refusal).toMatch(/ended at 2026-11-28T10:00:00.000Z: nothing to approve/);
  });

  it("an approval the Hedge Log does not take leaves the instruction pending as it was, and it can be approved once the log takes it", async () => {
    const { workbook, place, terms, now } = await world();
    let logDown = true;
    const desk = await createDesk({
      client: { environment: "sandbox" } as unknown as HedgingClient,
      workbook,
      intentStore: new MemoryIntentStore(),
      account: ACCOUNT,
      now: () => new Date(now()),
    });
    const flow = new RollInstructions({
      sheet: workbook,
      recordControl: async (c) => {
        if (logDown) throw new Error("The Hedge Log could not be written: Excel is busy.");
        await desk.recordControl(c);
      },
      now: () => new Date(now()),
    });
    const submitted = await flow.submit(terms, PREPARER, place);
    await expect(flow.approve(submitted.id, APPROVER, place)).rejects.toThrow(/Excel is busy/);
    const after = await flow.read(submitted.id);
    expect([after.status, after.decidedBy, after.decidedAt, after.problems]).toEqual(["pending", null, null, []]);
    expect((await flow.check(submitted.id, APPROVER, place)).refusal).toBeNull();
    logDown = false;
    expect(await flow.approve(submitted.id, APPROVER, place)).toMatchObject({ status: "approved", decidedBy: APPROVER });
  });

  it("expires: past Approval valid for (hours) from its preparation it cannot be approved", async () => {
    const { flow, place, terms, advance } = await world();
    const submitted = await flow.submit(terms, PREPARER, place);
    advance(8 * HOUR);
    expect((await flow.check(submitted.id, APPROVER, place)).refusal).toMatch(
      /Roll instruction RI-.* was prepared at 2026-11-28T09:00:00Z; an approval is valid for 8 hours .* it expired/,
    );
    await expect(flow.approve(submitted.id, APPROVER, place)).rejects.toThrow(/it expired/);
  });

  it("an 'approved' typed into the sheet without the log's approval reads pending and covers nothing; an edited term refuses approval", async () => {
    const { workbook, flow, place, terms, now } = await world();
    const submitted = await flow.submit(terms, PREPARER, place);
    const lines = workbook.cells("Approvals");
    const headerRow = lines.findIndex((r) => r[0] === submitted.id);
    lines[headerRow][1] = "approved";
    lines[headerRow + 2][3] = 1_000_000; // the amount per hedge raised
    workbook.setSheet("Approvals", lines);
    const read = await flow.read(submitted.id);
    expect(read.status).toBe("pending");
    expect(read.problems.join()).toMatch(/records no approval of its hash/);
    expect(coversRoll(read, { ...ROLL, notional: 500_000 }, now()).ok).toBe(false);
    lines[headerRow][1] = "pending";
    workbook.setSheet("Approvals", lines);
    expect((await flow.check(submitted.id, APPROVER, place)).refusal).toMatch(/was edited since it was prepared/);
  });

  it("rejected with a reason (required), then never approved", async () => {
    const world0 = await world();
    const { flow, place, terms } = world0;
    const submitted = await flow.submit(terms, PREPARER, place);
    await expect(flow.reject(submitted.id, APPROVER, " ")).rejects.toThrow(/^Reason: /);
    expect(await flow.reject(submitted.id, APPROVER, " too large ")).toMatchObject({ status: "rejected", reason: "too large" });
    const cells = (await world0.workbook.readApprovals(submitted.id))[1].values;
    expect(cells[8]).toBe("too large"); // written trimmed
    expect((await flow.check(submitted.id, APPROVER, place)).refusal).toMatch(/is rejected: an instruction is approved once/);
    await expect(flow.revoke(submitted.id, APPROVER)).rejects.toThrow(/is rejected already/);
  });

  it("refuses a key where a fingerprint belongs, and bad terms, writing nothing", async () => {
    const { workbook, flow, place, terms } = await world();
    await expect(flow.submit(terms, "svc_test_preparer_key_0001", place)).rejects.toThrow(/preparedBy must be a key's public fingerprint/);
    await expect(flow.submit({ ...terms, maxTenor: 5 }, PREPARER, place)).rejects.toThrow(/^Tenors: /);
    expect(await workbook.readApprovals()).toEqual([]);
  });

  it("shares the Approvals sheet with batches: a batch after an instruction and one before read as they were, each block found by its id", async () => {
    const { workbook, flow, place, terms } = await world();
    const approvals = new Approvals({ sheet: workbook, now: () => new Date(T0) });
    const preview = {
      action: "column",
      environment: "sandbox",
      account: { account_address: ACCOUNT },
      lines: [{ row: OPEN_ROW, blockers: [] }],
      blockers: [],
      cancelled: false,
    } as unknown as Preview;
    const before = await approvals.submit(preview, PREPARER);
    const instruction = await flow.submit(terms, PREPARER, place);
    const after = await approvals.submit(preview, PREPARER);
    const blocks = parseApprovals(await workbook.readApprovals());
    expect(blocks.map((b) => [b.batch.id, b.batch.rows.length, b.lines.length])).toEqual([
      [before.id, 1, 1],
      [after.id, 1, 1],
    ]);
    expect((await approvals.list()).map((b) => b.id).sort()).toEqual([before.id, after.id].sort());
    expect((await approvals.check(before.id, APPROVER)).refusal).toBeNull();
    expect((await flow.list()).map((i) => i.id)).toEqual([instruction.id]);
    const column = workbook.cells("Approvals").map((r) => r[0]);
    expect(blockSpan(column, instruction.id)).toEqual({ start: 5, end: 10 });
    expect(recordedStatus(instruction, [])).toEqual(instruction);
  });
});
