// The sandbox's accounts and their keys: each account's state under its own key, every further key pointing to its account, and what a key may do (its scopes; revoked with its account).
import { environmentOfKey, type AccountConfig, type KeyConfig } from "./accounts";
import { toMicro } from "./money";
import type { AccountState, Credential } from "./state";

export class AccountBook {
  private readonly accounts = new Map<string, AccountState>();
  /** Each further key of an account (AccountConfig.keys) → the account's own api_key. */
  private readonly extraKeys = new Map<string, string>();

  /** A key, its account and its own scopes; a key is revoked when it or its account is. */
  credential(apiKey: string): Credential | undefined {
    const own = this.accounts.get(apiKey);
    if (own) return { acct: own, apiKey, scopes: own.config.scopes, revoked: own.config.revoked ?? false };
    const owner = this.accounts.get(this.extraKeys.get(apiKey) ?? "");
    const key = owner?.config.keys?.find((k) => k.api_key === apiKey);
    if (!owner || !key) return undefined;
    return { acct: owner, apiKey, scopes: key.scopes, revoked: (owner.config.revoked ?? false) || (key.revoked ?? false) };
  }

  /** The account under its own api_key (not a further key's). */
  byOwnKey(apiKey: string): AccountState | undefined {
    return this.accounts.get(apiKey);
  }

  all(): AccountState[] {
    return [...this.accounts.values()];
  }

  /** Adds a further key to the account of `accountKey`. */
  addKey(accountKey: string, key: KeyConfig): "added" | "no_account" | "exists" | "other_environment" {
    const acct = this.credential(accountKey)?.acct;
    if (!acct) return "no_account";
    if (this.credential(key.api_key)) return "exists";
    if (environmentOfKey(key.api_key) !== acct.env) return "other_environment";
    acct.config = { ...acct.config, keys: [...(acct.config.keys ?? []), key] };
    this.extraKeys.set(key.api_key, acct.config.api_key);
    return "added";
  }

  /** Adds an account with its starting balance; false (nothing added) when any of its keys is in use. */
  add(config: AccountConfig): boolean {
    if ([config.api_key, ...(config.keys ?? []).map((k) => k.api_key)].some((k) => this.credential(k))) return false;
    this.open(config);
    return true;
  }

  /** A new account from its configuration, at its starting balance. */
  open(config: AccountConfig): void {
    const balance = toMicro(config.balance_usdc);
    this.put({ config, env: environmentOfKey(config.api_key), startingBalance: balance, balance, hedges: [], history: [] });
  }

  /** An account as it was saved (its hedges and history with it). */
  put(acct: AccountState): void {
    this.accounts.set(acct.config.api_key, acct);
    for (const k of acct.config.keys ?? []) this.extraKeys.set(k.api_key, acct.config.api_key);
  }

  clear(): void {
    this.accounts.clear();
    this.extraKeys.clear();
  }
}
