// What the key in use may do (its scopes, or what a 403 taught), as the connection panel says it, and when the pane will not send a preview directly.
import type { Environment } from "../api/environment";

/** What the key in use may do: trade, only read (prepare), or unknown (the service did not say, nor refuse a trade yet). */
export type KeyAccess = "trade" | "read_only" | "unknown";

/** From the key's scopes (`meta.key_scopes` of GET /account): with `trade` it trades; without it, read only; null: unknown. */
export function keyAccessOf(scopes: readonly string[] | null): KeyAccess {
  if (scopes === null) return "unknown";
  return scopes.includes("trade") ? "trade" : "read_only";
}

/** A 403 insufficient_scope on a trade says what the service did not: this key cannot trade. */
export function learntAccess(current: KeyAccess, errorCode: string | null | undefined): KeyAccess {
  return errorCode === "insufficient_scope" ? "read_only" : current;
}

export const READ_ONLY_NOTE = "read only: you can prepare, not trade";

/** The connection panel's line on the key's scope: null while unknown (nothing is claimed the service did not say). */
export function keyAccessNote(access: KeyAccess): string | null {
  if (access === "read_only") return READ_ONLY_NOTE;
  if (access === "trade") return "can trade and approve";
  return null;
}

/**
 * Why the pane will not send this preview directly, or null when it may: a read-only key never trades (the service would
 * refuse it), and a LIVE key does not while the workbook's "LIVE trades need approval" is on. Either way Submit for approval
 * is the way. Sandbox keys may trade directly whatever the setting says.
 */
export function directTradeRefusal(environment: Environment, access: KeyAccess, liveNeedsApproval: boolean): string | null {
  if (access === "read_only") return `This key is ${READ_ONLY_NOTE}. Submit for approval instead: an approver with a trading key sends it.`;
  if (environment === "production" && liveNeedsApproval)
    return "This workbook's setting “LIVE trades need approval” is on: LIVE trades are not sent directly. Submit for approval instead: another key approves and sends it.";
  return null;
}
