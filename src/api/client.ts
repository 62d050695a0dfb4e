// HedgingClient: one thin method per Hedging Service v2 endpoint, over the request sender.
import * as z from "zod/mini";
import { HedgingApiError } from "./errors";
import { environmentOf, keyFingerprint, maskKey, normaliseBaseUrl, type Environment } from "./environment";
import {
  accountSchema,
  addByIdRequestSchema,
  addByIdResultSchema,
  addResultOf,
  addRequestSchema,
  addResultSchema,
  closeRequestSchema,
  closeResultSchema,
  closedHedgeSchema,
  decreaseRequestSchema,
  decreaseResultSchema,
  fieldErrors,
  hedgeSchema,
  historyQuerySchema,
  listQuerySchema,
  marketSchema,
  openHedgeResultSchema,
  openRequestSchema,
  positionSchema,
  pricesSchema,
  quoteRequestSchema,
  quoteSchema,
  type AddByIdRequest,
  type AddRequest,
  type CloseRequest,
  type DecreaseRequest,
  type HistoryQuery,
  type ListQuery,
  type OpenRequest,
  type QuoteRequest,
} from "./schemas";
import { RequestSender, type ApiResult, type CallKind, type SenderOptions, type TradeEvent } from "./sender";
import type { FlowState } from "./throttle";

export interface ClientOptions extends Omit<SenderOptions, "baseUrl" | "apiKey"> {
  apiKey: string;
  baseUrl: string;
}

interface MutationOptions {
  /** Reuse the key of an earlier attempt of the same action; a new one is made when absent. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

type MutationResult<T> = ApiResult<T> & { idempotencyKey: string };

/** A fresh Idempotency-Key for one logical action. */
export function newIdempotencyKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === "function") return c.randomUUID();
  const bytes = c.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Checks a request body or query before anything is sent; a bad one is a validation_error naming each field. */
function checked<S extends z.ZodMiniType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fields = fieldErrors(result.error, value);
  const list = Object.entries(fields)
    .map(([field, problem]) => `${field} ${problem}`)
    .join("; ");
  throw new HedgingApiError({
    code: "validation_error",
    status: null,
    details: { fields },
    message: `${what}: ${list}. Nothing was sent.`,
  });
}

export class HedgingClient {
  readonly environment: Environment;
  readonly maskedKey: string;
  /** Tells this API key from another (see keyFingerprint); never the key. */
  readonly keyId: string;
  readonly baseUrl: string;
  private readonly sender: RequestSender;
  /** The kind of this object's reads: "poll" only on the view `polling()` returns. */
  private kind: CallKind = "action";
  private pollView: HedgingClient | null = null;

  constructor(options: ClientOptions) {
    this.environment = environmentOf(options.apiKey);
    this.maskedKey = maskKey(options.apiKey);
    this.keyId = keyFingerprint(options.apiKey);
    this.baseUrl = normaliseBaseUrl(options.baseUrl);
    this.sender = new RequestSender({ ...options, baseUrl: this.baseUrl });
  }

  /**
   * The same client (same key, sender, rate and counts) for a feed's periodic reads: each read is one attempt (the
   * feed hub does the backing off) and waits behind every action. State-changing calls made through it stay actions.
   */
  polling(): HedgingClient {
    // The view's own pollView is itself: polling() of the view is the view.
    if (!this.pollView) {
      // An object whose prototype is this client: it shares every field and differs only in its own `kind`.
      const view = Object.create(this) as HedgingClient;
      view.kind = "poll";
      view.pollView = view;
      this.pollView = view;
    }
    return this.pollView;
  }

  /** Requests sent in the last minute, retries included. */
  requestsInLastMinute(): number {
    return this.sender.requestsInLastMinute();
  }

  /** The request rate allowed now (learned from the service's answers), 429s in the last minute, and what is waiting. */
  flowState(): FlowState {
    return this.sender.flowState();
  }

  /** Called after each open, add, reduce or close that may have changed the account (the feeds refresh what it changes). */
  onTrade(listener: (event: TradeEvent) => void): () => void {
    return this.sender.onTrade(listener);
  }

  // ---- market data ----

  markets(signal?: AbortSignal) {
    return this.sender.send({ kind: this.kind, method: "GET", path: "/markets", schema: z.array(marketSchema), signal });
  }

