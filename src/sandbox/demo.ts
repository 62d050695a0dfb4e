// The well-known keys of the default accounts (src/sandbox/default-accounts.json), for tests and tools elsewhere in the repo.

/** Funded sandbox account with read and trade scopes. */
export const DEMO_API_KEY = "svc_test_demo_sandbox_key_0001";
/** A second key of the DEMO_API_KEY account (same balance and hedges) with scopes ["read"]: it quotes and reads, and every trade gives 403 insufficient_scope. */
export const DEMO_READ_API_KEY = "svc_test_demo_read_key_0001";
/** A second trading key of the DEMO_API_KEY account (an approver's): the same balance, hedges and Idempotency-Keys (they are scoped per account). */
export const DEMO_APPROVER_API_KEY = "svc_test_demo_approver_key_0001";
/** A second funded sandbox account, for work that must not share state with the first. */
export const DEMO_API_KEY_2 = "svc_test_demo_sandbox_key_0002";
/** A simulated production (`svc_live_`) account: it never shares balances, hedges or idempotency keys with sandbox keys. */
export const DEMO_LIVE_API_KEY = "svc_live_demo_sandbox_key_0001";
/** Scopes ["read"]: every state-changing call gives 403 insufficient_scope. */
export const DEMO_READONLY_API_KEY = "svc_test_readonly_key_0001";
/** Revoked: 401 invalid_api_key. */
export const DEMO_REVOKED_API_KEY = "svc_test_revoked_key_0001";
/** account_address null: trades give 400 account_not_configured. */
export const DEMO_UNCONFIGURED_API_KEY = "svc_test_unconfigured_key_0001";
