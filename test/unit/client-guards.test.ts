// The pure rules of the client's distrust of a server (docs/security.md, "The client"): what remote output keeps for a
// terminal, which origins may get the token, how SSE bodies are bounded, how long a task is followed, JSON without C1.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AgentCard } from "@a2a-js/sdk";
import fc from "fast-check";
import { ClientFailure } from "../../src/client/failures.js";
import { FOLLOW_GRACE_MS, FollowLimit, MAX_TIMEOUT_MS } from "../../src/client/follow-limit.js";
import { SseBound } from "../../src/client/guarded-fetch.js";
import { checkInterfaces, originOf } from "../../src/client/origins.js";
import { jsonBytesWithoutC1, jsonWithoutC1 } from "../../src/core/printable.js";
import { SgrOnly } from "../../src/core/sgr-only.js";
import type { TaskView } from "../../src/core/task/task-record.js";

const sgrOnly = (text: string) => new SgrOnly().feed(text);

/** Text with every kind of escape and control a hostile server might send, between plain words. */
const hostileText = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom("ok", " ", "red", "é✓😀", "x".repeat(30)) },
      {
        weight: 4,
        arbitrary: fc.constantFrom(
          "\u001b[31m",
          "\u001b[0m",
          "\u001b[38;2;1;2;3m",
          "\u001b]52;c;aGVsbG8=\u0007",
          "\u001b]0;title\u001b\\",
          "\u001b]8;;http://x\u001b\\",
          "\u001bP1$qm\u001b\\",
          "\u001b[2J",
          "\u001b[?25l",
          "\u001b[10;5H",
          "\u001b(B",
          "\u001b=",
          "\u009b31m",
          "\u009d0;t\u009c",
          "\u0090q\u009c",
          "\u0007",
          "\b",
          "\r",
          "\n",
          "\t",
          "\u001b",
          "\u001b[",
          "\u001b]",
          "\u007f",
          "\u0085",
        ),
      },
      { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
    ),
    { maxLength: 60 },
  )
  .map((pieces) => pieces.join(""));

// biome-ignore lint/suspicious/noControlCharactersInRegex: an SGR sequence starts with ESC
const SGR = /\u001b\[[0-9;:]*m/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls a terminal must not be sent
const UNFIT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: every control character
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/** Every ESC is the start of a complete SGR sequence; no control but tab, line feed and carriage return. */
function fitForTerminal(text: string): boolean {
  const withoutSgr = text.replace(SGR, "");
  return !UNFIT.test(withoutSgr);
}

describe("SgrOnly: remote output for a terminal", () => {
  it("keeps colours and text, drops OSC, DCS, other CSI, C1 and other control characters", () => {
    const cases: [string, string][] = [
      ["\u001b[31mred\u001b[0m", "\u001b[31mred\u001b[0m"],
      ["a\u001b]52;c;aGVsbG8=\u0007b", "ab"],
      ["a\u001b]0;title\u001b\\b", "ab"],
      ["a\u001bP1$qm\u001b\\b", "ab"],
      ["a\u001b[2Jb\u001b[?1049hc", "abc"],
      ["a\u009b31mb\u009d0;t\u009cc", "a\u001b[31mbc"],
      ["bell\u0007 back\b del\u007f nel\u0085", "bell back del nel"],
      ["line\r\nnext\ttab", "line\r\nnext\ttab"],
      ["\u001b(Bcharset", "charset"],
    ];
    for (const [input, shown] of cases) assert.equal(sgrOnly(input), shown, JSON.stringify(input));
  });

  it("an escape cut across chunks is judged whole", () => {
    const filter = new SgrOnly();
    assert.equal(filter.feed("a\u001b[3"), "a");
    assert.equal(filter.feed("1mb\u001b]52;c;"), "\u001b[31mb");
    assert.equal(filter.feed("aGVsbG8=\u0007c"), "c");
  });

  it("property: what is left is fit for a terminal (only whole SGR sequences, only tab, LF, CR)", () => {
    fc.assert(fc.property(hostileText, (text) => fitForTerminal(sgrOnly(text))));
  });

  it("property: the text of the whole is the text of its pieces, however it was cut", () => {
    fc.assert(
      fc.property(hostileText, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        const filter = new SgrOnly();
        let out = "";
        let from = 0;
        for (const point of [...points, text.length]) {
          out += filter.feed(text.slice(from, point));
          from = point;
        }
        assert.equal(out, sgrOnly(text));
      }),
    );
  });

  it("property: text without controls passes unchanged", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const plain = text.replace(CONTROLS, "");
        assert.equal(sgrOnly(plain), plain);
      }),
    );
  });
});

