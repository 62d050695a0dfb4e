// Where and until when a batch may be approved (pure): within "Approval valid for (hours)" of its preparation (never longer than the service keeps idempotency keys), and only by a key of the environment and account it was prepared in.
import type { Environment } from "../../api/environment";
import { batchDayStart, type ApprovalBatch } from "./block";

/** "Approval valid for (hours)" unless the user set it: a working day. */
export const DEFAULT_APPROVAL_HOURS = 8;
/**
 * The most it may be: how long the service is read to keep an idempotency key (the spec is silent; the sandbox keeps
 * them 24 hours: README.md, Service assumptions). Past it a row sent again would be a new trade.
 */
export const MAX_APPROVAL_HOURS = 24;
/** The least it may be: a quarter of an hour (an approver needs time to check). */
export const MIN_APPROVAL_HOURS = 0.25;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The approver's environment and account address (null: not known). */
export interface ApproverPlace {
  environment: Environment;
  account: string | null;
}

/** The setting's text as hours: a number from MIN to MAX, else an error naming the field and the fix. */
export function approvalHours(text: string): { ok: true; hours: number } | { ok: false; error: string } {
  // Number() trims the text and reads a blank as 0 (below the least) and anything else unreadable as NaN (no bound holds).
  const hours = Number(text);
  if (hours >= MIN_APPROVAL_HOURS && hours <= MAX_APPROVAL_HOURS) return { ok: true, hours };
  return {
    ok: false,
    error: `Approval valid for (hours): type a number from ${MIN_APPROVAL_HOURS} to ${MAX_APPROVAL_HOURS} (the service keeps idempotency keys ${MAX_APPROVAL_HOURS} hours; default ${DEFAULT_APPROVAL_HOURS}).`,
  };
}

/** A stored setting as hours: the default when absent or not a valid number (never more than the maximum). */
export function storedApprovalHours(stored: string | null): number {
  if (stored === null) return DEFAULT_APPROVAL_HOURS;
  const read = approvalHours(stored);
  return read.ok ? read.hours : DEFAULT_APPROVAL_HOURS;
}

/**
 * Why the batch may no longer be approved nor its rows sent at `now` (epoch ms), null while it may: it expires `hours`
 * after Prepared at. Prepared at is a cell: it must read as a time within the UTC day of the batch id (which every row's
 * key derives from), so it cannot be typed days later; and not after now.
 */
export function expiryRefusal(batch: Pick<ApprovalBatch, "id" | "preparedAt">, now: number, hours: number, noun = "Batch"): string | null {
  const prepared = Date.parse(batch.preparedAt);
  const dayStart = batchDayStart(batch.id);
  const inDay = prepared >= dayStart && prepared < dayStart + DAY_MS;
  if (!Number.isFinite(prepared) || !inDay || prepared > now) {
    return `${noun} ${batch.id}'s Prepared at reads "${batch.preparedAt}", not a time of the day in its batch id up to now, so how long its approval is valid cannot be told. Nothing was sent: prepare it again.`;
  }
  const valid = Math.min(hours, MAX_APPROVAL_HOURS);
  const until = prepared + valid * HOUR_MS;
  if (now < until) return null;
  return `${noun} ${batch.id} was prepared at ${iso(prepared)}; an approval is valid for ${valid} hours (until ${iso(until)}) and it is ${iso(now)}: it expired, so it cannot be approved nor its rows sent. Nothing was sent: prepare it again.`;
}

/**
 * Why a key of `place` may not approve the batch, null when it may: a batch is bound to the environment and account it
 * was prepared in (both in its hash). A block written before batches were bound (no Environment cell) may be approved
 * in the sandbox only: in production it is refused, to be prepared again.
 */
export function placeRefusal(
  batch: Pick<ApprovalBatch, "id" | "environment" | "account">,
  place: ApproverPlace,
  noun = "Batch",
): string | null {
  const label = (e: Environment) => (e === "production" ? "production (LIVE)" : "sandbox (test)");
  if (!batch.environment) {
    if (place.environment === "sandbox") return null;
    return `${noun} ${batch.id} was prepared by an earlier version that did not record its environment and account, and this key is a ${label(place.environment)} key: a LIVE approval needs a batch bound to its environment. Nothing was sent: prepare it again.`;
  }
  if (batch.environment !== place.environment) {
    return `${noun} ${batch.id} was prepared in ${label(batch.environment)}, and this key is a ${label(place.environment)} key: a batch is approved only in the environment it was prepared in. Nothing was sent: prepare it again with a key of this environment.`;
  }
  if ((batch.account ?? null) !== place.account) {
    return `${noun} ${batch.id} was prepared for account ${batch.account ?? "(not known)"}, and this key trades for account ${place.account ?? "(not known)"}: a batch is approved only by a key of the account it was prepared for. Nothing was sent.`;
  }
  return null;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
