// The pure parts of the operator console's page (src/web): SSE read from a fetch body, output cut into lines with
// their colour state, output as text spans with classes (hostile input included), a pasted file as a 1.0 send, the
// refusals of an answer in words; and the validator's UTF-8 count, which runs in the page without Buffer.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ADAPTER_URI } from "../../src/core/uris.js";
import { utf8Length } from "../../src/core/utf8-length.js";
import { ansiSpans, cleanLine, overwrite } from "../../src/web/ansi-spans.js";
import { OutputLines } from "../../src/web/output-lines.js";
import { pastedPointer, sendBody } from "../../src/web/send-body.js";
import { SseParser } from "../../src/web/sse.js";
import { answerRefusal } from "../../src/web/words.js";

describe("console: SSE from a fetch body", () => {
  it("reads events cut anywhere, with ids, event names, comments and CRLF", () => {
    const text =
      ': keep-alive\n\nid: 1\ndata: {"a":1}\n\nevent: error\ndata: {"b":\ndata: 2}\n\r\nid: 3\r\ndata: x\r\n\r\n';
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new SseParser();
      const events = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      assert.deepEqual(events, [
        { id: "1", data: '{"a":1}' },
        { event: "error", data: '{"b":\n2}' },
        { id: "3", data: "x" },
      ]);
    }
  });

  it("any split of a stream gives the same events as the whole", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme-ascii" }).filter((s) => !/[\r\n]/.test(s))),
        fc.nat(),
        (datas, seed) => {
          const text = datas.map((data, n) => `id: ${n}\ndata: ${data}\n\n`).join("");
          const cut = text.length === 0 ? 0 : seed % text.length;
          const parser = new SseParser();
          const events = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
          assert.deepEqual(
            events.map((event) => event.data),
            datas,
          );
        },
      ),
    );
  });
});

describe("console: output as lines", () => {
  it("cuts each stream into lines on its own, keeps unfinished lines last, and carries the colour state", () => {
    const output = new OutputLines();
    output.append("stdout", "one\n\u001b[31mred");
    output.append("stderr", "err\n");
    output.append("stdout", " still\nred too\u001b[0m\nplain\nopen");
    const lines = Array.from({ length: output.length }, (_, index) => output.line(index));
    assert.deepEqual(
      lines.map((line) => [line?.stream, line?.text, line?.sgr]),
      [
        ["stdout", "one", ""],
        ["stderr", "err", ""],
        ["stdout", "\u001b[31mred still", ""],
        ["stdout", "red too\u001b[0m", "\u001b[31m"],
        ["stdout", "plain", ""],
        ["stdout", "open", ""],
      ],
    );
    assert.equal(output.completed, 5);
  });

  it("keeps at most its limit of lines, counting the ones dropped", () => {
    const output = new OutputLines(100);
    for (let n = 0; n < 1000; n++) output.append("stdout", `line ${n}\n`);
    assert.equal(output.length, 100);
    assert.equal(output.dropped, 900);
    assert.equal(output.completed, 1000);
    assert.equal(output.line(0)?.text, "line 900");
    assert.equal(output.line(99)?.text, "line 999");
  });

  it("takes 100 000 coloured lines in chunks of any size (the speed is a bench figure: console_output_lines_per_s)", () => {
    const output = new OutputLines();
    const text = Array.from({ length: 100_000 }, (_, n) => `\u001b[32mline ${n}\u001b[0m\n`).join("");
    for (let at = 0, size = 1; at < text.length; at += size, size = (size * 7 + 3) % 70_000)
      output.append("stdout", text.slice(at, at + size));
    assert.equal(output.completed, 100_000);
    assert.equal(output.line(99_999)?.text, "\u001b[32mline 99999\u001b[0m");
    assert.equal(output.line(99_999)?.sgr, "");
  });
});

