// Wire events as JSON text, the same text JSON.stringify gives, made faster for output chunks. A chunk is almost all
// text, and on Node 20 JSON.stringify escapes a long string at about 500 MiB/s, a regex replace at about 700 MiB/s;
// replaceAll and includes with a one-character string run at memchr speed (docs/benchmarks.md).
import type { WireArtifact, WireEvent, WireTextPart } from "./codec.js";

/** What JSON.stringify writes for each character it must escape (control characters, `"` and `\`). */
const ESCAPES: readonly string[] = Array.from({ length: 0x5d }, (_, code) =>
  JSON.stringify(String.fromCharCode(code)).slice(1, -1),
);
/** U+0000–U+001F, `"` and `\`, written as "anything but the rest": V8 scans a negated class about 1.3 × faster. */
const MUST_ESCAPE = /[^\u0020\u0021\u0023-\u005b\u005d-\uffff]/g;
/** The characters output rarely holds: the control characters but tab, newline and carriage return. */
const RARE = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)).filter((c) => !"\t\n\r".includes(c));

const escapeOne = (char: string) => ESCAPES[char.charCodeAt(0)] as string;

/** `JSON.stringify(text)`, faster on long strings. */
export function jsonString(text: string): string {
  // A lone surrogate is written as a \u escape, which neither way below looks for; such text is rare.
  if (!text.isWellFormed()) return JSON.stringify(text);
  if (RARE.some((char) => text.includes(char))) return `"${text.replace(MUST_ESCAPE, escapeOne)}"`;
  // The usual text: five characters to escape, each replaced at memchr speed (the backslash first).
  const escaped = text
    .replaceAll("\\", "\\\\")
    .replaceAll('"', '\\"')
    .replaceAll("\n", "\\n")
    .replaceAll("\r", "\\r")
    .replaceAll("\t", "\\t");
  return `"${escaped}"`;
}

const field = (name: string, value: unknown) => (value === undefined ? "" : `,"${name}":${JSON.stringify(value)}`);

function partJson(part: WireTextPart): string {
  return `{"kind":"text","text":${jsonString(part.text)}${field("metadata", part.metadata)}}`;
}

function artifactJson(artifact: WireArtifact): string {
  const parts = artifact.parts.map(partJson).join(",");
  const head = `{"artifactId":${JSON.stringify(artifact.artifactId)}${field("name", artifact.name)}`;
  return `${head},"parts":[${parts}]${field("metadata", artifact.metadata)}}`;
}

/** `JSON.stringify(event)`: the same text, key for key (test/unit/event-json.test.ts compares them). */
export function eventJson(event: WireEvent): string {
  if (event.kind !== "artifact-update") return JSON.stringify(event);
  const ids = `"taskId":${JSON.stringify(event.taskId)},"contextId":${JSON.stringify(event.contextId)}`;
  const artifact = artifactJson(event.artifact);
  return `{"kind":"artifact-update",${ids},"artifact":${artifact},"append":${event.append},"lastChunk":${event.lastChunk}}`;
}

/** The `tasks/event` notification that carries `event`, as one line of JSON (without the newline). */
export function notificationJson(event: WireEvent): string {
  return `{"jsonrpc":"2.0","method":"tasks/event","params":${eventJson(event)}}`;
}
