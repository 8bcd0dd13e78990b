// What `run --server` sends for a file: the envelope it holds (any of the three shapes of CONTRACT section 2) in a
// user message's metadata[ADAPTER], as the file has it. The server validates it: a rejection is its word (exit 3).
import { shapeOf } from "../a2a/input-file.js";
import { ADAPTER_URI } from "../core/uris.js";
import type { Outbound } from "./remote-task.js";

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** The envelope and the message text of a parsed file; undefined when it holds no envelope to send. */
export function outboundOf(value: unknown, textLine: boolean): Outbound | undefined {
  const top = record(value);
  if (!top) return undefined;
  const shape = shapeOf(top);
  const message = shape === "send-params" ? record(top.message) : shape === "message" ? top : undefined;
  const envelope = shape === "envelope" ? top : record(message?.metadata)?.[ADAPTER_URI];
  if (envelope === undefined) return undefined;
  const parts = Array.isArray(message?.parts) ? message.parts : [];
  const text =
    parts
      .map((part) => record(part)?.text)
      .filter((t): t is string => typeof t === "string")
      .join("\n") || "run";
  // `--input-mode text-line` turns prompts on for an envelope without the field, as a local run does (CONTRACT 4).
  const object = record(envelope);
  const sent =
    textLine && object && object.input_mode === undefined ? { ...object, input_mode: "text-line" } : envelope;
  return { envelope: sent, text };
}

/** The envelope asks for text-line prompts (then the card must declare hitl-prompt/v1). */
export function wantsTextLine(outbound: Outbound): boolean {
  return record(outbound.envelope)?.input_mode === "text-line";
}

/** What the header names as running: the request file of the envelope's command, else the file. */
export function requestOf(outbound: Outbound, file: string): string {
  const command = record(outbound.envelope)?.command;
  return Array.isArray(command) && typeof command[3] === "string" ? command[3] : file;
}
