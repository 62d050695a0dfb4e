// Connect / forget: checks the key and base URL, proves them with GET /account, then configures the shared connection and saves the settings.
import { HedgingClient } from "../api/client";
import { environmentOf, maskKey, normaliseBaseUrl, type Environment } from "../api/environment";
import { HedgingApiError, redact } from "../api/errors";
import type { Account } from "../api/schemas";
import type { SettingsStore } from "../feeds/settings-store";
import { SETTING_KEYS } from "../feeds/settings-store";
import { loadSettings, saveSettings, type Connection } from "../feeds/connection";

export type ConnectionState =
  | { status: "disconnected"; baseUrl: string; error: ErrorView | null }
  | { status: "connecting"; baseUrl: string; maskedKey: string; environment: Environment }
  | { status: "connected"; baseUrl: string; maskedKey: string; environment: Environment; account: Account; client: HedgingClient };

/** An error as the pane shows it: the code, the message, and what to do. Never contains the key. */
export interface ErrorView {
  code: string;
  message: string;
  advice: string | null;
}

/** Turns anything thrown into an ErrorView with `secret` (the key) masked out of every text. */
export function errorView(e: unknown, secret?: string | null): ErrorView {
  const clean = (text: string) => (secret ? redact(text, secret, maskKey(secret)) : text);
  if (e instanceof HedgingApiError) return { code: e.code, message: clean(e.message), advice: e.advice ? clean(e.advice) : null };
  const message = e instanceof Error ? e.message : String(e);
  // Errors that name their kind (e.g. a selection the add-in cannot read) keep it: they are not unexpected.
  const code = e instanceof Error ? (e as Error & { code?: unknown }).code : undefined;
  if (typeof code === "string" && code !== "") return { code, message: clean(message), advice: null };
  return { code: "unexpected_error", message: clean(message), advice: null };
}

type Listener = (state: ConnectionState) => void;

export interface ConnectionControllerOptions {
  store: SettingsStore;
  connection: Connection;
  /** Base URL shown when none was saved (the local sandbox in development builds). */
  defaultBaseUrl: string;
  /** Builds the client used to prove the key before it is adopted (tests may inject options). */
  makeClient?: (apiKey: string, baseUrl: string) => HedgingClient;
}

export class ConnectionController {
  private state: ConnectionState;
  private readonly listeners = new Set<Listener>();
  private readonly makeClient: (apiKey: string, baseUrl: string) => HedgingClient;

  constructor(private readonly options: ConnectionControllerOptions) {
    this.state = { status: "disconnected", baseUrl: options.defaultBaseUrl, error: null };
    this.makeClient = options.makeClient ?? ((apiKey, baseUrl) => new HedgingClient({ apiKey, baseUrl }));
  }

  get current(): ConnectionState {
    return this.state;
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** On open: reconnects with the saved key, if any. */
  async restore(): Promise<ConnectionState> {
    const { apiKey, baseUrl } = await loadSettings(this.options.store, this.options.defaultBaseUrl);
    if (!apiKey) {
      this.set({ status: "disconnected", baseUrl, error: null });
      return this.state;
    }
    // The cells use the saved key at once: if the service cannot be reached now, they show why and recover on their own
    // instead of asking for a key that is already set. A key or URL refused outright is reported by connect() below.
    try {
      this.options.connection.configure({ apiKey, baseUrl });
    } catch {
      // connect() reports it.
    }
    return this.connect(apiKey, baseUrl);
  }

  /** Checks the key and URL, calls GET /account, and only then adopts and saves them. Nothing is saved on failure. */
  async connect(apiKeyInput: string, baseUrlInput: string): Promise<ConnectionState> {
    // An empty key field means "the saved key" (e.g. to move to another base URL without typing the key again).
    const apiKey = apiKeyInput.trim() || ((await this.options.store.get(SETTING_KEYS.apiKey)) ?? "");
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
      this.set({ status: "connecting", baseUrl, maskedKey: maskKey(apiKey), environment });
      const client = this.makeClient(apiKey, baseUrl);
      const { data: account } = await client.account();
      const shared = this.options.connection.configure({ apiKey, baseUrl }) ?? client;
      await saveSettings(this.options.store, { apiKey, baseUrl });
      this.set({ status: "connected", baseUrl, maskedKey: maskKey(apiKey), environment, account, client: shared });
    } catch (e) {
      this.set({ status: "disconnected", baseUrl, error: errorView(e, apiKey) });
    }
    return this.state;
  }

  /** Replaces the account figures after a refresh. */
  updateAccount(account: Account): void {
    if (this.state.status === "connected") this.set({ ...this.state, account });
  }

  /** Removes the saved key and drops the client; the base URL stays. */
  async forget(): Promise<ConnectionState> {
    const baseUrl = this.state.baseUrl;
    await this.options.store.remove(SETTING_KEYS.apiKey);
    this.options.connection.configure({ apiKey: null, baseUrl });
    this.set({ status: "disconnected", baseUrl, error: null });
    return this.state;
  }

  private set(state: ConnectionState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }
}