describe("origins: where the token may go", () => {
  const cardWith = (interfaces: { url: string; protocolBinding: string }[]) =>
    ({
      supportedInterfaces: interfaces.map((face) => ({ ...face, protocolVersion: "1.0", tenant: "" })),
    }) as unknown as AgentCard;
  const failure = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      assert.ok(error instanceof ClientFailure);
      return error;
    }
    return undefined;
  };

  it("--server with user info is a usage error that never quotes it", () => {
    const refused = failure(() => originOf("http://user:pa55@127.0.0.1:9/", "--server"));
    assert.equal(refused?.kind, "usage");
    assert.doesNotMatch(refused?.message ?? "", /pa55|user:/);
    const unparsed = failure(() => originOf("ftp://user:pa55@host", "--server"));
    assert.doesNotMatch(unparsed?.message ?? "", /pa55/);
  });

  it("property: an interface the client speaks is taken exactly when its origin is trusted; gRPC is never judged", () => {
    const origin = fc.record({
      scheme: fc.constantFrom("http", "https"),
      host: fc.constantFrom("127.0.0.1", "localhost", "[::1]", "example.test"),
      port: fc.integer({ min: 1, max: 65535 }),
    });
    const text = (o: { scheme: string; host: string; port: number }) =>
      new URL(`${o.scheme}://${o.host}:${o.port}`).origin;
    fc.assert(
      fc.property(
        origin,
        origin,
        fc.constantFrom("JSONRPC", "HTTP+JSON", "jsonrpc", "GRPC"),
        fc.boolean(),
        (server, named, binding, trustIt) => {
          const base = text(server);
          const trusted = new Set([base, ...(trustIt ? [text(named)] : [])]);
          const refused = failure(() =>
            checkInterfaces(cardWith([{ url: `${text(named)}/a2a`, protocolBinding: binding }]), base, trusted),
          );
          const expectRefused = binding !== "GRPC" && !trusted.has(text(named));
          assert.equal(refused !== undefined, expectRefused);
          if (refused) {
            assert.equal(refused.kind, "infrastructure");
            assert.ok(refused.message.includes(base) && refused.message.includes(text(named)), refused.message);
          }
        },
      ),
    );
  });

  it("an interface that is not an http(s) URL is refused", () => {
    const base = "http://127.0.0.1:1";
    for (const url of ["/relative", "file:///etc/passwd", "javascript:alert(1)"])
      assert.ok(failure(() => checkInterfaces(cardWith([{ url, protocolBinding: "JSONRPC" }]), base, new Set([base]))));
  });
});

describe("SseBound", () => {
  it("a line or an event past the bound is named; events of many small lines count whole", () => {
    assert.equal(new SseBound(10).take(Buffer.from("data: 0123456789\n")), "an SSE line over 10 bytes");
    assert.equal(new SseBound(10).take(Buffer.from("data: 1\ndata: 2\n")), "an SSE event over 10 bytes");
    assert.equal(new SseBound(10).take(Buffer.from("data: 1\n\ndata: 2\r\n\r\n: c\n\n")), undefined);
  });

  it("property: the verdict does not depend on how the body was cut", () => {
    const body = fc
      .array(fc.constantFrom("data: x\n", "data: yyyy\n", "\n", "\r\n", ": keep\n", "zzzzzzzz"), { maxLength: 40 })
      .map((pieces) => Buffer.from(pieces.join("")));
    fc.assert(
      fc.property(body, fc.integer({ min: 1, max: 7 }), (bytes, size) => {
        const whole = new SseBound(24).take(bytes);
        const cut = new SseBound(24);
        let verdict: string | undefined;
        for (let at = 0; at < bytes.length && verdict === undefined; at += size)
          verdict = cut.take(bytes.subarray(at, at + size));
        assert.equal(verdict, whole);
      }),
    );
  });
});

describe("FollowLimit", () => {
  const view = (fields: Partial<TaskView>) =>
    ({ id: "t", state: "working", updatedAt: "2026-01-01T00:00:00.000Z", ...fields }) as TaskView;

  it("until the task starts: the longest deadline there is, plus the grace", () => {
    const limit = new FollowLimit(1000);
    assert.equal(limit.seen(view({ state: "submitted" }), 2000), false);
    assert.equal(limit.until, 1000 + MAX_TIMEOUT_MS + FOLLOW_GRACE_MS);
  });

  it("once started: the deadline less the status's timestamp (the server's clock both), plus the grace, once", () => {
    const limit = new FollowLimit(0);
    assert.equal(limit.seen(view({ deadline: "2026-01-01T00:00:30.000Z" }), 5000), true);
    assert.equal(limit.until, 5000 + 30_000 + FOLLOW_GRACE_MS);
    assert.equal(limit.seen(view({ deadline: "2027-01-01T00:00:00.000Z" }), 6000), false, "set once");
  });

  it("property: whatever the server says, the limit is at most the longest deadline plus the grace from now", () => {
    fc.assert(
      fc.property(
        fc.option(
          fc.oneof(
            fc.string(),
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          ),
        ),
        fc.option(fc.oneof(fc.double(), fc.integer())),
        fc.nat(1e12),
        (deadline, timeoutSeconds, now) => {
          const limit = new FollowLimit(now);
          limit.seen(
            view({ ...(deadline ? { deadline } : {}), ...(timeoutSeconds !== null ? { timeoutSeconds } : {}) }),
            now,
          );
          assert.ok(Number.isFinite(limit.until));
          assert.ok(limit.until >= now + FOLLOW_GRACE_MS && limit.until <= now + MAX_TIMEOUT_MS + FOLLOW_GRACE_MS);
        },
      ),
    );
  });
});

describe("JSON without C1 controls", () => {
  it("property: the same value, and no C1 control left, as text and as UTF-8", () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.string({ unit: fc.integer({ min: 0x70, max: 0xa0 }).map((c) => String.fromCharCode(c)) }),
        (value, c1) => {
          const json = JSON.stringify({ value, c1 });
          const text = jsonWithoutC1(json);
          const bytes = jsonBytesWithoutC1(Buffer.from(json));
          assert.deepEqual(JSON.parse(text), JSON.parse(json));
          assert.equal(bytes.toString("utf8"), text);
          assert.doesNotMatch(text, /[\u0080-\u009f]/);
        },
      ),
    );
  });
});
