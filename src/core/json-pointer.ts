// RFC 6901 JSON Pointers: every problem we report points into the document it came from.
export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => `/${String(s).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

export function joinPointer(base: string, ...segments: Array<string | number>): string {
  return base + pointer(...segments);
}
