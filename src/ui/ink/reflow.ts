// Clean redraws on resize (CONTRACT section 6). Ink erases its live area by counting the lines it drew. A terminal
// that reflows on resize (tmux and most terminals do) has turned the wide lines of that area into several rows once
// it was narrowed, and the rows above Ink's count would stay on screen as copies. So Ink draws on this wrapper of the
// terminal stream: it keeps the last frame Ink wrote, and when the terminal narrows it erases every row that frame
// now takes, before Ink hears of the resize and redraws; and before a frame that Ink writes (it redraws on a timer)
// after the terminal narrowed but before this process was told, whose erasing would count too few rows. It also
// hides the terminal's height from Ink, which would otherwise erase the user's scrollback in a short terminal (CONTRACT section 6: the scrollback keeps every line).
import { EventEmitter } from "node:events";
import stringWidth from "string-width";

/** log-update ends its erasing with "cursor to column 1"; what follows in the same write is the frame. */
const AFTER_ERASE = "\u001b[G";

export interface ReflowGuard {
  /** The stream to hand to Ink. */
  stdout: NodeJS.WriteStream;
  /**
   * Calls `listener` on each resize before Ink hears of it (returns the unsubscribe). The live area takes the new size
   * here, so that the frame Ink draws at once on a resize is already the final one: a second frame drawn a moment
   * later (after React re-renders) can meet a terminal that has taken a further resize this process has not heard of
   * yet (tmux holds it back, see RESIZE_SETTLE_MS), and be erased by the width the terminal no longer has.
   */
  beforeRedraw(listener: () => void): () => void;
  dispose(): void;
}

/** Rows that `frame` (lines ending in `\n`) takes in a terminal `columns` wide that wraps long lines. */
export function rowsOf(frame: string, columns: number): number {
  const lines = frame.split("\n");
  lines.pop();
  return lines.reduce((rows, line) => rows + Math.max(1, Math.ceil(stringWidth(line) / Math.max(1, columns))), 0);
}

/**
 * How long after a resize the clock's redraws wait. tmux reflows a pane at once but tells the program (SIGWINCH, and
 * the size the pty reports) of a resize that follows another within 250 ms only when that interval is over; a frame
 * drawn meanwhile is erased by the old width and leaves rows of the last one on screen, which no erasing can find
 * later. A redraw that only moves the clock waits this long (tmux's 250 ms, and room for its timer to run late).
 */
export const RESIZE_SETTLE_MS = 500;

/** Whether a redraw of the clock alone may go out at `now`, the last resize having been heard at `resizedAt`. */
export const clockMayRedraw = (now: number, resizedAt: number | undefined) =>
  resizedAt === undefined || now - resizedAt >= RESIZE_SETTLE_MS;

/** xterm cuts lines when narrowed rather than wrapping them again (it sets XTERM_VERSION); the others reflow. */
export const terminalReflows = (env: NodeJS.ProcessEnv = process.env) => !("XTERM_VERSION" in env);

export function guardReflow(real: NodeJS.WriteStream, reflows = terminalReflows()): ReflowGuard {
  const resizes = new EventEmitter();
  const first = new Set<() => void>();
  let frame = "";
  /** The rows of `frame` past Ink's count were erased already: Ink's own erasing now takes the rest. */
  let surplusErased = false;
  // The width as the terminal has it now (an ioctl), which may be ahead of `columns`, refreshed on SIGWINCH only.
  const widthNow = () => {
    try {
      return real.getWindowSize?.()[0] || real.columns || 80;
    } catch {
      return real.columns || 80;
    }
  };
  /**
   * Erases the rows the last frame takes past Ink's count, in a terminal `width` wide: up to the first row of the
   * reflowed frame, erase it all, then down to where Ink's own erasing expects the cursor, so that erasing `drawn`
   * lines upwards ends on that first row and takes no line above it.
   */
  const eraseSurplus = (width: number) => {
    if (!reflows || surplusErased) return;
    const drawn = frame.split("\n").length - 1;
    const rows = rowsOf(frame, width);
    if (rows <= drawn) return;
    real.write(`\u001b[${rows}A\r\u001b[J${drawn > 0 ? `\u001b[${drawn}B` : ""}`);
    surplusErased = true;
  };
  const write = (chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString() : "";
    const erased = text.lastIndexOf(AFTER_ERASE);
    // Ink erases the last frame: the terminal may have narrowed (and reflowed it) before this process heard of it.
    if (erased !== -1) eraseSurplus(widthNow());
    const tail = erased === -1 ? text : text.slice(erased + AFTER_ERASE.length);
    // Cursor and synchronisation escapes come in writes of their own, without a line break: not frames.
    if (erased !== -1 || tail.endsWith("\n")) {
      frame = tail;
      surplusErased = false;
    }
    return (real.write as (...args: unknown[]) => boolean)(chunk, ...rest);
  };
  const onResize = () => {
    eraseSurplus(real.columns || 80);
    for (const listener of first) listener();
    resizes.emit("resize");
  };
  real.on("resize", onResize);
  const listen = (method: "on" | "off" | "once") =>
    function (this: unknown, event: string | symbol, listener: (...args: unknown[]) => void) {
      if (event === "resize") resizes[method](event, listener);
      else (real as EventEmitter)[method](event, listener);
      return stdout;
    };
  const own: Record<string | symbol, unknown> = {
    write,
    on: listen("on"),
    addListener: listen("on"),
    once: listen("once"),
    off: listen("off"),
    removeListener: listen("off"),
  };
  const stdout = new Proxy(real, {
    get(target, key) {
      if (key in own) return own[key];
      // Ink clears the whole terminal, its scrollback included (ESC[2J ESC[3J), to redraw an area as tall as the
      // terminal: told of no height, it never does. The area keeps under the real height itself (LiveArea's rows).
      if (key === "rows") return Number.MAX_SAFE_INTEGER;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    stdout,
    beforeRedraw(listener) {
      first.add(listener);
      return () => first.delete(listener);
    },
    dispose: () => {
      real.off("resize", onResize);
    },
  };
}
