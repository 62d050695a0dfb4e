// The accounts file (`--accounts FILE`): its zod schema, loading, and the default demo accounts.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { LIVE_PREFIX, maskKey, TEST_PREFIX, type Environment } from "../api/environment";
import { issuePath, MAX_AMOUNT_USD } from "../api/schemas";
import defaultAccountsFile from "./default-accounts.json";

export const SCOPES = ["read", "trade"] as const;

const apiKey = z.string().refine((k) => (k.startsWith(LIVE_PREFIX) || k.startsWith(TEST_PREFIX)) && k.length > TEST_PREFIX.length, {
  message: `must start with ${TEST_PREFIX} (sandbox) or ${LIVE_PREFIX} (production)`,
});

/** A further key of an account, with its own scopes (`read`: everything but trades; `trade`: open, add, decrease, close). */
export const keyConfigSchema = z.object({
  api_key: apiKey,
  scopes: z.array(z.string().refine((s) => (SCOPES as readonly string[]).includes(s), "must be read or trade")),
  revoked: z.boolean().optional(),
  demo: z.boolean().optional(),
  label: z.string().optional(),
});

export type KeyConfig = z.infer<typeof keyConfigSchema>;

export const accountConfigSchema = z.object({
  api_key: apiKey,
  account_address: z.string().min(1).nullable(),
  // Money is kept in exact micro-units: amounts stay within what a request may carry.
  balance_usdc: z.number().finite().nonnegative().max(MAX_AMOUNT_USD),
  max_exposure_usd: z.number().finite().nonnegative().max(MAX_AMOUNT_USD),
  allowed_markets: z.array(z.string()),
  scopes: z.array(z.string()),
  revoked: z.boolean().optional(),
  rate_limit_per_second: z.number().finite().positive().optional(),
  /** Largest notional of one hedge for this account; the sandbox default otherwise. */
  per_hedge_limit_usd: z.number().finite().positive().max(MAX_AMOUNT_USD).optional(),
  /** Printed in full at start (documented demo keys); other keys are masked. */
  demo: z.boolean().optional(),
  label: z.string().optional(),
  /** Further keys of the same account (same balance, hedges and history), each with its own scopes. */
  keys: z.array(keyConfigSchema).optional(),
});

export const accountsFileSchema = z.object({ accounts: z.array(accountConfigSchema) });

export type AccountConfig = z.infer<typeof accountConfigSchema>;

export const DEFAULT_RATE_LIMIT_PER_SECOND = 20;

export function environmentOfKey(apiKey: string): Environment {
  return apiKey.startsWith(LIVE_PREFIX) ? "production" : "sandbox";
}

/** Checks an accounts document; throws one readable error listing every problem. */
export function parseAccounts(json: unknown, source = "accounts"): AccountConfig[] {
  const parsed = accountsFileSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${issuePath(i.path)}: ${i.message}`).join("; ");
    throw new Error(`${source} is not a valid accounts file: ${problems}`);
  }
  const seen = new Set<string>();
  for (const a of parsed.data.accounts) {
    for (const key of [a.api_key, ...(a.keys ?? []).map((k) => k.api_key)]) {
      if (seen.has(key)) throw new Error(`${source} lists the same api_key twice`);
      if (environmentOfKey(key) !== environmentOfKey(a.api_key))
        throw new Error(`${source}: key ${maskKey(key)} is not of the same environment as its account's api_key`);
      seen.add(key);
    }
  }
  return parsed.data.accounts;
}

export function loadAccountsFile(path: string): AccountConfig[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Error(`cannot read accounts file ${path}: ${(e as Error).message}`, { cause: e });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`accounts file ${path} is not JSON: ${(e as Error).message}`, { cause: e });
  }
  return parseAccounts(json, path);
}

/** The documented default accounts (src/sandbox/default-accounts.json). */
export function defaultAccounts(): AccountConfig[] {
  return parseAccounts(defaultAccountsFile, "default-accounts.json");
}
