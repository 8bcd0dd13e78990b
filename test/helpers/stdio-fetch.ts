// A `fetch` that carries each JSON-RPC body of an HTTP client over the stdio bridge, so an HTTP-only A2A client (the
// official SDK) can drive `serve --stdio`. Service-parameter headers become `params.metadata["a2a-service-parameters"]`
// (CONTRACT 5.2, 7.6); a streaming call's result and its `tasks/event` notifications become an SSE body of JSON-RPC
// responses with the request's id, as on HTTP (CONTRACT 7.3, 8.4).
import type { RpcBridge } from "./bridge.js";
import { closesV1, withService } from "./v1-requests.js";
import { taskIdOf, type Wire } from "./wire.js";

const SERVICE_HEADERS = ["A2A-Version", "A2A-Extensions"];

export interface StdioFetchLog {
  /** Every JSON-RPC request the client sent, as the bridge got it. */
  requests: Wire[];
}

export function stdioFetch(bridge: RpcBridge, log: StdioFetchLog = { requests: [] }): typeof fetch {
  return async (_url, init) => {
    const body = JSON.parse(String(init?.body)) as { id: string | number; method: string; params?: unknown };
    const headers = new Headers(init?.headers);
    const service: Record<string, string> = {};
    for (const name of SERVICE_HEADERS) {
      const value = headers.get(name);
      if (value !== null) service[name] = value;
    }
    const params = withService((body.params ?? {}) as Record<string, unknown>, service);
    log.requests.push({ method: body.method, params });
    const response = await bridge.callRaw(body.method, params);
    const answer = { ...response, id: body.id };
    if (headers.get("Accept") !== "text/event-stream" || response.error)
      return new Response(JSON.stringify(answer), { headers: { "Content-Type": "application/json" } });
    return new Response(sse(bridge, body.id, response.result), { headers: { "Content-Type": "text/event-stream" } });
  };
}

/** `data: <JSON-RPC response>` events: the stream's result, then its notifications until the one that closes it. */
function sse(bridge: RpcBridge, id: string | number, first: Wire): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const event = (result: Wire) => encoder.encode(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`);
  const taskId = taskIdOf(first) as string;
  let sentFirst = false;
  return new ReadableStream({
    async pull(controller) {
      if (!sentFirst) {
        sentFirst = true;
        controller.enqueue(event(first));
        return;
      }
      const next = await bridge.nextEvent(taskId);
      controller.enqueue(event(next));
      if (closesV1(next)) controller.close();
    },
  });
}
