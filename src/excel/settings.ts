// Per-user, per-device settings stores (API key, base URL): OfficeRuntime.storage, never the workbook, and an in-memory one.
import type { SettingsStore } from "../feeds/settings-store";

/**
 * OfficeRuntime.storage: local to this user and device, shared by the pane and the custom functions of the
 * shared runtime, and not saved in the .xlsx (document settings and custom properties are, so the key never goes there).
 */
export function officeRuntimeStore(storage: OfficeRuntime.Storage = OfficeRuntime.storage): SettingsStore {
  return {
    async get(key) {
      return (await storage.getItem(key)) ?? null;
    },
    async set(key, value) {
      await storage.setItem(key, value);
    },
    async remove(key) {
      await storage.removeItem(key);
    },
  };
}

/** An in-memory store, for tests and for pages that run outside Office. */
export function memoryStore(initial: Record<string, string> = {}): SettingsStore & { dump(): Record<string, string> } {
  const values = new Map(Object.entries(initial));
  return {
    async get(key) {
      return values.get(key) ?? null;
    },
    async set(key, value) {
      values.set(key, value);
    },
    async remove(key) {
      values.delete(key);
    },
    dump: () => Object.fromEntries(values),
  };
}
