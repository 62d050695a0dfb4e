// The Hedge Log's hash chain: fixed vectors of the canonical form and the hash, its versions (a new column never breaks an old seal), and month end's check flagging each kind of edit (a fork too) at its row and nothing in an untouched log.
import { createHash } from "node:crypto";
import {
  CHAIN_FORMS,
  CHAIN_START,
  canonicalBody,
  canonicalFinal,
  chainVersion,
  checkChain,
  finalHashOf,
  rowHashOf,
  versionOf,
  type ChainForm,
  type ChainRow,
} from "../../../src/trading/log/log-chain";
import { hashOf } from "../../../src/trading/log/digest";
import * as timeModule from "../../../src/api/time";
import { LOG_BODY_FIELDS, LOG_STATUS_FIELDS, type LogRecord } from "../../../src/trading/log/hedge-log";

const body = (i: number): Partial<LogRecord> => ({
  loggedAt: new Date(Date.UTC(2026, 10, 1, 9) + i * 60_000).toISOString(),
  environment: "sandbox",
  action: i % 4 === 0 ? "open" : "add",
  market: "USDTNGN",
  side: i % 2 ? "sell" : "buy",
  notional: 10_000 + i * 0.01,
  tenor: i % 4 === 0 ? 7 : null,
  clientReference: `D-${i}`,
  idempotencyKey: `key-${i}`,
  account: "0x00000000000000000000000000000000000000aa",
});
const outcome = (i: number): Partial<LogRecord> => ({
  status: "filled",
  hedgeId: `h-${i}`,
  struckRate: 1500.25,
  filledAt: "2026-11-01T10:00:00.000Z",
  message: null,
});

/** A log of n rows the add-in wrote, chained and sealed, as month end reads it (sheet row 2 on). */
function chainedLog(n: number): ChainRow[] {
  const rows: ChainRow[] = [];
  let prev = CHAIN_START;
  for (let i = 0; i < n; i++) {
    const record = { ...body(i), ...outcome(i) };
    const rowHash = rowHashOf(prev, record);
    rows.push({ rowNumber: i + 2, record, chain: { prevHash: prev, rowHash, finalHash: finalHashOf(rowHash, record) }, final: true });
    prev = rowHash;
  }
  return rows;
}
const renumber = (rows: ChainRow[]) => rows.map((r, i) => ({ ...r, rowNumber: i + 2 }));
const kinds = (rows: ChainRow[], head: string | null = null) => checkChain(rows, head).map((f) => [f.kind, f.rowNumber]);

