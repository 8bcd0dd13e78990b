// RFC 6901 JSON Pointers: every problem we report points into the document it came from.
export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => `/${String(s).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

export function joinPointer(base: string, ...segments: Array<string | number>): string {
  return base + pointer(...segments);
}

/** The reference tokens of a JSON Pointer, or undefined when `text` is not one. */
export function parsePointer(text: string): string[] | undefined {
  if (text === "") return [];
  if (!text.startsWith("/")) return undefined;
  const tokens: string[] = [];
  for (const raw of text.slice(1).split("/")) {
    if (/~(?![01])/.test(raw)) return undefined;
    tokens.push(raw.replaceAll("~1", "/").replaceAll("~0", "~"));
  }
  return tokens;
}

/**
 * A pointer as a person reads a path: `message.parts[0].text`. Below the key `envelopeKey` (the extension's
 * metadata key) the path starts again at `envelope`, as in `envelope.timeout_seconds`.
 */
export function readablePath(path: string, envelopeKey: string): string {
  const tokens = parsePointer(path) ?? [path];
  const start = tokens.lastIndexOf(envelopeKey);
  let text = start === -1 ? "" : "envelope";
  for (const token of start === -1 ? tokens : tokens.slice(start + 1)) {
    if (/^(?:0|[1-9]\d*)$/.test(token)) text += `[${token}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(token)) text += text === "" ? token : `.${token}`;
    else text += `[${JSON.stringify(token)}]`;
  }
  return text;
}
