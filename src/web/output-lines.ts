// A task's stdout and stderr as lines for the page (CONTRACT section 10): each stream is cut into lines on its own
// (a line is only complete at its newline), with the colour (SGR) state that was active where the line began, so
// that any one line can be drawn alone. The page draws only the lines in view (src/web/output-view.tsx), which keeps
// a task of 100 000 lines responsive; at most MAX_LINES are kept, the oldest dropped first and counted.
// Pure, so it is tested without a browser.

export type StreamName = "stdout" | "stderr";

export interface OutputLine {
  text: string;
  stream: StreamName;
  /** SGR sequences in effect at the line's start, to draw it alone. */
  sgr: string;
}

const MAX_LINES = 200_000;
/** A line longer than this is cut (the rest is counted, not drawn): one huge line must not stall the page. */
const MAX_LINE_CHARS = 10_000;
/** SGR sequences kept per stream: enough for any real colour state, bounded for hostile output. */
const MAX_SGR = 8;

// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences start with ESC or the 8-bit CSI
const SGR = /(?:\u001b\[|\u009b)([0-9;:]*)m/g;

interface StreamState {
  /** The unfinished last line. */
  open: string;
  openSgr: string;
  /** SGR sequences in effect at the end of what has been read. */
  sgr: string[];
}

export class OutputLines {
  private lines: OutputLine[] = [];
  /** Index of the first kept line within `lines` (dropping from the front without copying every time). */
  private head = 0;
  /** Lines dropped from the front since the start. */
  dropped = 0;
  /** Characters cut from lines over MAX_LINE_CHARS. */
  cutChars = 0;
  private readonly streams: Record<StreamName, StreamState> = {
    stdout: { open: "", openSgr: "", sgr: [] },
    stderr: { open: "", openSgr: "", sgr: [] },
  };
  /** Increases with every change: the view redraws when it moves. */
  version = 0;

  constructor(private readonly maxLines = MAX_LINES) {}

  /** Forgets everything (a new Task holds the output again). */
  reset(): void {
    this.lines = [];
    this.head = 0;
    this.dropped = 0;
    this.cutChars = 0;
    for (const state of Object.values(this.streams)) {
      state.open = "";
      state.openSgr = "";
      state.sgr = [];
    }
    this.version++;
  }

  /** Complete lines ever read, dropped ones included (what the bench counts). */
  get completed(): number {
    return this.dropped + this.lines.length - this.head;
  }

  append(stream: StreamName, text: string): void {
    if (text === "") return;
    const state = this.streams[stream];
    let from = 0;
    for (let nl = text.indexOf("\n", from); nl >= 0; nl = text.indexOf("\n", from)) {
      const piece = text.slice(from, nl);
      const line = state.open === "" ? piece : state.open + piece;
      this.push({ text: this.cut(line), stream, sgr: state.open === "" ? state.sgr.join("") : state.openSgr });
      this.track(state, piece);
      state.open = "";
      from = nl + 1;
    }
    if (from < text.length) {
      const rest = text.slice(from);
      if (state.open === "") state.openSgr = state.sgr.join("");
      state.open = this.cut(state.open + rest);
      this.track(state, rest);
    }
    this.version++;
  }

  /** The lines to draw: the kept complete lines, then each stream's unfinished line (a prompt waits there). */
  get length(): number {
    return this.lines.length - this.head + this.openLines().length;
  }

  line(index: number): OutputLine | undefined {
    const kept = this.lines.length - this.head;
    if (index < kept) return this.lines[this.head + index];
    return this.openLines()[index - kept];
  }

  private openLines(): OutputLine[] {
    const open: OutputLine[] = [];
    for (const stream of ["stdout", "stderr"] as const) {
      const state = this.streams[stream];
      if (state.open !== "") open.push({ text: state.open, stream, sgr: state.openSgr });
    }
    return open;
  }

  private push(line: OutputLine): void {
    this.lines.push(line);
    if (this.lines.length - this.head > this.maxLines) {
      this.head++;
      this.dropped++;
      // Compact now and then: amortised O(1) per line.
      if (this.head > this.maxLines / 2) {
        this.lines = this.lines.slice(this.head);
        this.head = 0;
      }
    }
  }

  private cut(line: string): string {
    if (line.length <= MAX_LINE_CHARS) return line;
    this.cutChars += line.length - MAX_LINE_CHARS;
    return line.slice(0, MAX_LINE_CHARS);
  }

  /** Follows the colour state through `text`: a reset clears it, anything else adds to it. */
  private track(state: StreamState, text: string): void {
    if (text.indexOf("\u001b[") < 0 && text.indexOf("\u009b") < 0) return;
    SGR.lastIndex = 0;
    for (let match = SGR.exec(text); match; match = SGR.exec(text)) {
      const params = match[1] ?? "";
      if (params === "" || params === "0") state.sgr = [];
      else {
        state.sgr.push(`\u001b[${params}m`);
        if (state.sgr.length > MAX_SGR) state.sgr.shift();
      }
    }
  }
}
