// Server-Sent Events read from a fetch body (the console sends an Authorization header, which EventSource cannot):
// text in, events out. Only what the server sends is handled: `id:`, `event:`, `data:` and comment lines
// (CONTRACT 8.4). Pure, so it is tested without a browser.

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

export class SseParser {
  private buffer = "";
  private cr = "";
  /** Where the search for the next blank line resumes: a large event arriving in pieces is scanned once. */
  private scanned = 0;

  /** The events completed by `text`, in order. */
  push(text: string): SseEvent[] {
    // A CR at the end of a chunk may be the first half of a CRLF: it waits for the next chunk.
    let chunk = this.cr + text;
    this.cr = "";
    if (chunk.endsWith("\r")) {
      this.cr = "\r";
      chunk = chunk.slice(0, -1);
    }
    this.buffer += chunk.includes("\r") ? chunk.replace(/\r\n?/g, "\n") : chunk;
    const events: SseEvent[] = [];
    let from = 0;
    for (;;) {
      const end = this.buffer.indexOf("\n\n", Math.max(from, this.scanned - 1));
      if (end < 0) break;
      const event = parseBlock(this.buffer.slice(from, end));
      if (event) events.push(event);
      from = end + 2;
      this.scanned = from;
    }
    this.buffer = this.buffer.slice(from);
    this.scanned = Math.max(0, this.buffer.length - 1);
    return events;
  }
}

function parseBlock(block: string): SseEvent | undefined {
  const data: string[] = [];
  const event: SseEvent = { data: "" };
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "id") event.id = value;
    else if (field === "event") event.event = value;
  }
  if (data.length === 0) return undefined;
  event.data = data.join("\n");
  return event;
}
