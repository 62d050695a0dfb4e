// Custom functions of the HEDGE namespace (placeholder with HEDGE.VERSION only, so functions.json is not empty).
import packageJson from "../../package.json";

/**
 * Returns the version of the Hedge add-in.
 * @customfunction VERSION
 * @returns The add-in version, for example "0.1.0".
 */
export function version(): string {
  return packageJson.version;
}
