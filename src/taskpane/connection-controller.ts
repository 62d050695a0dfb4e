// Connect / forget: checks the key and base URL (the key goes only to the origin it was saved for, and only where the build allows), proves them with GET /account, then configures the shared connection and saves the settings.
import { HedgingClient } from "../api/client";
import {
  checkKeyDestination,
  environmentOf,
  maskKey,
  normaliseBaseUrl,
  OPEN_POLICY,
  originOf,
  publicKeyFingerprint,
  type Environment,
  type ServicePolicy,
} from "../api/environment";
import { HedgingApiError, isHedgingApiError } from "../api/errors";
import { redactKey } from "../api/redact";
import { diagnoseCors, type CorsDiagnosis } from "../api/transport";
import { keyScopesOf, type Account } from "../api/schemas";
import type { SettingsStore } from "../feeds/settings-store";
import { SETTING_KEYS } from "../feeds/settings-store";
import { loadSettings, saveSettings, type Connection } from "../feeds/connection";
import { keyAccessOf, learntAccess, type KeyAccess } from "./key-access";

export type ConnectionState =
  | { status: "disconnected"; baseUrl: string; error: ErrorView | null }
  | { status: "connecting"; baseUrl: string; maskedKey: string; environment: Environment }
  | {
      status: "connected";
      baseUrl: string;
      maskedKey: string;
      environment: Environment;
      account: Account;
      client: HedgingClient;
      /** What the key may do: from `meta.key_scopes` of GET /account, else learnt from a 403 insufficient_scope. */
      access: KeyAccess;
      /** The key's public fingerprint (publicKeyFingerprint): what the Approvals sheet and the Hedge Log name it by. Never the key. */
      fingerprint: string;
    };

/** An error as the pane shows it: the code, the message, and what to do. Never contains the key. */
export interface ErrorView {
  code: string;
  message: string;
  advice: string | null;
}

/** Turns anything thrown into an ErrorView with `secret` (the key) masked out of every text. */
export function errorView(e: unknown, secret?: string | null): ErrorView {
  const clean = (text: string) => redactKey(text, secret);
  if (e instanceof HedgingApiError) return { code: e.code, message: clean(e.message), advice: e.advice ? clean(e.advice) : null };
  const message = e instanceof Error ? e.message : String(e);
  // Errors that name their kind (e.g. a selection the add-in cannot read) keep it: they are not unexpected.
  const code = e instanceof Error ? (e as Error & { code?: unknown }).code : undefined;
  if (typeof code === "string" && code !== "") return { code, message: clean(message), advice: null };
  return { code: "unexpected_error", message: clean(message), advice: null };
}

/** What the pane says when the browser withheld the service's answer for CORS (the origin to allow, and whom to ask), or refused its redirect. */
function corsView({ pageOrigin, serviceOrigin, redirected }: CorsDiagnosis): ErrorView {
  if (redirected)
    return {
      code: "redirected",
      message:
        `The service at ${serviceOrigin} answered with a redirect, which the add-in never follows (it would send the key ` +
        "on to wherever the redirect points).",
      advice: "Check the base URL: give the service's own address (with /v2), where it answers without a redirect. The key was not saved.",
    };
  return {
    code: "cors_blocked",
    message:
      `The service at ${serviceOrigin} answered, but the browser withheld its answer: the service does not allow ` +
      `requests from this add-in's origin, ${pageOrigin} (CORS).`,
    advice:
      `Ask the service's operators to allow the origin ${pageOrigin} (Access-Control-Allow-Origin: ${pageOrigin}, with the ` +
      "request headers Authorization, Content-Type and Idempotency-Key). The key was not accepted or saved.",
  };
}

type Listener = (state: ConnectionState) => void;

export interface ConnectionControllerOptions {
  store: SettingsStore;
  connection: Connection;
  /** Base URL shown when none was saved (the local sandbox in development builds). */
  defaultBaseUrl: string;
  /** Where this build may send a key (SERVICE_ORIGINS, loopback in development, https for LIVE keys in production). */
  policy?: ServicePolicy;
  /** Builds the client used to prove the key before it is adopted (tests may inject options). */
  makeClient?: (apiKey: string, baseUrl: string) => HedgingClient;
  /** After a network error: did the browser block the answer for CORS? (diagnoseCors by default; null outside a page). */
  diagnoseCors?: (url: string) => Promise<CorsDiagnosis | null>;
  /** The GET /account already sent at start for this key and base URL (src/feeds/saved-start.ts), taken instead of asking again. */
  sentCheck?: (apiKey: string, baseUrl: string) => ReturnType<HedgingClient["account"]> | null;
}

export class ConnectionController {
  private state: ConnectionState;
  private readonly listeners = new Set<Listener>();
  private readonly makeClient: (apiKey: string, baseUrl: string) => HedgingClient;
  private readonly policy: ServicePolicy;
  private readonly diagnoseCors: (url: string) => Promise<CorsDiagnosis | null>;

