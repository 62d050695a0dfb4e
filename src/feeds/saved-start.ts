// The saved connection started as soon as the functions' engine runs, before the pane: the shared connection configured from the saved key (the cells' first requests go out) and the key's check (GET /account) sent, its answer kept for the pane.
import type { HedgingClient } from "../api/client";
import { checkKeyDestination, normaliseBaseUrl, originOf, type ServicePolicy } from "../api/environment";
import { loadSettings, type Connection } from "./connection";
import type { FeedHub } from "./hub";
import type { SettingsStore } from "./settings-store";

type AccountAnswer = ReturnType<HedgingClient["account"]>;

/** The check sent at start, for the key and base URL it was sent with; taken once by the pane. */
let sent: { apiKey: string; baseUrl: string; answer: AccountAnswer } | null = null;
/** The saved start under way (noted by the engine when it begins, before Office is ready), for `savedStartAnswered`. */
let starting: Promise<unknown> | null = null;

/** Notes the saved start under way (the engine's, from Office.onReady on), so the pane can wait for its first answers. */
export function noteSavedStart(start: Promise<unknown>): void {
  starting = start.catch(() => undefined);
}

/**
 * Resolves once the saved start's first answers have been handled (the key's check settled and no poll of the cells in
 * flight: their first values set), or after `limitMs`, whichever comes first; at once when no saved start was noted.
 * The pane runs its code after it, so that code does not hold the first values (src/taskpane/taskpane.ts). True when
 * the answers are in (or there was nothing to wait for), false when `limitMs` came first.
 */
export async function savedStartAnswered(hub: Pick<FeedHub, "settled">, limitMs: number): Promise<boolean> {
  if (!starting) return true;
  const start = starting;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), limitMs)));
  const answered = (async () => {
    await start;
    if (!sent) return true;
    await sent.answer.then(
      () => undefined,
      () => undefined,
    );
    await hub.settled();
    return true;
  })();
  const inTime = await Promise.race([answered, limit]);
  clearTimeout(timer);
  return inTime;
}

/**
 * Reads the saved key and base URL and, when the key is bound to that origin and the build allows it there (the checks
 * the pane's restore makes), configures `connection` with them and sends GET /account. Does nothing otherwise: the
 * pane's restore then says why. Never throws.
 */
export async function startSavedConnection(
  store: Pick<SettingsStore, "get">,
  connection: Connection,
  policy: ServicePolicy,
  defaultBaseUrl: string,
): Promise<void> {
  try {
    const { apiKey, baseUrl, apiKeyOrigin } = await loadSettings(store, defaultBaseUrl);
    if (!apiKey || connection.client) return;
    const url = normaliseBaseUrl(baseUrl);
    if (originOf(url) !== apiKeyOrigin) return;
    checkKeyDestination(apiKey, url, policy);
    const client = connection.configure({ apiKey, baseUrl: url });
    if (!client) return;
    const answer = client.account();
    answer.catch(() => undefined); // the pane reads it (and reports its error); unread, it is no unhandled rejection
    sent = { apiKey, baseUrl: url, answer };
  } catch {
    // A key or URL refused: the pane's restore reports it.
  }
}

/** Whether a check was sent at start and not yet taken: the pane will most likely connect with it. */
export function savedCheckSent(): boolean {
  return sent !== null;
}

/** The answer of the check sent at start for this key and base URL, once; null when none was sent for them. */
export function takeSavedCheck(apiKey: string, baseUrl: string): AccountAnswer | null {
  if (!sent || sent.apiKey !== apiKey || sent.baseUrl !== baseUrl) return null;
  const { answer } = sent;
  sent = null;
  return answer;
}
