// The faults of one world, kept apart from what the user does: where a pane dies (every request leaving or answered, every workbook and journal call), what the network loses or delays, and what the service is told to get wrong.
import type { HttpRequest, HttpResponse, HttpTransport } from "../../../src/api/transport";
import { faultPatchSchema } from "../../../src/sandbox/faults";
import type { Rng } from "./rng";
import type { Service } from "./service";

/** One pane's life: after it dies every call it makes waits forever, and nothing it starts reaches the service or the workbook. */
export interface Life {
  id: number;
  dead: boolean;
  /** Keys this pane's own sends made (its rows need no Resume). */
  createdKeys: Set<string>;
  /** When the user pressed Resume in this pane (null: not yet). */
  resumedAt: number | null;
}

export const newLife = (id: number): Life => ({ id, dead: false, createdKeys: new Set(), resumedAt: null });

export const never = <T>() => new Promise<T>(() => undefined);

/** A state-changing request as it leaves a pane (the checker judges it before the service sees it). */
export interface Mutation {
  life: Life;
  key: string | undefined;
  method: string;
  path: string;
  body: string | undefined;
}

export class FaultPlan {
  readonly net = { lossRate: 0, listLagMs: 0, latencyMs: 20 };
  /** Chance of a pane dying at each kill point (0: panes live). */
  killRate = 0;
  /** Fills stall for hours from one session on (orders accepted, not filled). */
  longStall = false;

  constructor(
    private readonly rng: Rng,
    private readonly service: Service,
    private readonly log: (text: string) => void,
    private readonly stats: Record<string, number>,
  ) {}

  /** A kill point: the pane may die here (`boost` makes the moments that matter most likelier). */
  maybeKill(life: Life, where: string, boost = 1): void {
    if (life.dead || this.killRate === 0 || !this.rng.chance(Math.min(0.5, this.killRate * boost))) return;
    life.dead = true;
    this.stats.kills++;
    this.log(`KILL pane ${life.id} at ${where}`);
  }

  /** A random set of service and network faults for the next while. */
  toggle(): void {
    const rng = this.rng;
    const patch: Record<string, unknown> = {};
    if (rng.chance(0.5)) patch.drop_after_commit = rng.int(0, 3);
    if (rng.chance(0.3)) patch.fail_next = { count: rng.int(1, 6), code: rng.pick(["service_unavailable", "executor_unavailable"]) };
    if (rng.chance(0.3)) patch.rate_limit_next = rng.int(0, 4);
    if (!this.longStall && rng.chance(0.3)) patch.stall_fills = rng.chance(0.6);
    if (rng.chance(0.2)) patch.fill_ms = rng.pick([200, 1_500, 6_000]);
    if (Object.keys(patch).length > 0) this.service.faults.apply(faultPatchSchema.parse(patch));
    this.net.lossRate = rng.chance(0.3) ? rng.pick([0.02, 0.1]) : 0;
    this.net.listLagMs = rng.chance(0.3) ? rng.pick([2_000, 10_000]) : 0;
    this.log(`faults ${JSON.stringify(patch)} loss ${this.net.lossRate} lag ${this.net.listLagMs}`);
  }

  stallForHours(): void {
    this.longStall = true;
    this.service.engine.setFillsStalled(true);
    this.log("fills stall for hours");
  }

  /** No fault at all: no kills, no loss or lag, prompt fills that never fail. */
  calm(): void {
    this.service.faults.clear();
    this.service.faults.apply(faultPatchSchema.parse({ fill_ms: 1_500, fail_rate: 0 }));
    Object.assign(this.net, { lossRate: 0, listLagMs: 0 });
    this.killRate = 0;
  }

  /**
   * A pane's network: the request is served after the latency (even if the pane died meanwhile: it was on the wire); its
   * answer reaches the pane only if the pane is still alive, and may be lost. `leaving` sees each state-changing request first.
   */
  transport(life: Life, leaving: (m: Mutation) => void): HttpTransport {
    return (request: HttpRequest) => {
      if (life.dead) return never();
      this.stats.requests = (this.stats.requests ?? 0) + 1;
      const url = new URL(request.url);
      if (process.env.SIM_TALLY) this.tally(request.method, url);
      const path = url.pathname.slice("/v2".length) || "/";
      const mutation = request.method === "POST" && path.startsWith("/hedges");
      if (mutation) {
        const key = request.headers["Idempotency-Key"];
        leaving({ life, key, method: request.method, path, body: request.body });
        this.stats.mutations++;
      }
      // Excel closed just after Confirm is the case that matters most: a request out, its answer never heard.
      this.maybeKill(life, `${request.method} ${path} leaving`, mutation ? 10 : 1);
      return new Promise<HttpResponse>((resolve, reject) => {
        let settled = false;
        request.signal.addEventListener("abort", () => {
          if (!settled && !life.dead) {
            settled = true;
            reject(request.signal.reason ?? new Error("aborted"));
          }
        });
        setTimeout(() => {
          void this.service.serve(request, url, path, this.net.listLagMs).then((answer) => {
            this.maybeKill(life, `${request.method} ${path} answered`);
            if (life.dead || settled) return;
            settled = true;
            if (answer === null) reject(new Error("socket hang up (answer dropped after commit)"));
            else if (this.net.lossRate > 0 && this.rng.chance(this.net.lossRate)) reject(new Error("connection reset"));
            else resolve(answer);
          });
        }, this.net.latencyMs);
      });
    };
  }

  /** A workbook or journal call with kill points before and after it (`slow`: Excel's port takes a few ms). */
  living<A extends unknown[], R>(life: Life, name: string, fn: (...a: A) => Promise<R>, slow = true): (...a: A) => Promise<R> {
    return async (...a: A): Promise<R> => {
      if (life.dead) return never();
      if (slow) await new Promise((resolve) => setTimeout(resolve, this.rng.int(1, 15)));
      else await Promise.resolve();
      this.maybeKill(life, `${name} before`);
      if (life.dead) return never();
      const result = await fn(...a);
      this.maybeKill(life, `${name} after`);
      if (life.dead) return never();
      return result;
    };
  }

  private tally(method: string, url: URL): void {
    const query = url.searchParams.has("client_reference")
      ? "?ref"
      : url.searchParams.has("status")
        ? `?${url.searchParams.get("status")}`
        : "";
    const k = `${method} ${url.pathname.replace(/hdg_[0-9a-f]+/, "{id}")}${query}`;
    this.stats[k] = (this.stats[k] ?? 0) + 1;
  }
}
