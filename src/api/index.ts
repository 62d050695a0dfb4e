// The public surface of src/api: the client, its errors, its schemas and types.
export * from "./client";
export * from "./environment";
export * from "./errors";
export * from "./schemas";
export type { ApiResult, AttemptEvent, RetryPolicy, SenderOptions } from "./sender";
export type { HttpRequest, HttpResponse, HttpTransport } from "./transport";
export { fetchTransport } from "./transport";