  prices(market: string, signal?: AbortSignal) {
    return this.sender.send({ kind: this.kind, method: "GET", path: "/prices", query: { market }, schema: pricesSchema, signal });
  }

  // ---- account ----

  account(signal?: AbortSignal) {
    return this.sender.send({ kind: this.kind, method: "GET", path: "/account", schema: accountSchema, signal });
  }

  positions(signal?: AbortSignal) {
    return this.sender.send({ kind: this.kind, method: "GET", path: "/positions", schema: z.array(positionSchema), signal });
  }

  // ---- quotes ----

  async quote(request: QuoteRequest, signal?: AbortSignal) {
    const body = checked(quoteRequestSchema, request, "Quote request");
    return this.sender.send({ kind: this.kind, method: "POST", path: "/quotes", body, schema: quoteSchema, signal });
  }

  // ---- hedges: state-changing, each with an Idempotency-Key reused across retries ----

  async open(request: OpenRequest, options: MutationOptions = {}) {
    return this.mutate("/hedges", checked(openRequestSchema, request, "Open request"), openHedgeResultSchema, options);
  }

  async add(request: AddRequest, options: MutationOptions = {}) {
    return this.mutate("/hedges/add", checked(addRequestSchema, request, "Add request"), addResultSchema, options);
  }

  async addById(hedgeId: string, request: AddByIdRequest, options: MutationOptions = {}) {
    const body = checked(addByIdRequestSchema, request, "Add request");
    // The spec does not show this answer: an add result or the hedge are both read (addByIdResultSchema).
    const result = await this.mutate(`/hedges/${this.idSegment(hedgeId)}/add`, body, addByIdResultSchema, options);
    return { ...result, data: addResultOf(result.data, body.additional_notional_usd) };
  }

  async decrease(request: DecreaseRequest, options: MutationOptions = {}) {
    return this.mutate("/hedges/decrease", checked(decreaseRequestSchema, request, "Reduce request"), decreaseResultSchema, options);
  }

  async close(request: CloseRequest, options: MutationOptions = {}) {
    return this.mutate("/hedges/close", checked(closeRequestSchema, request, "Close request"), closeResultSchema, options);
  }

  // ---- hedges: reading ----

  async list(query: ListQuery = {}, signal?: AbortSignal) {
    const q = checked(listQuerySchema, query, "Hedge list query");
    return this.sender.send({ kind: this.kind, method: "GET", path: "/hedges", query: q, schema: z.array(hedgeSchema), signal });
  }

  async get(hedgeId: string, signal?: AbortSignal) {
    return this.sender.send({ kind: this.kind, method: "GET", path: `/hedges/${this.idSegment(hedgeId)}`, schema: hedgeSchema, signal });
  }

  async history(query: HistoryQuery = {}, signal?: AbortSignal) {
    const q = checked(historyQuerySchema, query, "History query");
    return this.sender.send({
      kind: this.kind,
      method: "GET",
      path: "/hedges/history",
      query: q,
      schema: z.array(closedHedgeSchema),
      signal,
    });
  }

  private async mutate<S extends z.ZodMiniType>(
    path: string,
    body: unknown,
    schema: S,
    options: MutationOptions,
  ): Promise<MutationResult<z.output<S>>> {
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    // Every state-changing request carries its own key: an empty or blank one would go out without it and could act twice.
    if (typeof idempotencyKey !== "string" || idempotencyKey === "" || idempotencyKey.trim() !== idempotencyKey) {
      throw new HedgingApiError({
        code: "validation_error",
        status: null,
        details: { fields: { "Idempotency-Key": "must be a non-blank key without surrounding spaces" } },
        message: `POST ${path} needs an Idempotency-Key and was given a blank one. Nothing was sent.`,
      });
    }
    const result = await this.sender.send({ method: "POST", path, body, schema, idempotencyKey, signal: options.signal });
    return { ...result, idempotencyKey };
  }

  private idSegment(hedgeId: string): string {
    if (typeof hedgeId !== "string" || hedgeId.trim() === "") {
      throw new HedgingApiError({
        code: "validation_error",
        status: null,
        details: { fields: { hedge_id: "is required" } },
        message: "hedge_id is required. Nothing was sent.",
      });
    }
    return encodeURIComponent(hedgeId.trim());
  }
}
