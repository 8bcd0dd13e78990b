// Clean redraws on resize (CONTRACT section 6): when the terminal narrows, the rows the last live frame takes once
// the terminal has reflowed it are erased before Ink hears of the resize; widening erases nothing.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it } from "node:test";
import { clockMayRedraw, guardReflow, RESIZE_SETTLE_MS, rowsOf, terminalReflows } from "../../src/ui/ink/reflow.js";

/** A terminal stream: records writes, has a width, emits resize. */
function fakeTerminal(columns: number) {
  const written: string[] = [];
  const stream = Object.assign(new EventEmitter(), {
    columns,
    rows: 30,
    isTTY: true,
    write(text: string) {
      written.push(text);
      return true;
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream & { columns: number }, written };
}

/** A frame as Ink's log-update writes it: erase the previous lines, back to column 1, then the lines. */
const frameWrite = (lines: string[]) => `\u001b[2K\u001b[1A\u001b[2K\u001b[G${lines.join("\n")}\n`;

describe("rowsOf", () => {
  it("counts each line as the rows it wraps into, an empty one as one, escapes as nothing", () => {
    assert.equal(rowsOf("a\n\nb\n", 10), 3);
    assert.equal(rowsOf(`${"x".repeat(100)}\n`, 40), 3);
    assert.equal(rowsOf(`${"x".repeat(40)}\n`, 40), 1);
    assert.equal(rowsOf(`\u001b[35m${"x".repeat(41)}\u001b[39m\n`, 40), 2);
    assert.equal(rowsOf("😀😀\n", 3), 2);
    assert.equal(rowsOf("", 40), 0);
  });
});

describe("guardReflow", () => {
  it("narrowing: erases every row of the reflowed frame, then lets Ink erase its own count from there", () => {
    const { stream, written } = fakeTerminal(100);
    const guard = guardReflow(stream);
    const heard: string[] = [];
    guard.stdout.on("resize", () => heard.push(written.at(-1) ?? ""));
    guard.stdout.write(frameWrite(["x".repeat(100), "status"]));
    stream.columns = 50;
    stream.emit("resize");
    // Three rows now (100 columns in two rows of 50, and the status): up three, erase down, back down two.
    assert.equal(written.at(-1), "\u001b[3A\r\u001b[J\u001b[2B");
    assert.deepEqual(heard, ["\u001b[3A\r\u001b[J\u001b[2B"], "Ink hears of the resize after the erase");
    guard.dispose();
  });

  it("a frame Ink writes after the terminal narrowed, before the resize is heard: the old one is erased first", () => {
    const { stream, written } = fakeTerminal(100);
    const guard = guardReflow(stream);
    guard.stdout.write(frameWrite(["x".repeat(100), "status"]));
    // The terminal has narrowed (and reflowed the frame), but no resize event has come yet: Ink's timer redraws.
    stream.columns = 50;
    const next = frameWrite(["x".repeat(100), "status"]);
    guard.stdout.write(next);
    assert.deepEqual(written.slice(-2), ["\u001b[3A\r\u001b[J\u001b[2B", next]);
    // That frame was drawn 100 wide in 50 columns: when the resize is heard, it is erased as well, once.
    stream.emit("resize");
    assert.equal(written.at(-1), "\u001b[3A\r\u001b[J\u001b[2B");
    const count = written.length;
    guard.stdout.write(frameWrite(["y".repeat(50), "status"]));
    assert.equal(written.length, count + 1, "Ink's own erasing of an erased frame adds nothing");
    guard.dispose();
  });

  it("the live area hears of a resize after the erase and before Ink, so Ink's one redraw is the final frame", () => {
    const { stream, written } = fakeTerminal(100);
    const guard = guardReflow(stream);
    const order: string[] = [];
    guard.stdout.on("resize", () => order.push("ink"));
    const stop = guard.beforeRedraw(() => order.push(`area after ${JSON.stringify(written.at(-1))}`));
    guard.stdout.write(frameWrite(["x".repeat(100), "status"]));
    stream.columns = 50;
    stream.emit("resize");
    assert.deepEqual(order, [`area after ${JSON.stringify("\u001b[3A\r\u001b[J\u001b[2B")}`, "ink"]);
    stop();
    stream.columns = 40;
    stream.emit("resize");
    assert.equal(order.length, 3, "unsubscribed: only Ink hears of the next one");
    guard.dispose();
  });

  it("widening, or narrowing a frame that still fits, writes nothing of its own", () => {
    const { stream, written } = fakeTerminal(80);
    const guard = guardReflow(stream);
    guard.stdout.write(frameWrite(["short", "lines"]));
    const before = written.length;
    stream.columns = 120;
    stream.emit("resize");
    stream.columns = 40;
    stream.emit("resize");
    assert.equal(written.length, before);
    guard.dispose();
  });

  it("remembers the last frame, not the text written above it nor cursor escapes", () => {
    const { stream, written } = fakeTerminal(60);
    const guard = guardReflow(stream);
    guard.stdout.write(frameWrite(["y".repeat(60)]));
    guard.stdout.write("\u001b[?25l");
    stream.columns = 30;
    stream.emit("resize");
    assert.equal(written.at(-1), "\u001b[2A\r\u001b[J\u001b[1B");
    guard.dispose();
  });

  it("in a terminal that cuts lines instead of wrapping them (xterm), erases nothing of its own", () => {
    assert.equal(terminalReflows({ XTERM_VERSION: "XTerm(390)" }), false);
    assert.equal(terminalReflows({ TERM: "xterm-256color" }), true);
    const { stream, written } = fakeTerminal(100);
    const guard = guardReflow(stream, false);
    guard.stdout.write(frameWrite(["x".repeat(100)]));
    const before = written.length;
    stream.columns = 50;
    stream.emit("resize");
    assert.equal(written.length, before);
    guard.dispose();
  });

  it("passes other events and properties through, and stops listening when disposed", () => {
    const { stream } = fakeTerminal(60);
    const guard = guardReflow(stream);
    let drained = 0;
    guard.stdout.on("drain", () => {
      drained += 1;
    });
    stream.emit("drain");
    assert.equal(drained, 1);
    assert.equal(guard.stdout.columns, 60);
    assert.equal(guard.stdout.isTTY, true);
    guard.dispose();
    assert.equal(stream.listenerCount("resize"), 0);
  });
});

describe("clockMayRedraw", () => {
  // tmux tells the program of a resize that follows another within 250 ms only once that interval is over, having
  // reflowed the pane already: a frame drawn in between is erased by the old width and leaves copies on screen.
  it("holds the clock's redraws for tmux's 250 ms (and room for its timer) after a resize, then lets them go", () => {
    assert.equal(clockMayRedraw(1_000, undefined), true);
    assert.ok(RESIZE_SETTLE_MS > 250);
    assert.equal(clockMayRedraw(1_000, 1_000), false);
    assert.equal(clockMayRedraw(1_250, 1_000), false);
    assert.equal(clockMayRedraw(1_000 + RESIZE_SETTLE_MS, 1_000), true);
  });
});
