// The settings port of the shared runtime: a small per-user key-value store (API key and the origin it is bound to, base URL) and its keys. Implemented in src/excel/settings.ts.

/** A small key-value store; the pane and the functions read and write settings only through this. */
export interface SettingsStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  remove(key: string): Promise<void>;
}

export const SETTING_KEYS = {
  apiKey: "hedge.apiKey",
  baseUrl: "hedge.baseUrl",
  /** The origin (scheme://host:port) the key was saved for: it is sent nowhere else. */
  apiKeyOrigin: "hedge.apiKeyOrigin",
  /** "Approval valid for (hours)" (src/trading/approvals/validity.ts): this user's, as typed; absent: the default. */
  approvalHours: "hedge.approvalHours",
} as const;
