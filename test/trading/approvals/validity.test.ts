// validity.ts as tables (issue 40): "Approval valid for (hours)" read from its text and its stored value, a batch's expiry at its edges (a Prepared at typed outside the id's day, in the future, unreadable), and the environment and account a key must share with the batch.
import {
  approvalHours,
  DEFAULT_APPROVAL_HOURS,
  expiryRefusal,
  MAX_APPROVAL_HOURS,
  placeRefusal,
  storedApprovalHours,
} from "../../../src/trading/approvals/validity";

const ID = "AB-20261125-0123456789ab";
const PREPARED = "2026-11-25T09:00:00.000Z";
const at = (iso: string) => Date.parse(iso);

describe("Approval valid for (hours)", () => {
  it("reads a number from 0.25 to 24; anything else names the field and the fix", () => {
    expect(approvalHours(" 8 ")).toEqual({ ok: true, hours: 8 });
    expect(approvalHours("0.25")).toEqual({ ok: true, hours: 0.25 });
    expect(approvalHours("24")).toEqual({ ok: true, hours: 24 });
    const error = `Approval valid for (hours): type a number from 0.25 to 24 (the service keeps idempotency keys 24 hours; default 8).`;
    for (const bad of ["", "  ", "0.2", "24.5", "25", "-1", "eight", "Infinity", "NaN", "8 hours"])
      expect(approvalHours(bad)).toEqual({ ok: false, error });
  });

  it("a stored value: the default when absent or unreadable, never above the maximum", () => {
    expect([DEFAULT_APPROVAL_HOURS, MAX_APPROVAL_HOURS]).toEqual([8, 24]);
    expect(storedApprovalHours(null)).toBe(8);
    expect(storedApprovalHours("12")).toBe(12);
    expect(storedApprovalHours("48")).toBe(8);
    expect(storedApprovalHours("x")).toBe(8);
  });
});

describe("expiryRefusal", () => {
  const batch = { id: ID, preparedAt: PREPARED };

  it("valid until Prepared at + hours (exclusive), then refused with the times and 'prepare it again'", () => {
    expect(expiryRefusal(batch, at(PREPARED), 8)).toBeNull();
    expect(expiryRefusal(batch, at("2026-11-25T16:59:59.999Z"), 8)).toBeNull();
    expect(expiryRefusal(batch, at("2026-11-25T17:00:00.000Z"), 8)).toBe(
      `Batch ${ID} was prepared at 2026-11-25T09:00:00Z; an approval is valid for 8 hours (until 2026-11-25T17:00:00Z) and it is 2026-11-25T17:00:00Z: it expired, so it cannot be approved nor its rows sent. Nothing was sent: prepare it again.`,
    );
    expect(expiryRefusal(batch, at("2026-11-26T10:00:00.000Z"), 24)).toMatch(/until 2026-11-26T09:00:00Z/);
  });

  it("hours above the maximum count as the maximum (the service's key retention)", () => {
    expect(expiryRefusal(batch, at("2026-11-26T09:00:00.000Z"), 48)).toMatch(
      /valid for 24 hours \(until 2026-11-26T09:00:00Z\).*it expired/,
    );
    expect(expiryRefusal(batch, at("2026-11-26T08:59:59.000Z"), 48)).toBeNull();
  });

  it("a Prepared at outside the id's UTC day, after now or unreadable: refused, its validity cannot be told", () => {
    const refused = (preparedAt: string) =>
      `Batch ${ID}'s Prepared at reads "${preparedAt}", not a time of the day in its batch id up to now, so how long its approval is valid cannot be told. Nothing was sent: prepare it again.`;
    const now = at("2026-11-25T12:00:00.000Z");
    for (const typed of ["2026-11-26T00:00:00.000Z", "2026-11-24T23:59:59.000Z", "2026-11-25T12:00:01.000Z", "yesterday", ""])
      expect(expiryRefusal({ id: ID, preparedAt: typed }, now, 8)).toBe(refused(typed));
    expect(expiryRefusal({ id: ID, preparedAt: "2026-11-25T00:00:00.000Z" }, now, 24)).toBeNull();
    expect(expiryRefusal({ id: ID, preparedAt: "2026-11-25T12:00:00.000Z" }, now, 8)).toBeNull();
    expect(expiryRefusal({ id: "not-an-id", preparedAt: PREPARED }, now, 8)).toMatch(/cannot be told/);
    // The next UTC day's first instant, typed once it has come: not the id's day, however early it reads.
    const nextMorning = at("2026-11-26T05:00:00.000Z");
    for (const typed of ["2026-11-26T00:00:00.000Z", "2026-11-26T04:00:00.000Z"])
      expect(expiryRefusal({ id: ID, preparedAt: typed }, nextMorning, 24)).toBe(refused(typed));
    expect(expiryRefusal({ id: ID, preparedAt: "2026-11-25T23:59:59.999Z" }, nextMorning, 24)).toBeNull();
  });
});

describe("placeRefusal", () => {
  const batch = { id: ID, environment: "sandbox" as const, account: "0xA" };

  it("the same environment and account: none", () => {
    expect(placeRefusal(batch, { environment: "sandbox", account: "0xA" })).toBeNull();
  });

  it("another environment, either way", () => {
    expect(placeRefusal(batch, { environment: "production", account: "0xA" })).toBe(
      `Batch ${ID} was prepared in sandbox (test), and this key is a production (LIVE) key: a batch is approved only in the environment it was prepared in. Nothing was sent: prepare it again with a key of this environment.`,
    );
    expect(placeRefusal({ ...batch, environment: "production" }, { environment: "sandbox", account: "0xA" })).toMatch(
      /^Batch \S+ was prepared in production \(LIVE\), and this key is a sandbox \(test\) key/,
    );
  });

  it("another account, or one not known on either side", () => {
    expect(placeRefusal(batch, { environment: "sandbox", account: "0xB" })).toBe(
      `Batch ${ID} was prepared for account 0xA, and this key trades for account 0xB: a batch is approved only by a key of the account it was prepared for. Nothing was sent.`,
    );
    expect(placeRefusal(batch, { environment: "sandbox", account: null })).toMatch(/this key trades for account \(not known\)/);
    expect(placeRefusal({ ...batch, account: null }, { environment: "sandbox", account: "0xA" })).toMatch(
      /was prepared for account \(not known\)/,
    );
    expect(placeRefusal({ ...batch, account: null }, { environment: "sandbox", account: null })).toBeNull();
  });

  it("a block written before batches were bound (no environment): the sandbox only, never a LIVE key", () => {
    const old = { id: ID, environment: null, account: null };
    expect(placeRefusal(old, { environment: "sandbox", account: "0xA" })).toBeNull();
    expect(placeRefusal({ id: ID }, { environment: "sandbox", account: null })).toBeNull();
    expect(placeRefusal(old, { environment: "production", account: "0xA" })).toBe(
      `Batch ${ID} was prepared by an earlier version that did not record its environment and account, and this key is a production (LIVE) key: a LIVE approval needs a batch bound to its environment. Nothing was sent: prepare it again.`,
    );
  });
});