describe("the canonical form and the hash (fixed vectors)", () => {
  it("SHA-256 is the standard one (FIPS 180-2 vector), and a link is the hash of the previous link and the body joined by a newline", () => {
    expect(hashOf("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const record = body(1);
    const oracle = createHash("sha256")
      .update(`${CHAIN_START}\n${canonicalBody(record)}`)
      .digest("hex");
    expect(rowHashOf(CHAIN_START, record)).toBe(oracle);
  });

  it("the body is the sent fields in a fixed order, amounts to the cent, times to the second in UTC, empty cells null", () => {
    expect(canonicalBody({ ...body(1), loggedAt: "2026-11-01T10:01:00.4+01:00" })).toBe(
      '["2026-11-01T09:01:00.000Z","sandbox","add","USDTNGN","sell","10000.01",null,"D-1","key-1","0x00000000000000000000000000000000000000aa",null,null,null]',
    );
    // What Excel gives back of the same row hashes alike: a time a millisecond off, an amount as 10000.010000000002.
    expect(canonicalBody({ ...body(1), loggedAt: "2026-11-01T09:01:00.001Z", notional: 10_000.010000000002 })).toBe(canonicalBody(body(1)));
    expect(canonicalFinal({ status: "filled", struckRate: 1500.25, message: "" })).toBe(
      '["filled",null,null,null,1500.25,null,null,null,null,null,null,null]',
    );
  });

  it("a row sent under an approval: the batch hash and both fingerprints are body, after the account; the chain's own cells are in neither form", () => {
    const approved: Partial<LogRecord> = {
      ...body(0),
      batchHash: "9f2c".repeat(16),
      preparedBy: "fp-0123456789abcdef",
      approvedBy: "fp-fedcba9876543210",
      prevHash: "1".repeat(64),
      rowHash: "2".repeat(64),
      finalHash: "3".repeat(64),
    };
    const spelled =
      '["2026-11-01T09:00:00.000Z","sandbox","open","USDTNGN","buy","10000.00",7,"D-0","key-0","0x00000000000000000000000000000000000000aa",' +
      `"${"9f2c".repeat(16)}","fp-0123456789abcdef","fp-fedcba9876543210"]`;
    expect(canonicalBody(approved)).toBe(spelled);
    const link = createHash("sha256").update(`${CHAIN_START}\n${spelled}`).digest("hex");
    expect(rowHashOf(CHAIN_START, approved)).toBe(link);
    // The seal covers the outcome only: its own cell, the links and the approval are not in it.
    const finalState = '["filled","h-0",null,null,1500.25,"2026-11-01T10:00:00.000Z",null,null,null,null,null,null]';
    expect(canonicalFinal({ ...approved, ...outcome(0) })).toBe(finalState);
    expect(finalHashOf(link, { ...approved, ...outcome(0) })).toBe(createHash("sha256").update(`${link}\n${finalState}`).digest("hex"));
    // A row without an approval hashes otherwise than the same row with one: editing a fingerprint breaks the link.
    expect(rowHashOf(CHAIN_START, { ...approved, approvedBy: "fp-0123456789abcdef" })).not.toBe(link);
  });
});

describe("month end's check of the chain", () => {
  it("an untouched log of 5,000 rows: nothing flagged", () => {
    const rows = chainedLog(5_000);
    expect(checkChain(rows, rows[rows.length - 1].chain.rowHash)).toEqual([]);
  });

  it("an amount edited after it was written is flagged at its row; the rows after it are not", () => {
    const rows = chainedLog(10);
    rows[4] = { ...rows[4], record: { ...rows[4].record, notional: 99_999 } };
    expect(kinds(rows)).toEqual([["edited", 6]]);
  });

  it("an outcome edited after the row was final, and a status made final by hand, are flagged at their rows", () => {
    const rows = chainedLog(6);
    rows[1] = { ...rows[1], record: { ...rows[1].record, struckRate: 1400 } };
    rows[3] = { ...rows[3], chain: { ...rows[3].chain, finalHash: null } };
    expect(kinds(rows)).toEqual([
      ["edited_after_final", 3],
      ["not_sealed", 5],
    ]);
  });

  it("a deleted row is flagged at the row after it; a row moved is flagged at its row; a row typed or pasted in is inserted", () => {
    const deleted = chainedLog(8);
    deleted.splice(3, 1);
    expect(checkChain(renumber(deleted))).toEqual([
      { kind: "deleted_before", rowNumber: 5, message: "Row 5: the row written just before it was deleted." },
    ]);
    const swapped = chainedLog(8);
    [swapped[2], swapped[3]] = [swapped[3], swapped[2]];
    // One of the two is the fewest that moved; its finding names the row it was written after.
    expect(checkChain(renumber(swapped))).toEqual([{ kind: "moved", rowNumber: 4, message: "Row 4: moved: it was written after row 5." }]);
    const movedUp = chainedLog(8);
    movedUp.splice(1, 0, movedUp.splice(6, 1)[0]);
    expect(kinds(renumber(movedUp))).toEqual([["moved", 3]]);
    const typed = chainedLog(4);
    typed.splice(2, 0, { rowNumber: 0, record: body(99), chain: { prevHash: null, rowHash: null, finalHash: null }, final: false });
    typed.push({ ...typed[1] });
    expect(kinds(renumber(typed))).toEqual([
      ["inserted", 4],
      ["inserted", 7],
    ]);
  });

  it("the last row cut off is seen against the head this computer's journal kept; rows older than the chain are named, not judged", () => {
    const rows = chainedLog(5);
    const head = rows[4].chain.rowHash;
    expect(kinds(rows.slice(0, 4), head)).toEqual([["cut_off", 5]]);
    const older: ChainRow[] = [0, 1].map((i) => ({
      rowNumber: i + 2,
      record: body(100 + i),
      chain: { prevHash: null, rowHash: null, finalHash: null },
      final: true,
    }));
    const findings = checkChain(renumber([...older, ...rows]), head);
    expect(findings).toEqual([{ kind: "before_chain", rowNumber: 2, message: expect.stringContaining("2 row(s) from row 2") }]);
  });
});

describe("a fork: two rows that follow the same row", () => {
  it("a row forged after a row that already had its follower is flagged at its row, naming the row it follows and the other follower", () => {
    const rows = chainedLog(6);
    const forged = { ...body(50), ...outcome(50) };
    const link = rowHashOf(rows[2].chain.rowHash!, forged);
    rows.push({
      rowNumber: 8,
      record: forged,
      chain: { prevHash: rows[2].chain.rowHash, rowHash: link, finalHash: finalHashOf(link, forged) },
      final: true,
    });
    expect(checkChain(rows, link)).toEqual([
      {
        kind: "forked",
        rowNumber: 8,
        message:
          "Row 8: the chain forks: it follows row 4, as row 5 does. Two computers wrote into the log at once, or this row was forged after the log was written.",
      },
    ]);
  });

  it("two computers appending at once (each row following the same last row, one clock 5 minutes slow): the second is flagged, and so is a second first row", () => {
    const rows = chainedLog(4);
    const slow = { ...body(60), loggedAt: "2026-11-01T08:55:00.000Z" };
    const link = rowHashOf(rows[3].chain.rowHash!, slow);
    const fast = { ...body(61) };
    const fastLink = rowHashOf(rows[3].chain.rowHash!, fast);
    rows.push({ rowNumber: 6, record: fast, chain: { prevHash: rows[3].chain.rowHash, rowHash: fastLink, finalHash: null }, final: false });
    rows.push({ rowNumber: 7, record: slow, chain: { prevHash: rows[3].chain.rowHash, rowHash: link, finalHash: null }, final: false });
    expect(kinds(rows)).toEqual([["forked", 7]]);
    const again = { ...body(70) };
    const restart = rowHashOf(CHAIN_START, again);
    const twoStarts = [
      ...chainedLog(3),
      { rowNumber: 5, record: again, chain: { prevHash: CHAIN_START, rowHash: restart, finalHash: null }, final: false },
    ];
    expect(checkChain(twoStarts).map((f) => [f.kind, f.rowNumber, f.message])).toEqual([
      ["forked", 5, expect.stringContaining("Row 5: the chain forks: it follows the start of the chain, as row 2 does.")],
    ]);
  });

  it("a pasted copy or an edited row is no fork: it is flagged as what it is", () => {
    const rows = chainedLog(5);
    const edited = [...rows, { ...rows[2], rowNumber: 7, record: { ...rows[2].record, notional: 1 } }];
    expect(kinds(edited)).toEqual([["edited", 7]]);
    const pasted = [...rows, { ...rows[2], rowNumber: 7 }];
    expect(kinds(pasted)).toEqual([["inserted", 7]]);
  });

  it("a row typed in before the true follower of a row, with that row's link as its Prev hash and a link that does not hold, is edited; the true follower is no fork", () => {
    const rows = chainedLog(6);
    const typed = { ...body(80), ...outcome(80) };
    const fake = { prevHash: rows[2].chain.rowHash, rowHash: "e".repeat(64), finalHash: null };
    rows.splice(3, 0, { rowNumber: 0, record: typed, chain: fake, final: true });
    expect(checkChain(renumber(rows))).toEqual([
      {
        kind: "edited",
        rowNumber: 5,
        message:
          "Row 5: a cell of what was sent (amount, market, side, tenor, reference, time, key, account or approval) was edited after it was written.",
      },
    ]);
  });

  it("a row forged at the end after an early row hides no move in the chain it forks from: both are flagged", () => {
    const rows = chainedLog(8);
    [rows[4], rows[5]] = [rows[5], rows[4]];
    const forged = { ...body(95), ...outcome(95) };
    const link = rowHashOf(rows[0].chain.rowHash!, forged);
    rows.push({
      rowNumber: 0,
      record: forged,
      chain: { prevHash: rows[0].chain.rowHash, rowHash: link, finalHash: finalHashOf(link, forged) },
      final: true,
    });
    expect(kinds(renumber(rows))).toEqual([
      ["moved", 6],
      ["forked", 10],
    ]);
  });

  it("a row typed in with the chain's start (64 zeros) as its Row hash hides no move", () => {
    const rows = chainedLog(6);
    [rows[3], rows[4]] = [rows[4], rows[3]];
    rows.push({
      rowNumber: 0,
      record: body(96),
      chain: { prevHash: rows[1].chain.rowHash, rowHash: CHAIN_START, finalHash: null },
      final: false,
    });
    expect(kinds(renumber(rows))).toEqual([
      ["moved", 5],
      ["edited", 8],
    ]);
  });

  it("a row whose Prev hash was cleared hides no move after it", () => {
    const rows = chainedLog(8);
    rows[2] = { ...rows[2], chain: { ...rows[2].chain, prevHash: null } };
    [rows[5], rows[6]] = [rows[6], rows[5]];
    expect(kinds(renumber(rows))).toEqual([
      ["inserted", 4],
      ["moved", 7],
    ]);
  });

  it("a row copied, then edited where it stood, leaves its copy holding the link: a second row following the same link is a fork, named after the copy", () => {
    const rows = chainedLog(6);
    const copy = { ...rows[3], rowNumber: 8 };
    rows[3] = { ...rows[3], record: { ...rows[3].record, notional: 1 } };
    const forged = { ...body(90), ...outcome(90) };
    const link = rowHashOf(rows[2].chain.rowHash!, forged);
    const second = {
      rowNumber: 9,
      record: forged,
      chain: { prevHash: rows[2].chain.rowHash, rowHash: link, finalHash: finalHashOf(link, forged) },
      final: true,
    };
    expect(checkChain([...rows, copy, second]).map((f) => [f.kind, f.rowNumber, f.message])).toEqual([
      ["edited", 5, expect.any(String)],
      ["inserted", 8, "Row 8: a copy of row 5, pasted by hand."],
      ["forked", 9, expect.stringContaining("Row 9: the chain forks: it follows row 4, as row 8 does.")],
    ]);
  });
});

describe("the chain's versions: a new column never breaks an old seal", () => {
  /** A form with one more column, as the recipe adds it; removed after each test. */
  const nextForm: ChainForm = {
    version: 2,
    body: [...CHAIN_FORMS[0].body, "counterparty"],
    final: [...CHAIN_FORMS[0].final, "settlementNote"],
  };
  const forms = CHAIN_FORMS as ChainForm[];
  afterEach(() => {
    while (forms.length > 1) forms.pop();
  });

  it("the newest form covers every body and status column of the log (a column left out of it fails here)", () => {
    const newest = CHAIN_FORMS[CHAIN_FORMS.length - 1];
    expect(chainVersion()).toBe(newest.version);
    expect([...newest.body]).toEqual(expect.arrayContaining([...LOG_BODY_FIELDS]));
    const status = LOG_STATUS_FIELDS.filter((f) => f !== "account" && f !== "finalHash");
    expect([...newest.final]).toEqual(expect.arrayContaining(status));
    // Forms are numbered 1, 2, … and only the first has no version in its text.
    expect(CHAIN_FORMS.map((f) => f.version)).toEqual(CHAIN_FORMS.map((_, i) => i + 1));
  });

  it("version 1's form is exactly as released (it is made from the columns' `chain` versions: a column moved, re-versioned or edited fails here)", () => {
    expect(CHAIN_FORMS[0]).toEqual({
      version: 1,
      body: [
        "loggedAt",
        "environment",
        "action",
        "market",
        "side",
        "notional",
        "tenor",
        "clientReference",
        "idempotencyKey",
        "account",
        "batchHash",
        "preparedBy",
        "approvedBy",
      ],
      final: [
        "status",
        "hedgeId",
        "orderTxHash",
        "fillTxHash",
        "struckRate",
        "filledAt",
        "errorCode",
        "message",
        "notionalBefore",
        "sentAt",
        "decision",
        "decidedAt",
      ],
    });
    // Each later form adds at least one column to the one before it, and drops none.
    CHAIN_FORMS.slice(1).forEach((form, i) => {
      const before = CHAIN_FORMS[i];
      expect(form.body.slice(0, before.body.length)).toEqual(before.body);
      expect(form.final.slice(0, before.final.length)).toEqual(before.final);
      expect(form.body.length + form.final.length).toBeGreaterThan(before.body.length + before.final.length);
    });
  });

  it("version 2 carries its number first; version 1 is the form of the logs written before versions", () => {
    forms.push(nextForm);
    expect(chainVersion()).toBe(2);
    const record = { ...body(1), counterparty: "ACME" } as Partial<LogRecord>;
    expect(canonicalBody(record)).toBe(
      '[2,"2026-11-01T09:01:00.000Z","sandbox","add","USDTNGN","sell","10000.01",null,"D-1","key-1","0x00000000000000000000000000000000000000aa",null,null,null,"ACME"]',
    );
    expect(canonicalBody(record, 1)).toBe(
      '["2026-11-01T09:01:00.000Z","sandbox","add","USDTNGN","sell","10000.01",null,"D-1","key-1","0x00000000000000000000000000000000000000aa",null,null,null]',
    );
    expect(canonicalFinal({ status: "filled" }, 2)).toBe('[2,"filled",null,null,null,null,null,null,null,null,null,null,null,null]');
    expect(() => canonicalBody(record, 3)).toThrow("The Hedge Log's chain has no form version 3 (versions 1 to 2).");
    expect(() => canonicalFinal(record, 0)).toThrow(/no form version 0/);
  });

  it("rows written before the new form verify as they were; rows after it are linked and sealed in it; an edit of the new column is seen on them", () => {
    const old = chainedLog(300);
    forms.push(nextForm);
    const rows = [...old];
    let prev = old[old.length - 1].chain.rowHash!;
    for (let i = 300; i < 310; i++) {
      const record = { ...body(i), ...outcome(i), counterparty: `C-${i}`, settlementNote: "T+0" } as Partial<LogRecord>;
      const rowHash = rowHashOf(prev, record);
      rows.push({
        rowNumber: i + 2,
        record,
        chain: { prevHash: prev, rowHash, finalHash: finalHashOf(rowHash, { ...record, prevHash: prev }) },
        final: true,
      });
      prev = rowHash;
    }
    expect(checkChain(rows, prev)).toEqual([]);
    expect(versionOf(rows[0].chain.rowHash!, { ...rows[0].record, prevHash: rows[0].chain.prevHash })).toBe(1);
    expect(versionOf(rows[305].chain.rowHash!, { ...rows[305].record, prevHash: rows[305].chain.prevHash })).toBe(2);
    expect(versionOf(rows[305].chain.rowHash!, rows[305].record)).toBeNull(); // no Prev hash: no link to tell it by

    // The new column edited: on a row written in it, flagged (body and seal); on an old row it is not part of the row's hash.
    const edited = [...rows];
    edited[303] = { ...edited[303], record: { ...edited[303].record, counterparty: "OTHER" } as Partial<LogRecord> };
    edited[304] = { ...edited[304], record: { ...edited[304].record, settlementNote: "T+2" } as Partial<LogRecord> };
    edited[10] = { ...edited[10], record: { ...edited[10].record, counterparty: "typed later" } as Partial<LogRecord> };
    expect(kinds(edited, prev)).toEqual([
      ["edited", 305],
      ["edited_after_final", 306],
    ]);
  });

  it("a row linked in the old form and made final after the new one is sealed in its own form", () => {
    const record: Partial<LogRecord> = { ...body(1), prevHash: CHAIN_START };
    const rowHash = rowHashOf(CHAIN_START, record);
    forms.push(nextForm);
    const final = { ...record, ...outcome(1) };
    expect(finalHashOf(rowHash, final)).toBe(hashOf(rowHash, canonicalFinal(final, 1)));
    expect(finalHashOf(rowHash, final)).not.toBe(hashOf(rowHash, canonicalFinal(final, 2)));
    // A row that cannot be told (no Prev hash) is sealed in the newest form.
    expect(finalHashOf(rowHash, { ...final, prevHash: null })).toBe(hashOf(rowHash, canonicalFinal(final, 2)));
    const rows: ChainRow[] = [
      { rowNumber: 2, record: final, chain: { prevHash: CHAIN_START, rowHash, finalHash: finalHashOf(rowHash, final) }, final: true },
    ];
    expect(checkChain(rows, rowHash)).toEqual([]);
  });
});

describe("what the canonical form reads a cell as (what Excel gives back hashes as what was written)", () => {
  const time = (value: unknown) => JSON.parse(canonicalBody({ loggedAt: value as string }))[0] as unknown;
  it.each([
    ["2026-11-25T17:03:12Z", "2026-11-25T17:03:12.000Z"],
    ["2026-11-25T17:03:12.499Z", "2026-11-25T17:03:12.000Z"],
    ["2026-11-25T17:03:12.4Z", "2026-11-25T17:03:12.000Z"],
    ["2026-11-25T17:03:12.500Z", "2026-11-25T17:03:13.000Z"], // rounded to the nearest second, as utcMs reads it
    ["2026-11-25T18:03:12+01:00", "2026-11-25T17:03:12.000Z"],
    ["2024-02-29T10:00:00Z", "2024-02-29T10:00:00.000Z"],
    ["2000-02-29T10:00:00Z", "2000-02-29T10:00:00.000Z"],
    ["2023-02-29T10:00:00Z", "2023-02-29T10:00:00Z"], // no such day: text, as written
    ["1900-02-29T10:00:00Z", "1900-02-29T10:00:00Z"],
    ["2026-00-10T10:00:00Z", "2026-00-10T10:00:00Z"],
    ["2026-13-10T10:00:00Z", "2026-13-10T10:00:00Z"],
    ["2026-04-30T10:00:00Z", "2026-04-30T10:00:00.000Z"],
    ["2026-04-31T10:00:00Z", "2026-04-31T10:00:00Z"],
    ["2026-04-00T10:00:00Z", "2026-04-00T10:00:00Z"],
    ["2026-01-31T10:00:00Z", "2026-01-31T10:00:00.000Z"],
    ["2026-12-31T23:59:59Z", "2026-12-31T23:59:59.000Z"],
    ["2026-04-10T24:00:00Z", "2026-04-10T24:00:00Z"],
    ["2026-04-10T23:60:00Z", "2026-04-10T23:60:00Z"],
    ["2026-04-10T23:59:60Z", "2026-04-10T23:59:60Z"],
    ["0099-01-01T00:00:00Z", "0099-01-01T00:00:00.000Z"],
    ["0004-02-29T10:00:00Z", "0004-02-29T10:00:00.000Z"],
    ["0000-02-29T10:00:00Z", "0000-02-29T10:00:00Z"], // no year 0 for the general reader: text
    ["2024-04-31T10:00:00Z", "2024-04-31T10:00:00Z"], // a leap year adds a day to February only
    ["2024-06-31T10:00:00Z", "2024-06-31T10:00:00Z"],
    ["2024-13-01T10:00:00Z", "2024-13-01T10:00:00Z"],
    ["x2026-11-25T17:03:12Z", "x2026-11-25T17:03:12Z"], // a time with text before or after it is text
    ["2026-11-25T17:03:12Zx", "2026-11-25T17:03:12Zx"],
    ["yesterday", "yesterday"],
    [46000, "46000"],
    ["", null],
  ])("a time %j reads as %j", (value, expected) => {
    expect(time(value)).toBe(expected);
  });

  it("the form the add-in writes is read without the general time reader (month end reads tens of thousands), with the same result", () => {
    const general = jest.spyOn(timeModule, "utcMs");
    try {
      const written = [
        "2026-11-25T17:03:12Z",
        "2026-11-25T17:03:12.000Z",
        "2026-11-25T17:03:12.499Z",
        "2024-02-29T23:59:59.123Z",
        "0100-01-01T00:00:00Z",
      ];
      const read = written.map(time);
      expect(general).not.toHaveBeenCalled();
      // The general reader gives each the same (what the chain wrote before the fast path).
      expect(written.map((t) => new Date(Math.round(timeModule.utcMs(t) / 1000) * 1000).toISOString())).toEqual(read);
      general.mockClear();
      time("2026-11-25T17:03:12.500Z");
      time("2026-11-25T18:03:12+01:00");
      expect(general).toHaveBeenCalledTimes(2); // the other forms: the general reader
    } finally {
      general.mockRestore();
    }
  });

  it("a final row's Filled at, Sent at and Decided at as Excel gives them back (a millisecond off) keep its seal", () => {
    const written = {
      status: "filled",
      filledAt: "2026-11-01T10:00:00.000Z",
      sentAt: "2026-11-01T09:59:58.000Z",
      decidedAt: "2026-11-01T11:00:00.000Z",
    };
    const back = {
      status: "filled",
      filledAt: "2026-11-01T09:59:59.999Z",
      sentAt: "2026-11-01T09:59:58.001Z",
      decidedAt: "2026-11-01T10:59:59.999Z",
    };
    expect(canonicalFinal(back as Partial<LogRecord>)).toBe(canonicalFinal(written as Partial<LogRecord>));
    const rows = chainedLog(2);
    rows[1] = { ...rows[1], record: { ...rows[1].record, ...written } };
    rows[1].chain.finalHash = finalHashOf(rows[1].chain.rowHash!, rows[1].record);
    expect(checkChain([rows[0], { ...rows[1], record: { ...rows[1].record, ...back } }])).toEqual([]);
    expect(kinds([rows[0], { ...rows[1], record: { ...rows[1].record, filledAt: "2026-11-01T10:00:01.000Z" } }])).toEqual([
      ["edited_after_final", 3],
    ]);
  });

  it("amounts to the cent as text, typed text as it is; other numbers as numbers, text as text; empty cells null", () => {
    const read = (record: Partial<LogRecord>) => JSON.parse(canonicalBody(record)) as unknown[];
    expect(read({ notional: 1234.5, tenor: 7, market: "USDTNGN" }).slice(0, 7)).toEqual([null, null, null, "USDTNGN", null, "1234.50", 7]);
    expect(read({ notional: "1,234.50" as unknown as number, tenor: "7" as unknown as number }).slice(5, 7)).toEqual(["1,234.50", "7"]);
    expect(read({ clientReference: 123 as unknown as string, side: undefined })[7]).toBe(123);
    expect(JSON.parse(canonicalFinal({ notionalBefore: 50_000, sentAt: "2026-11-25T17:03:12Z", decidedAt: "" }))).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      "50000.00",
      "2026-11-25T17:03:12.000Z",
      null,
      null,
    ]);
  });
});

