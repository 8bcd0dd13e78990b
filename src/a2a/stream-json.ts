// One item of a task stream as JSON, between the binding's head and tail, in each family's shapes. Output comes as
// the dispatcher's event and is put in wire shape only here: large output goes out as bytes escaped from what the
// command wrote, its text never decoded (src/a2a/output-json.ts); the rest is wire objects written as text.
import type { DispatcherEvent, OutputEvent } from "../core/events.js";
import type { WireJson } from "./json-string.js";
import { outputJson } from "./output-json.js";
import * as v03 from "./v0_3/codec.js";
import { eventJson } from "./v0_3/event-json.js";
import * as v10 from "./v1_0/codec.js";
import { streamResponseJson } from "./v1_0/event-json.js";

/** An output event not yet in wire shape (wire objects have no `type`). */
const isOutput = (item: unknown): item is OutputEvent => (item as { type?: unknown }).type === "output";

/** A dispatcher event as a 0.3 stream item: output stays the event (undefined when it holds no text). */
export function streamItem03(event: DispatcherEvent): unknown {
  return event.type === "output" ? (event.data.length > 0 ? event : undefined) : v03.eventOf(event);
}

/** A dispatcher event as a 1.0 stream item: output stays the event (undefined when it holds no text). */
export function streamItem10(event: DispatcherEvent): unknown {
  return event.type === "output" ? (event.data.length > 0 ? event : undefined) : v10.streamResponseOf(event);
}

/** A 0.3 wire event, or an output event in 0.3 shape. */
export function itemJson03(item: unknown, head: string, tail: string): WireJson {
  if (!isOutput(item)) return `${head}${eventJson(item as v03.WireEvent)}${tail}`;
  const asText = () => `${head}${eventJson(v03.eventOf(item) as v03.WireEvent)}${tail}`;
  return outputJson(item, v03.eventOf, head, tail) ?? asText();
}

/** A 1.0 StreamResponse, or an output event in 1.0 shape. */
export function itemJson10(item: unknown, head: string, tail: string): WireJson {
  if (!isOutput(item)) return `${head}${streamResponseJson(item as v10.StreamResponse1)}${tail}`;
  const asText = () => `${head}${streamResponseJson(v10.streamResponseOf(item) as v10.StreamResponse1)}${tail}`;
  return outputJson(item, v10.streamResponseOf, head, tail) ?? asText();
}
