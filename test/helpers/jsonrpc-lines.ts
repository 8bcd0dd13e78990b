// What a JSON-RPC 2.0 server may write on a line (CONTRACT 5.1): a response, a batch of them, or a notification.

/** Why a parsed stdout line is not JSON-RPC 2.0 that a server may send, or undefined when it is. */
export function notJsonRpc(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    if (value.length === 0) return "an empty batch";
    for (const item of value) {
      const problem = notOne(item);
      if (problem) return `in a batch: ${problem}`;
    }
    return undefined;
  }
  return notOne(value);
}

function notOne(item: unknown): string | undefined {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return "not an object";
  const message = item as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") return 'no "jsonrpc": "2.0"';
  if ("method" in message) {
    if (typeof message.method !== "string") return "method is not a string";
    if ("id" in message) return "a request from the server (it only answers and notifies)";
    return undefined;
  }
  const id = message.id;
  if (!(id === null || typeof id === "string" || typeof id === "number")) return "a response without a valid id";
  const hasResult = "result" in message;
  const hasError = "error" in message;
  if (hasResult === hasError) return "a response needs exactly one of result and error";
  if (hasError) {
    const error = message.error as Record<string, unknown> | null;
    if (typeof error !== "object" || error === null) return "error is not an object";
    if (!Number.isInteger(error.code)) return "error.code is not an integer";
    if (typeof error.message !== "string") return "error.message is not a string";
  }
  return undefined;
}
