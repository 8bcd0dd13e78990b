// The keyboard before the live area has loaded: raw mode at once, Ctrl-C interrupts, other keys are kept for the
// prompt box and put back into stdin when it takes over; nothing happens where stdin is not a terminal.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { holdKeys } from "../../src/ui/key-hold.js";
import { terminalStdin } from "../helpers/terminal.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("holdKeys", () => {
  it("turns raw mode on, interrupts on each Ctrl-C, and puts the other keys back on release", async () => {
    const { stdin, rawModes: modes } = terminalStdin();
    let interrupts = 0;
    const release = holdKeys(stdin, () => {
      interrupts += 1;
    });
    assert.deepEqual(modes, [true]);
    stdin.write("ab\u0003c");
    stdin.write("\u0003");
    await tick();
    assert.equal(interrupts, 2);
    release(true);
    release(true);
    assert.equal(stdin.listenerCount("readable"), 0);
    assert.equal(String(stdin.read()), "abc");
  });

  it("without a hand-over, pauses stdin and keeps nothing back", async () => {
    const { stdin } = terminalStdin();
    const release = holdKeys(stdin, () => {});
    stdin.write("abc");
    await tick();
    release(false);
    assert.equal(stdin.isPaused(), true);
    assert.equal(stdin.read(), null);
  });

  it("keeps at most 4 KiB of keys", async () => {
    const { stdin } = terminalStdin();
    const release = holdKeys(stdin, () => {});
    stdin.write("x".repeat(4000));
    stdin.write("y".repeat(200));
    await tick();
    release(true);
    assert.equal(String(stdin.read()), `${"x".repeat(4000)}${"y".repeat(96)}`);
  });

  it("leaves a stdin that is not a terminal alone", () => {
    const stdin = new PassThrough() as unknown as NodeJS.ReadStream;
    holdKeys(stdin, () => {})(true);
    assert.equal(stdin.listenerCount("readable"), 0);
  });
});
