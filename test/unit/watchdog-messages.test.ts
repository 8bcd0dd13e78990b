// The watchdog reads the tool's messages line by line, across chunks, with each line bounded.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_WATCHDOG_LINE_BYTES, WatchdogMessages } from "../../src/core/containment/watchdog-messages.js";

describe("WatchdogMessages", () => {
  it("one message a line, split anywhere across chunks", () => {
    const text = `${JSON.stringify({ done: "a" })}\n${JSON.stringify({ started: "b", pid: 7, pidStart: "9" })}\n`;
    for (let cut = 0; cut <= text.length; cut++) {
      const messages = new WatchdogMessages();
      const got = [...messages.push(Buffer.from(text.slice(0, cut))), ...messages.push(Buffer.from(text.slice(cut)))];
      assert.deepEqual(got, [{ done: "a" }, { started: "b", pid: 7, pidStart: "9" }]);
    }
  });

  it("a line that is not JSON, or over the bound, is dropped whole; the next line is read", () => {
    const messages = new WatchdogMessages();
    const long = `{"done":"${"x".repeat(MAX_WATCHDOG_LINE_BYTES)}"}`;
    const got = [
      ...messages.push(Buffer.from(`not json\n${long.slice(0, 1000)}`)),
      ...messages.push(Buffer.from(`${long.slice(1000)}\n{"done":"c"}\n`)),
    ];
    assert.deepEqual(got, [{ done: "c" }]);
  });
});