  constructor(private readonly options: ConnectionControllerOptions) {
    this.state = { status: "disconnected", baseUrl: options.defaultBaseUrl, error: null };
    this.makeClient = options.makeClient ?? ((apiKey, baseUrl) => new HedgingClient({ apiKey, baseUrl }));
    this.policy = options.policy ?? OPEN_POLICY;
    this.diagnoseCors = options.diagnoseCors ?? ((url) => diagnoseCors(url));
  }

  get current(): ConnectionState {
    return this.state;
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** On open: reconnects with the saved key, if any, at the origin it was saved for. */
  async restore(): Promise<ConnectionState> {
    const { apiKey, baseUrl, apiKeyOrigin } = await loadSettings(this.options.store, this.options.defaultBaseUrl);
    if (!apiKey) {
      this.set({ status: "disconnected", baseUrl, error: null });
      return this.state;
    }
    // The cells use the saved key at once: if the service cannot be reached now, they show why and recover on their own
    // instead of asking for a key that is already set. A key or URL refused outright is reported by the attempt below.
    try {
      const url = normaliseBaseUrl(baseUrl);
      if (originOf(url) === apiKeyOrigin) {
        checkKeyDestination(apiKey, url, this.policy);
        this.options.connection.configure({ apiKey, baseUrl: url });
      }
    } catch {
      // attempt() reports it.
    }
    return this.attempt(apiKey, baseUrl, apiKeyOrigin);
  }

  /**
   * Checks the key and URL, calls GET /account, and only then adopts and saves them. Nothing is saved on failure.
   * An empty key field means "the saved key", which goes only to the origin it was saved for: another origin needs the key typed again.
   */
  async connect(apiKeyInput: string, baseUrlInput: string): Promise<ConnectionState> {
    const typed = apiKeyInput.trim();
    if (typed) return this.attempt(typed, baseUrlInput, null);
    const saved = await loadSettings(this.options.store, this.options.defaultBaseUrl);
    return this.attempt(saved.apiKey ?? "", baseUrlInput, saved.apiKeyOrigin);
  }

  /** `boundTo`: the origin a saved key is bound to (null for a key typed now). */
  private async attempt(apiKey: string, baseUrlInput: string, boundTo: string | null): Promise<ConnectionState> {
    let baseUrl = baseUrlInput.trim() || this.options.defaultBaseUrl;
    try {
      if (!apiKey)
        throw new HedgingApiError({
          code: "missing_credentials",
          status: null,
          message: "Enter the API key first (it starts with svc_test_ or svc_live_).",
        });
      const environment = environmentOf(apiKey);
      if (!baseUrl)
        throw new HedgingApiError({
          code: "validation_error",
          status: null,
          message: "Enter the base URL of the Hedging Service, e.g. https://host/v2.",
        });
      baseUrl = normaliseBaseUrl(baseUrl);
      if (boundTo !== null && originOf(baseUrl) !== boundTo) {
        throw new HedgingApiError({
          code: "key_origin_mismatch",
          status: null,
          message:
            `The saved key ${maskKey(apiKey)} was given for ${boundTo} and is sent nowhere else; ${originOf(baseUrl)} is another ` +
            "service, so nothing was sent. Type the key again to use it there.",
        });
      }
      checkKeyDestination(apiKey, baseUrl, this.policy);
      this.set({ status: "connecting", baseUrl, maskedKey: maskKey(apiKey), environment });
      const client = this.makeClient(apiKey, baseUrl);
      const { data: account, meta } = await (this.options.sentCheck?.(apiKey, baseUrl) ?? client.account());
      const shared = this.options.connection.configure({ apiKey, baseUrl }) ?? client;
      await saveSettings(this.options.store, { apiKey, baseUrl });
      const access = keyAccessOf(keyScopesOf(meta));
      const fingerprint = publicKeyFingerprint(apiKey);
      this.set({ status: "connected", baseUrl, maskedKey: maskKey(apiKey), environment, account, client: shared, access, fingerprint });
    } catch (e) {
      let error = errorView(e, apiKey);
      if (isHedgingApiError(e) && e.code === "network_error") {
        const cors = await this.diagnoseCors(`${baseUrl}/account`).catch(() => null);
        if (cors) error = corsView(cors);
      }
      this.set({ status: "disconnected", baseUrl, error });
    }
    return this.state;
  }

  /** Replaces the account figures after a refresh. */
  updateAccount(account: Account): void {
    if (this.state.status === "connected") this.set({ ...this.state, account });
  }

  /** Hears an error code met while using this connection: a 403 insufficient_scope makes the key read only. */
  learnFrom(errorCode: string | null | undefined): void {
    if (this.state.status !== "connected") return;
    const access = learntAccess(this.state.access, errorCode);
    if (access !== this.state.access) this.set({ ...this.state, access });
  }

  /** Removes the saved key (and the origin it was bound to) and drops the client; the base URL stays. */
  async forget(): Promise<ConnectionState> {
    const baseUrl = this.state.baseUrl;
    await this.options.store.remove(SETTING_KEYS.apiKey);
    await this.options.store.remove(SETTING_KEYS.apiKeyOrigin);
    this.options.connection.configure({ apiKey: null, baseUrl });
    this.set({ status: "disconnected", baseUrl, error: null });
    return this.state;
  }

  private set(state: ConnectionState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }
}
