// Lines of the screen that must fit the terminal's width without the terminal wrapping them mid-word: the header
// is laid out in pieces joined by " · ", a piece is never split (a task id stays whole, so it can be copied), and a
// path that does not fit is shortened from the left with an ellipsis, where its last parts say the most
// (docs/reference.md, "The screen").
import stringWidth from "string-width";

export interface Piece {
  /** Written before the text and never shortened ("in ", "task "). */
  prefix?: string;
  text: string;
  /** The text is a path: it may be shortened from the left. */
  path?: boolean;
  /** What joins it to the piece before it on the same line (" · " unless told). */
  joiner?: string;
  /** Colour or style for the whole piece (applied after the layout, so widths count only the text). */
  paint?: (text: string) => string;
}

const ELLIPSIS = "…";
/** A path is not shortened below this many columns on a line that has other pieces: it starts a line instead. */
const MIN_PATH = 16;
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * `path` in at most `width` columns: whole when it fits, else "…" and its end, from a "/" when one fits (so no
 * folder name is cut), else its last characters.
 */
export function shortenPath(path: string, width: number): string {
  if (stringWidth(path) <= width) return path;
  if (width < 1) return "";
  const room = width - stringWidth(ELLIPSIS);
  for (let at = path.indexOf("/", 1); at >= 0; at = path.indexOf("/", at + 1)) {
    const tail = path.slice(at);
    if (stringWidth(tail) <= room) return ELLIPSIS + tail;
  }
  const kept: string[] = [];
  let used = 0;
  for (const { segment } of [...graphemes.segment(path)].reverse()) {
    const w = stringWidth(segment);
    if (used + w > room) break;
    kept.unshift(segment);
    used += w;
  }
  return ELLIPSIS + kept.join("");
}

/**
 * The pieces as lines of at most `width` columns. A piece that does not fit on the line goes to the next; a path is
 * shortened to what is left of the line (or of a line of its own); a piece that is wider than a line by itself and
 * is not a path loses its prefix, and when even that is too wide (an id on a very narrow terminal) is left whole on
 * its own line, for the terminal to wrap.
 */
export function fitPieces(pieces: readonly Piece[], width: number): string[] {
  const lines: string[] = [];
  let line = "";
  let used = 0;
  const put = (piece: Piece, text: string, joined: boolean) => {
    const shown = (piece.prefix ?? "") + text;
    const painted = piece.paint ? piece.paint(shown) : shown;
    const joiner = joined ? (piece.joiner ?? " · ") : "";
    line += joiner + painted;
    used += stringWidth(joiner) + stringWidth(shown);
  };
  for (const piece of pieces) {
    const prefix = stringWidth(piece.prefix ?? "");
    const full = prefix + stringWidth(piece.text);
    const joiner = used > 0 ? stringWidth(piece.joiner ?? " · ") : 0;
    const room = width - used - joiner;
    if (full <= room) {
      put(piece, piece.text, used > 0);
      continue;
    }
    if (piece.path && used > 0 && room - prefix >= MIN_PATH) {
      put(piece, shortenPath(piece.text, room - prefix), true);
      continue;
    }
    if (used > 0) {
      lines.push(line);
      line = "";
      used = 0;
    }
    if (piece.path) put(piece, shortenPath(piece.text, Math.max(1, width - prefix)), false);
    // On a line of its own and still too wide, its prefix ("task ") gives way before the text is split.
    else if (full > width) put({ ...piece, prefix: "" }, piece.text, false);
    else put(piece, piece.text, false);
  }
  if (used > 0 || line !== "") lines.push(line);
  return lines;
}
