// One send, written as raw text, over each binding and method family (CONTRACT 9.1 tests): stdio (0.3 and 1.0
// names, service parameters in params.metadata), HTTP JSON-RPC (both families, A2A-Extensions header) and HTTP+JSON.
// The answer comes back as the text after the JSON-RPC id (or the REST body), so two answers compare byte for byte.
import type { RpcBridge } from "./bridge.js";
import type { HttpServer } from "./http-server.js";
import { messageV1 } from "./v1-requests.js";
import type { Wire } from "./wire.js";

export const RUNTIME_URI = "https://agentic-sandbox.aiwg.io/extensions/runtime/v1";
export const IDEMPOTENCY_URI = "https://agentic-sandbox.aiwg.io/extensions/idempotency/v1";
export const HITL = "https://agentic-sandbox.aiwg.io/extensions/hitl-prompt/v1";
export const BOTH = [RUNTIME_URI, IDEMPOTENCY_URI];

export interface SendAnswer {
  status: number;
  /** The answer after the id: `"result":…}` or `"error":…}` (the whole body on REST). */
  text: string;
  body: Wire;
  replayed: boolean;
}

export interface Driver {
  name: string;
  family: "0.3" | "1.0";
  /**
   * Sends `message` (0.3 shape; turned into 1.0 for the 1.0 families) with `extensions` activated; `spaced` writes
   * the request with its keys in reverse order and spaces between tokens: the same request to the hash.
   */
  send(
    message: Record<string, unknown>,
    options?: { extensions?: string[]; spaced?: boolean; configuration?: Record<string, unknown> },
  ): Promise<SendAnswer>;
}

/** JSON with every object's keys in reverse order and spaces around every token. */
export function spaced(value: unknown): string {
  if (Array.isArray(value)) return `[ ${value.map(spaced).join(" , ")} ]`;
  if (value !== null && typeof value === "object")
    return `{ ${Object.entries(value)
      .reverse()
      .map(([key, field]) => `${JSON.stringify(key)} : ${spaced(field)}`)
      .join(" , ")} }`;
  return JSON.stringify(value);
}

const afterId = (text: string) => text.slice(text.search(/,\s*"(result|error)"\s*:/) + 1);

let ids = 0;

function paramsOf(family: "0.3" | "1.0", message: Record<string, unknown>, configuration?: Record<string, unknown>) {
  const params: Record<string, unknown> = { message: family === "1.0" ? messageV1(message) : message };
  if (configuration) params.configuration = configuration;
  return params;
}

export function stdioDriver(bridge: () => RpcBridge, family: "0.3" | "1.0"): Driver {
  return {
    name: `stdio ${family}`,
    family,
    async send(message, options = {}) {
      const params = paramsOf(family, message, options.configuration);
      if (options.extensions)
        params.metadata = { "a2a-service-parameters": { "A2A-Extensions": options.extensions.join(", ") } };
      const id = `idem-${++ids}`;
      const request = { jsonrpc: "2.0", id, method: family === "1.0" ? "SendMessage" : "message/send", params };
      bridge().sendLine(options.spaced ? spaced(request) : JSON.stringify(request));
      const body = await bridge().responseTo(id, 30_000);
      const text = bridge().rawText.get(id) as string;
      return { status: 200, text: afterId(text), body, replayed: false };
    },
  };
}

export function httpRpcDriver(server: () => HttpServer, family: "0.3" | "1.0"): Driver {
  return {
    name: `HTTP JSON-RPC ${family}`,
    family,
    async send(message, options = {}) {
      const params = paramsOf(family, message, options.configuration);
      const id = `idem-${++ids}`;
      const request = { jsonrpc: "2.0", id, method: family === "1.0" ? "SendMessage" : "message/send", params };
      const answer = await server().fetch("/a2a/jsonrpc", {
        method: "POST",
        headers: options.extensions ? { "A2A-Extensions": options.extensions.join(", ") } : {},
        body: options.spaced ? spaced(request) : JSON.stringify(request),
        timeoutMs: 30_000,
      });
      return {
        status: answer.status,
        text: afterId(answer.text),
        body: answer.body,
        replayed: answer.headers["idempotent-replayed"] === "true",
      };
    },
  };
}

export function restDriver(server: () => HttpServer): Driver {
  return {
    name: "HTTP+JSON",
    family: "1.0",
    async send(message, options = {}) {
      const params = paramsOf("1.0", message, options.configuration);
      const answer = await server().fetch("/a2a/rest/message:send", {
        method: "POST",
        headers: options.extensions ? { "A2A-Extensions": options.extensions.join(", ") } : {},
        body: options.spaced ? spaced(params) : JSON.stringify(params),
        timeoutMs: 30_000,
      });
      return {
        status: answer.status,
        text: answer.text,
        body: answer.body,
        replayed: answer.headers["idempotent-replayed"] === "true",
      };
    },
  };
}

/** A driver for each binding and family: stdio (0.3, 1.0), HTTP JSON-RPC (1.0, 0.3), HTTP+JSON. */
export function everyDriver(bridge: () => RpcBridge, server: () => HttpServer): Driver[] {
  return [
    stdioDriver(bridge, "0.3"),
    stdioDriver(bridge, "1.0"),
    httpRpcDriver(server, "1.0"),
    httpRpcDriver(server, "0.3"),
    restDriver(server),
  ];
}

/** The Task of an answer, in any family and binding. */
export function taskOfAnswer(answer: SendAnswer): Wire {
  const result = answer.body?.result ?? answer.body;
  return result?.task ?? result;
}

/** The task once `accept` holds for it, read from a SubscribeToTask stream over HTTP+JSON (no polling). */
export async function taskWhen(server: HttpServer, id: string, accept: (task: Wire) => boolean): Promise<Wire> {
  for (;;) {
    const reader = await server.stream(`/a2a/rest/tasks/${id}:subscribe`, { method: "POST" });
    let task: Wire | undefined;
    try {
      for (let event = await reader.next(20_000); event; event = await reader.next(20_000)) {
        const item = event.data;
        if (item?.task) task = item.task;
        else if (item?.statusUpdate && task) task = { ...task, status: item.statusUpdate.status };
        if (task && accept(task)) return await server.call("GetTask", { id });
      }
    } finally {
      reader.destroy();
    }
    // The stream ended (the task ended, or -32004 for an ended task): what it is now decides.
    const now = await server.call("GetTask", { id });
    if (accept(now)) return now;
    throw new Error(`task ${id} ended without the state looked for: ${JSON.stringify(now.status)}`);
  }
}