describe("the check's other words", () => {
  it("a log with no chained row: one line for all its rows; an empty log cut off is named at no row", () => {
    const older: ChainRow[] = [0, 1, 2].map((i) => ({
      rowNumber: i + 2,
      record: body(i),
      chain: { prevHash: null, rowHash: null, finalHash: null },
      final: false,
    }));
    expect(checkChain(older)).toEqual([
      { kind: "before_chain", rowNumber: 2, message: "3 row(s) from row 2 were written before the log kept a hash chain: not judged." },
    ]);
    expect(checkChain([], "f".repeat(64))).toEqual([
      { kind: "cut_off", rowNumber: null, message: "The newest row this computer wrote is not in the log: rows were cut off." },
    ]);
    expect(checkChain([], null)).toEqual([]);
    const rows = chainedLog(3);
    expect(checkChain(rows, rows[1].chain.rowHash)).toEqual([]); // the head is in the log (rows after it are another computer's)
    expect(checkChain(rows.slice(0, 2), rows[2].chain.rowHash)).toEqual([
      { kind: "cut_off", rowNumber: 3, message: "The newest row this computer wrote is not in the log: rows were cut off after row 3." },
    ]);
  });

  it("a row with a link but no Prev hash was typed in; the first row moved down is named as the chain's first", () => {
    const rows = chainedLog(4);
    rows[2] = { ...rows[2], chain: { ...rows[2].chain, prevHash: null } };
    expect(checkChain(rows)).toEqual([
      { kind: "inserted", rowNumber: 4, message: "Row 4: inserted by hand: it carries no link of the add-in's chain." },
    ]); // the row after it still follows its link: only the row itself is flagged
    const firstDown = chainedLog(5);
    firstDown.splice(3, 0, firstDown.shift()!);
    expect(checkChain(renumber(firstDown))).toEqual([
      { kind: "moved", rowNumber: 5, message: "Row 5: moved: it was the first row of the chain." },
    ]);
  });

  it("an edited row and an unsealed final row say which cells; a row not final needs no seal", () => {
    const rows = chainedLog(3);
    rows[0] = { ...rows[0], record: { ...rows[0].record, side: "sell" } };
    rows[1] = { ...rows[1], chain: { ...rows[1].chain, finalHash: "" } };
    rows[2] = { ...rows[2], chain: { ...rows[2].chain, finalHash: null }, final: false };
    expect(checkChain(rows)).toEqual([
      {
        kind: "edited",
        rowNumber: 2,
        message:
          "Row 2: a cell of what was sent (amount, market, side, tenor, reference, time, key, account or approval) was edited after it was written.",
      },
      { kind: "not_sealed", rowNumber: 3, message: "Row 3: its final status was not written by the add-in (no seal)." },
    ]);
    const sealed = chainedLog(2);
    sealed[1] = { ...sealed[1], record: { ...sealed[1].record, message: "typed" } };
    expect(checkChain(sealed)).toEqual([
      {
        kind: "edited_after_final",
        rowNumber: 3,
        message: "Row 3: a cell of its outcome (status, rate, hashes, message, decision) was edited after it was final.",
      },
    ]);
  });

  it.each([
    ["the first row moved to the end: that row, not every other", 5, (r: ChainRow[]) => r.push(r.shift()!), [["moved", 6]]],
    [
      "the first row pasted three times above itself: the three extra rows are copies, no row moved",
      3,
      (r: ChainRow[]) => r.unshift({ ...r[0] }, { ...r[0] }, { ...r[0] }),
      [
        ["inserted", 3],
        ["inserted", 4],
        ["inserted", 5],
      ],
    ],
    [
      "a row's Prev hash cleared and a copy of it pasted at the end: those two, and no row between them moved",
      6,
      (r: ChainRow[]) => {
        r.push({ ...r[4] });
        r[4] = { ...r[4], chain: { ...r[4].chain, prevHash: null } };
      },
      [
        ["inserted", 6],
        ["inserted", 8],
      ],
    ],
  ])("%s", (_, n, edit, expected) => {
    const rows = chainedLog(n as number);
    (edit as (r: ChainRow[]) => void)(rows);
    expect(kinds(renumber(rows))).toEqual(expected);
  });

  it("several rows moved: the fewest that restore the order are flagged, each named after the row it was written after", () => {
    const rows = chainedLog(10);
    // Written 0..9; the sheet shows 0 1 7 2 3 4 8 5 6 9: rows 7 and 8 moved up.
    const order = [0, 1, 7, 2, 3, 4, 8, 5, 6, 9];
    const shown = renumber(order.map((i) => rows[i]));
    expect(checkChain(shown)).toEqual([
      { kind: "moved", rowNumber: 4, message: "Row 4: moved: it was written after row 10." },
      { kind: "moved", rowNumber: 8, message: "Row 8: moved: it was written after row 4." },
    ]);
  });
});
