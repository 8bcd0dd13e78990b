// What a terminal would show of some output whose escape sequences are already removed (CONTRACT section 4): a
// backspace moves the cursor back one character, a lone carriage return to the start of the line, and what
// follows overwrites. Each line also says what was written since the cursor last moved back, because text that
// was overwritten on screen, or written over afterwards, is never a prompt.

export interface ScreenLine {
  /** What the line shows, one character a cell. */
  shown: string;
  /** The run of characters written last on this line (since the cursor last moved back), as it shows now. */
  latest: string;
  /** No line break after it: the cursor is still on this line. */
  open: boolean;
}

/** Characters a terminal does not print (tab, line feed, carriage return and backspace are handled apart). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this matches
const UNPRINTED = /^[\u0000-\u0007\u000b\u000c\u000e-\u001f\u007f-\u009f]$/;

export function screenLines(text: string): ScreenLine[] {
  const lines: ScreenLine[] = [];
  let cells: string[] = [];
  let cursor = 0;
  // The cells [latestStart, latestEnd) were written last; `movedBack`: the next write starts a new run.
  let latestStart = 0;
  let latestEnd = 0;
  let movedBack = false;
  const endLine = (open: boolean) => {
    lines.push({ shown: cells.join(""), latest: cells.slice(latestStart, latestEnd).join(""), open });
    cells = [];
    cursor = latestStart = latestEnd = 0;
    movedBack = false;
  };
  for (const char of text) {
    if (char === "\n") endLine(false);
    else if (char === "\r") {
      // A carriage return right before a line feed changes nothing on screen; a lone one returns to column 0.
      cursor = 0;
      movedBack = true;
    } else if (char === "\b") {
      cursor = Math.max(0, cursor - 1);
      movedBack = true;
    } else if (!UNPRINTED.test(char)) {
      if (movedBack) {
        latestStart = cursor;
        movedBack = false;
      }
      cells[cursor++] = char;
      latestEnd = cursor;
    }
  }
  endLine(true);
  return lines;
}