describe("console: output as text with classes", () => {
  it("markup stays text; OSC titles and links, cursor moves and clears are removed; colours become classes", () => {
    const line =
      "\u001b]0;title\u0007\u001b[2J\u001b[H<img src=x onerror=alert(1)> \u001b]8;;javascript:x\u0007link\u001b]8;;\u0007 \u001b[1;31m</script>\u001b[0m";
    const spans = ansiSpans(line);
    assert.equal(spans.map((span) => span.text).join(""), "<img src=x onerror=alert(1)> link </script>");
    assert.deepEqual(spans.at(-1), { text: "</script>", className: "ansi-red-fg ansi-bold" });
  });

  it("control characters other than colours are shown escaped, never acted on", () => {
    assert.equal(cleanLine("a\u0007b\u0000c"), "a\\u0007b\\u0000c");
    const spans = ansiSpans("bell\u0007 nul\u0000 esc\u001bZ");
    assert.equal(spans.map((span) => span.text).join(""), "bell\\u0007 nul\\u0000 esc");
  });

  it("the 8-bit CSI colours like ESC [, and a true colour becomes a palette class", () => {
    assert.deepEqual(ansiSpans("\u009b32mgreen"), [{ text: "green", className: "ansi-green-fg" }]);
    assert.deepEqual(ansiSpans("\u001b[38;2;255;0;0mred"), [{ text: "red", className: "ansi-palette-196-fg" }]);
  });

  it("a line drawn alone starts in its colour state", () => {
    assert.deepEqual(ansiSpans("x", "\u001b[34m"), [{ text: "x", className: "ansi-blue-fg" }]);
  });

  it("carriage returns overwrite as a terminal does", () => {
    assert.equal(overwrite("10%\r20%\r100%"), "100%");
    assert.equal(overwrite("abcdef\rXY"), "XYcdef");
  });

  it("no input makes a span whose text holds an escape character", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        for (const span of ansiSpans(text)) {
          // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
          assert.ok(!/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/.test(span.text), JSON.stringify(span.text));
          assert.match(span.className, /^(?:[a-z0-9-]+(?: [a-z0-9-]+)*)?$/);
        }
      }),
    );
  });
});

describe("console: a pasted file as a 1.0 send", () => {
  const envelope = {
    adapter: "sandbox-agent-runner",
    mode: "plan",
    command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/req.json"],
  };

  it("a bare envelope goes in the message's metadata, with the message text", () => {
    const { body, prefix } = sendBody({ $schema: "x", ...envelope }, "hello", "id-1");
    assert.deepEqual(body, {
      message: {
        messageId: "id-1",
        role: "ROLE_USER",
        parts: [{ text: "hello" }],
        metadata: { [ADAPTER_URI]: envelope },
      },
      configuration: { returnImmediately: true },
    });
    const field = `${prefix}/timeout_seconds`;
    assert.equal(pastedPointer(field, prefix), "/timeout_seconds");
  });

  it("a 0.3 message and send params become 1.0 names; their own messageId is kept", () => {
    const message = { kind: "message", role: "user", messageId: "m", parts: [{ kind: "text", text: "t" }] };
    assert.deepEqual(sendBody(message, "", "new").body.message, {
      messageId: "m",
      role: "ROLE_USER",
      parts: [{ text: "t" }],
    });
    const params = sendBody(
      { message, configuration: { blocking: true, historyLength: 2 }, metadata: { a: 1 } },
      "",
      "new",
    );
    assert.deepEqual(params.body.configuration, { historyLength: 2, returnImmediately: true });
    assert.deepEqual(params.body.metadata, { a: 1 });
    assert.equal(pastedPointer("/message/parts/0", params.prefix), "/message/parts/0");
    assert.equal(pastedPointer("/message/parts/0", "/message"), "/parts/0");
  });
});

describe("console: an answer's refusal in words", () => {
  const refusal = (http: number, reason: string | undefined, why?: string) => ({
    http,
    status: "",
    reason,
    metadata: (why ? { reason: why } : {}) as Record<string, string>,
    violations: [{ description: "expected no control character" }],
    message: "m",
  });
  it("already answered, deadline passed, invalid text", () => {
    assert.match(
      answerRefusal(refusal(409, "HITL_ALREADY_ANSWERED_OR_UNKNOWN", "unknown_or_answered")),
      /already answered/,
    );
    assert.match(answerRefusal(refusal(409, "HITL_ALREADY_ANSWERED_OR_UNKNOWN", "deadline_passed")), /deadline/);
    assert.match(answerRefusal(refusal(422, "HITL_RESPONSE_INVALID")), /invalid: expected no control character/);
    assert.match(answerRefusal(refusal(409, "HITL_ALREADY_ANSWERED_OR_UNKNOWN", "delivery_failed")), /no longer reads/);
  });
});

describe("the validator's UTF-8 count (no Buffer, so it runs in the page)", () => {
  it("counts what Buffer.byteLength counts, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => assert.equal(utf8Length(text), Buffer.byteLength(text))),
    );
    for (const text of ["\ud800", "a\udc00b", "\ud83d\ude00", "\ud83d"])
      assert.equal(utf8Length(text), Buffer.byteLength(text));
  });
});
