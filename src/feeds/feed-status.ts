// The feeds' status as the pane and HEDGE.STATUS show it: the connection's health (last good answer, last connection error), the status built from it, and its listeners (told of every change, and every few seconds).
import type { Clock, TimerHandle } from "./clock";
import type { FeedError } from "./feed-error";
import { NO_KEY } from "./feed-error";
import type { Endpoint, FeedClient } from "./topic";

export type EnvironmentName = "sandbox" | "live" | "none";

export interface FeedStatus {
  environment: EnvironmentName;
  /** A key is set and the latest answer was good. */
  connected: boolean;
  /** Why not connected ("" when connected). Never contains the key. */
  reason: string;
  lastError: { code: string; message: string; at: number } | null;
  /** Clock ms of the last good answer, or null. */
  lastSuccessAt: number | null;
  /** From the client: every request of the shared runtime, retries included. */
  requestsInLastMinute: number;
  /** The request rate the client allows itself now (learned from the service's answers), requests per second. */
  ratePerSecond: number;
  /** 429 answers in the last minute (polls and actions). */
  rateLimitedInLastMinute: number;
  paused: boolean;
  /** Topics with at least one subscriber. */
  activeTopics: number;
}

export interface TopicInfo {
  key: string;
  endpoint: Endpoint;
  subscribers: number;
  polling: boolean;
  final: boolean;
  fetchedAt: number | null;
  intervalMs: number;
}

/** The connection's health since the current client was set: its last good answer and its last connection-level error. */
export class FeedHealth {
  lastSuccessAt: number | null = null;
  lastConnectionError: { error: FeedError; at: number } | null = null;

  /** The last connection-level error is newer than the last good answer. */
  failing(): boolean {
    const err = this.lastConnectionError;
    return err !== null && (this.lastSuccessAt === null || err.at >= this.lastSuccessAt);
  }

  /** A new client (or none): nothing known yet. */
  forget(): void {
    this.lastSuccessAt = null;
    this.lastConnectionError = null;
  }
}

/** What the status is built from, besides the health. */
interface StatusInput {
  client: FeedClient | null;
  /** The saved settings have been read (until then: "Reading the saved settings", not "No API key"). */
  settingsRead: boolean;
  paused: boolean;
  activeTopics: number;
}

export function feedStatus(health: FeedHealth, input: StatusInput): FeedStatus {
  const { client } = input;
  const environment: EnvironmentName = !client ? "none" : client.environment === "production" ? "live" : "sandbox";
  const err = health.lastConnectionError;
  const failing = health.failing();
  let reason = "";
  if (!client && !input.settingsRead) reason = "Reading the saved settings";
  else if (!client) reason = `No API key: ${NO_KEY.message}`;
  else if (failing && err) reason = `${err.error.code}: ${err.error.message}`;
  else if (health.lastSuccessAt === null) reason = "No answer yet";
  const flow = client?.flowState();
  return {
    environment,
    connected: client !== null && !failing && health.lastSuccessAt !== null,
    reason,
    lastError: err ? { code: err.error.code, message: err.error.message, at: err.at } : null,
    lastSuccessAt: health.lastSuccessAt,
    requestsInLastMinute: client ? client.requestsInLastMinute() : 0,
    ratePerSecond: flow ? Math.round(flow.ratePerSecond * 10) / 10 : 0,
    rateLimitedInLastMinute: flow ? flow.rateLimitedInLastMinute : 0,
    paused: input.paused,
    activeTopics: input.activeTopics,
  };
}

/** The status's listeners: each told at once, on every change, and every `tickMs` while any listens. */
export class StatusListeners {
  private readonly listeners = new Map<number, (status: FeedStatus) => void>();
  private nextId = 1;
  private timer: TimerHandle | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly tickMs: number,
    private readonly current: () => FeedStatus,
  ) {}

  add(listener: (status: FeedStatus) => void): () => void {
    const id = this.nextId++;
    this.listeners.set(id, listener);
    safely(listener, this.current());
    this.tick();
    return () => {
      this.listeners.delete(id);
      if (this.listeners.size === 0 && this.timer !== null) {
        this.clock.clearTimeout(this.timer);
        this.timer = null;
      }
    };
  }

  emit(): void {
    if (this.listeners.size === 0) return;
    const status = this.current();
    for (const listener of this.listeners.values()) safely(listener, status);
  }

  clear(): void {
    this.listeners.clear();
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private tick(): void {
    if (this.timer !== null || this.listeners.size === 0) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.emit();
      this.tick();
    }, this.tickMs);
  }
}

/** Calls one listener; one broken subscriber must not stop the others. */
export function safely<A>(listener: (arg: A) => void, arg: A): void {
  try {
    listener(arg);
  } catch {
    // One broken subscriber must not stop the others.
  }
}
