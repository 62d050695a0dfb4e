// The shared runtime's one connection: the current HedgingClient (or none), built from the saved key and base URL.
import { HedgingClient, type ClientOptions } from "../api/client";
import { SETTING_KEYS, type SettingsStore } from "./settings-store";

/** The local sandbox started by `npm start` / `npm run sandbox`. */
export const DEFAULT_BASE_URL = "https://localhost:4010/v2";

export interface ConnectionSettings {
  apiKey: string | null;
  baseUrl: string;
}

type Listener = (client: HedgingClient | null) => void;

export class Connection {
  private current: HedgingClient | null = null;
  private settings: ConnectionSettings | null = null;
  private loaded = false;
  private readonly listeners = new Set<Listener>();

  constructor(private readonly clientOptions: Partial<Omit<ClientOptions, "apiKey" | "baseUrl">> = {}) {}

  /** The client to use now, or null when no API key is set. */
  get client(): HedgingClient | null {
    return this.current;
  }

  /**
   * True once the saved settings have been read (configure or settingsRead was called). Before that the feeds hold
   * their cells (Excel shows #BUSY!) instead of saying "set your API key" to a user who has set one.
   */
  get ready(): boolean {
    return this.loaded;
  }

  /** The saved settings have been read (and held no key, or could not be read): cells without a client may now say so. */
  settingsRead(): void {
    if (this.loaded) return;
    this.loaded = true;
    for (const listener of this.listeners) listener(this.current);
  }

  /** Replaces the client (unless the settings are the ones in use). Throws (and keeps the old client) when the key or base URL is refused. */
  configure(settings: ConnectionSettings): HedgingClient | null {
    if (this.settings && this.settings.apiKey === settings.apiKey && this.settings.baseUrl === settings.baseUrl) return this.current;
    const next = settings.apiKey ? new HedgingClient({ ...this.clientOptions, apiKey: settings.apiKey, baseUrl: settings.baseUrl }) : null;
    this.current = next;
    this.settings = { ...settings };
    this.loaded = true;
    for (const listener of this.listeners) listener(next);
    return next;
  }

  /** Called with the new client (or null) each time the connection changes. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export interface SavedSettings extends ConnectionSettings {
  /** The origin the saved key is bound to (its base URL's, for settings saved before keys were bound). */
  apiKeyOrigin: string | null;
}

function originOrNull(url: string | null): string | null {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
}

/** The saved key, the origin it is bound to, and the base URL; `defaultBaseUrl` when none was saved. */
export async function loadSettings(store: Pick<SettingsStore, "get">, defaultBaseUrl: string = DEFAULT_BASE_URL): Promise<SavedSettings> {
  const [apiKey, baseUrl, keyOrigin] = await Promise.all([
    store.get(SETTING_KEYS.apiKey),
    store.get(SETTING_KEYS.baseUrl),
    store.get(SETTING_KEYS.apiKeyOrigin),
  ]);
  // Settings saved before keys were bound held the key and the URL it was proven with: that URL's origin is the key's.
  return { apiKey, baseUrl: baseUrl || defaultBaseUrl, apiKeyOrigin: apiKey ? (keyOrigin ?? originOrNull(baseUrl)) : null };
}

/** Saves the key bound to the base URL's origin (or removes both), and the base URL. */
export async function saveSettings(store: SettingsStore, settings: ConnectionSettings): Promise<void> {
  const origin = originOrNull(settings.baseUrl);
  if (settings.apiKey && origin) {
    await store.set(SETTING_KEYS.apiKey, settings.apiKey);
    await store.set(SETTING_KEYS.apiKeyOrigin, origin);
  } else {
    await store.remove(SETTING_KEYS.apiKey);
    await store.remove(SETTING_KEYS.apiKeyOrigin);
  }
  await store.set(SETTING_KEYS.baseUrl, settings.baseUrl);
}

/** The one connection of the shared runtime: the pane configures it, the custom functions read from it. */
export const connection = new Connection();
