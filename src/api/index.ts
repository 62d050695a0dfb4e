// The public surface of src/api: the client, its errors, its schemas and types.
export * from "./client";
export * from "./environment";
export * from "./errors";
export * from "./schemas";
export type { ApiResult, AttemptEvent, CallKind, RetryPolicy, SenderOptions, TradeEvent } from "./sender";
export type { FlowState, Priority, RateOptions } from "./throttle";
export { DEFAULT_RATE } from "./throttle";
export type { HttpRequest, HttpResponse, HttpTransport } from "./transport";
export { fetchTransport } from "./transport";
