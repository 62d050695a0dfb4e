// The HTTP transport interface and its fetch implementation (browser fetch in Office, global fetch in Node 20).

export interface HttpRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export interface HttpResponse {
  status: number;
  header(name: string): string | null;
  body: string;
}

/** Sends one request and returns the raw answer; throws only when no answer arrived. */
export type HttpTransport = (request: HttpRequest) => Promise<HttpResponse>;

export const fetchTransport: HttpTransport = async (request) => {
  const response = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: request.signal,
  });
  const body = await response.text();
  return { status: response.status, header: (name) => response.headers.get(name), body };
};
