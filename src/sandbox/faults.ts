// Injected faults for clients' tests: 5xx bursts, latency, drop-after-commit, forced 429s, stalled fills, price outage, slow or failing fills.
import { z } from "zod";
import { SERVICE_ERROR_STATUS, type ServiceErrorCode } from "../api/errors";
import type { Engine } from "./engine";

/** The spec's 5xx codes: the ones a `fail_next` rule may inject. */
export const FAULT_CODES = (Object.keys(SERVICE_ERROR_STATUS) as ServiceErrorCode[]).filter((c) => SERVICE_ERROR_STATUS[c] >= 500) as [
  ServiceErrorCode,
  ...ServiceErrorCode[],
];

const pathFilter = z.string().regex(/^\//, "must start with / (a path under /v2, e.g. /hedges)");

export const failRuleSchema = z.object({
  count: z.number().int().min(1),
  code: z.enum(FAULT_CODES).default("service_unavailable"),
  /** Only requests to this path (relative to /v2) or below it. */
  path: pathFilter.optional(),
  method: z.enum(["GET", "POST"]).optional(),
});

/** Body of POST /_sandbox/faults; every field is optional and only the fields given change. */
export const faultPatchSchema = z
  .object({
    fail_next: failRuleSchema.optional(),
    latency_ms: z.number().int().min(0).max(120_000).optional(),
    latency_path: pathFilter.nullable().optional(),
    drop_after_commit: z.number().int().min(0).optional(),
    rate_limit_next: z.number().int().min(0).optional(),
    retry_after_seconds: z.number().int().min(0).max(3600).optional(),
    stall_fills: z.boolean().optional(),
    price_unavailable: z.boolean().optional(),
    fill_ms: z.number().int().min(0).max(86_400_000).optional(),
    fail_rate: z.number().min(0).max(1).optional(),
  })
  .strict();

export type FailRule = z.output<typeof failRuleSchema>;
export type FaultPatch = z.input<typeof faultPatchSchema>;

function matches(rulePath: string | null | undefined, path: string): boolean {
  if (!rulePath) return true;
  const base = rulePath.replace(/\/+$/, "");
  return path === base || path.startsWith(`${base}/`);
}

export class Faults {
  private failRules: FailRule[] = [];
  private latencyMs = 0;
  private latencyPath: string | null = null;
  private dropAfterCommit = 0;
  private forcedRateLimits = 0;
  private retryAfterSeconds = 1;

  constructor(private readonly engine: Engine) {}

  /** Applies a checked patch. */
  apply(patch: z.output<typeof faultPatchSchema>): void {
    if (patch.fail_next) this.failRules.push({ ...patch.fail_next });
    if (patch.latency_ms !== undefined) this.latencyMs = patch.latency_ms;
    if (patch.latency_path !== undefined) this.latencyPath = patch.latency_path;
    if (patch.drop_after_commit !== undefined) this.dropAfterCommit = patch.drop_after_commit;
    if (patch.rate_limit_next !== undefined) this.forcedRateLimits = patch.rate_limit_next;
    if (patch.retry_after_seconds !== undefined) this.retryAfterSeconds = patch.retry_after_seconds;
    if (patch.fill_ms !== undefined) this.engine.fillMs = patch.fill_ms;
    if (patch.fail_rate !== undefined) this.engine.failRate = patch.fail_rate;
    if (patch.stall_fills !== undefined) this.engine.setFillsStalled(patch.stall_fills);
    if (patch.price_unavailable !== undefined) this.engine.setPriceUnavailable(patch.price_unavailable);
  }

  /** Clears every request fault and resumes fills and prices (fill_ms and fail_rate stay). */
  clear(): void {
    this.failRules = [];
    this.latencyMs = 0;
    this.latencyPath = null;
    this.dropAfterCommit = 0;
    this.forcedRateLimits = 0;
    this.retryAfterSeconds = 1;
    this.engine.setFillsStalled(false);
    this.engine.setPriceUnavailable(false);
  }

  /** The code to fail this request with, consuming one count of the first matching rule; null to let it through. */
  takeFailure(method: string, path: string): ServiceErrorCode | null {
    const i = this.failRules.findIndex((r) => (!r.method || r.method === method) && matches(r.path, path));
    if (i < 0) return null;
    const rule = this.failRules[i];
    rule.count -= 1;
    if (rule.count <= 0) this.failRules.splice(i, 1);
    return rule.code;
  }

  latencyFor(path: string): number {
    return this.latencyMs > 0 && matches(this.latencyPath, path) ? this.latencyMs : 0;
  }

  /** True when this committed state-changing request must lose its answer (the socket is destroyed). */
  takeDrop(): boolean {
    if (this.dropAfterCommit <= 0) return false;
    this.dropAfterCommit -= 1;
    return true;
  }

  /** Retry-After seconds when this request must get a forced 429; null otherwise. */
  takeForcedRateLimit(): number | null {
    if (this.forcedRateLimits <= 0) return null;
    this.forcedRateLimits -= 1;
    return this.retryAfterSeconds;
  }

  view(): Record<string, unknown> {
    return {
      fail_next: this.failRules.map((r) => ({ ...r })),
      latency_ms: this.latencyMs,
      latency_path: this.latencyPath,
      drop_after_commit: this.dropAfterCommit,
      rate_limit_next: this.forcedRateLimits,
      retry_after_seconds: this.retryAfterSeconds,
      stall_fills: this.engine.fillsStalled,
      price_unavailable: this.engine.priceUnavailable,
      fill_ms: this.engine.fillMs,
      fail_rate: this.engine.failRate,
    };
  }
}
