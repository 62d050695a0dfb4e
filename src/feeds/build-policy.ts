// What this build allows a saved or typed key, read from the build (SERVICE_ORIGINS and the mode, set by webpack): the pane and the functions' engine check the same.
import type { ServicePolicy } from "../api/environment";
import { DEFAULT_BASE_URL } from "./connection";

/** The build writes these in (webpack's DefinePlugin and mode): the page's logic has no Node types, and no process at run time. */
declare const process: { env: { NODE_ENV?: string; SERVICE_ORIGINS?: string } };

const PRODUCTION = process.env.NODE_ENV === "production";
/** The local sandbox in development builds; production builds start empty so the user names the real service. */
export const BUILD_BASE_URL = PRODUCTION ? "" : DEFAULT_BASE_URL;

/**
 * Where this build sends a key: the SERVICE_ORIGINS it was built with (the CSP's connect-src lists the same), plus
 * the local sandbox in development and test builds; production builds send a LIVE key over https only.
 */
export function buildPolicy(): ServicePolicy {
  const origins = (process.env.SERVICE_ORIGINS ?? "").split(" ").filter(Boolean);
  return { origins, loopback: !PRODUCTION, liveNeedsHttps: PRODUCTION };
}
