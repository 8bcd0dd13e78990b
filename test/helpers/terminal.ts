// Streams that pass for a terminal, for the screen's in-process tests: they record raw-mode changes and what is
// written, as a real terminal would not let a test see.
import { PassThrough, Writable } from "node:stream";
import type { Io } from "../../src/io/io.js";

/** A stdin that says it is a terminal; `rawModes` lists every setRawMode call. */
export function terminalStdin() {
  const rawModes: boolean[] = [];
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode(on: boolean) {
      rawModes.push(on);
      return stdin;
    },
    ref() {},
    unref() {},
  });
  return { stdin: stdin as unknown as NodeJS.ReadStream & PassThrough, rawModes };
}

/** stdin, stdout and stderr of a 100×30 terminal; `written` is all that was written to stdout and stderr. */
export function fakeTerminal() {
  const { stdin, rawModes } = terminalStdin();
  let written = "";
  const sink = () =>
    Object.assign(
      new Writable({
        write(chunk, _encoding, done) {
          written += String(chunk);
          done();
        },
      }),
      { isTTY: true, columns: 100, rows: 30 },
    );
  const io = { stdin, stdout: sink(), stderr: sink() } as unknown as Io;
  return { io, rawModes, written: () => written };
}
