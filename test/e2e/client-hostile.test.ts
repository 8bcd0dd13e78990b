// The client trusts no server (docs/security.md, "The client"): `run --server` and `tasks` against hostile servers
// written here (node:http on 127.0.0.1), spawning the built bin. The token stays with the origin of --server, remote
// strings never drive the terminal, every read is bounded, every wait is timed, the token is never printed, and the
// words name the URL.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ADAPTER_URI, HITL_URI } from "../../src/core/uris.js";
import { AT_ONCE, runCli, startCli } from "../helpers/cli.js";
import { writeEnvelope } from "../helpers/envelopes.js";
import { HAS_TMUX, quote, Tmux } from "../helpers/tmux.js";

const scratch = mkdtempSync(join(tmpdir(), "client-hostile-"));
const tmux = new Tmux("client-hostile");
after(() => {
  tmux.kill();
  rmSync(scratch, { recursive: true, force: true });
});

const TOKEN = "hostile-test-token-5d1e";
const tokenFile = join(scratch, "token");
writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
const envelope = writeEnvelope({ working_dir: "ok", timeout_seconds: 60 });

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Hostile {
  url: string;
  /** Every request: method, path, whether it carried Authorization, its body. */
  seen: { method: string; path: string; auth: boolean; body: string }[];
  close(): void;
}

/** A server on 127.0.0.1 that records every request and answers with `handler`. */
async function hostile(handler: Handler): Promise<Hostile> {
  const seen: Hostile["seen"] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", path: req.url ?? "", auth: "authorization" in req.headers, body });
      try {
        handler(req, res, body);
      } catch {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** An A2A 1.0 card that declares both extensions, its JSON-RPC interface at `rpc`. */
const card = (rpc: string, extra: Record<string, unknown> = {}) => ({
  name: "hostile",
  description: "a server that answers as it likes",
  version: "1",
  supportedInterfaces: [{ url: rpc, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: true, extensions: [{ uri: ADAPTER_URI }, { uri: HITL_URI }] },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
  ...extra,
});

const json = (res: ServerResponse, value: unknown, status = 200) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
const isCard = (req: IncomingMessage) => req.url === "/.well-known/agent-card.json";
const rpcId = (body: string) => (JSON.parse(body) as { id: unknown }).id;
const sse = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" });
const event = (id: unknown, result: unknown) => `data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`;

/** A task's 1.0 wire shape: `state` (TASK_STATE_…), its adapter metadata, its status message. */
function task(id: string, state: string, adapter: Record<string, unknown> = {}, message?: unknown) {
  return {
    id,
    contextId: "ctx",
    status: { state, timestamp: new Date().toISOString(), ...(message ? { message } : {}) },
    artifacts: [],
    history: [],
    metadata: { [ADAPTER_URI]: adapter },
  };
}
const agentMessage = (text: string, metadata: Record<string, unknown> = {}) => ({
  messageId: "m1",
  role: "ROLE_AGENT",
  parts: [{ text }],
  metadata,
});
const output = (taskId: string, stream: string, text: string, seq: number) => ({
  artifactUpdate: { taskId, contextId: "ctx", artifact: { artifactId: stream, parts: [{ text, metadata: { seq } }] } },
});

/** `run` and `tasks list` against `url`, one after the other: the two ways the client meets a server. */
async function runAndList(url: string) {
  const common = ["--server", url, "--token-file", tokenFile];
  return [await runCli(["run", envelope, ...common]), await runCli(["tasks", "list", ...common])];
}

// Every test of a group has servers of its own, so a group's tests run at once: most of their time is the client's
// own waits (its limits of 10 s, its attempts to resume).
describe("the token stays with the origin of --server", { timeout: 120_000, concurrency: AT_ONCE }, () => {
  it("a card naming another port is refused before anything is sent: that port receives no request, exit 4", async () => {
    const other = await hostile((_req, res) => json(res, {}));
    const server = await hostile((req, res) => (isCard(req) ? json(res, card(`${other.url}/a2a`)) : json(res, {})));
    try {
      for (const result of await runAndList(server.url)) {
        assert.equal(result.code, 4, result.stderr);
        assert.ok(result.stderr.includes(server.url) && result.stderr.includes(other.url), result.stderr);
        assert.match(result.stderr, /another origin .*refused before anything was sent.*--trust-origin/);
      }
      assert.deepEqual(other.seen, [], "the other origin received nothing");
      assert.deepEqual(
        server.seen.map((r) => r.path),
        ["/.well-known/agent-card.json", "/.well-known/agent-card.json"],
        "only the card was read",
      );
    } finally {
      other.close();
      server.close();
    }
  });

  it("a 0.3 card whose url (or an additional interface) is elsewhere: refused", async () => {
    const other = await hostile((_req, res) => json(res, {}));
    const legacy = (url: string, additional: unknown[] = []) => ({
      ...card(url),
      supportedInterfaces: undefined,
      url,
      protocolVersion: "0.3.0",
      preferredTransport: "JSONRPC",
      additionalInterfaces: additional,
      capabilities: { streaming: true, extensions: [{ uri: ADAPTER_URI }] },
    });
    let which = 0;
    const server = await hostile((req, res) => {
      if (!isCard(req)) return json(res, {});
      const self = `http://${req.headers.host}/a2a`;
      const cards = [legacy(`${other.url}/a2a`), legacy(self, [{ url: `${other.url}/rest`, transport: "HTTP+JSON" }])];
      json(res, cards[which++ % cards.length]);
    });
    try {
      for (let i = 0; i < 2; i++) {
        const result = await runCli(["tasks", "list", "--server", server.url, "--token-file", tokenFile]);
        assert.equal(result.code, 4, result.stderr);
        assert.ok(result.stderr.includes(other.url), result.stderr);
      }
      assert.deepEqual(other.seen, []);
    } finally {
      other.close();
      server.close();
    }
  });

  it("--trust-origin names the other origin: then it gets the requests, with the token", async () => {
    const other = await hostile((_req, res, body) =>
      json(res, { jsonrpc: "2.0", id: rpcId(body), result: { tasks: [], nextPageToken: "" } }),
    );
    const server = await hostile((req, res) => (isCard(req) ? json(res, card(`${other.url}/a2a`)) : json(res, {})));
    try {
      const result = await runCli([
        "tasks",
        "list",
        "--server",
        server.url,
        "--token-file",
        tokenFile,
        "--trust-origin",
        other.url,
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(other.seen.length, 1);
      assert.equal(other.seen[0]?.auth, true);
    } finally {
      other.close();
      server.close();
    }
  });

  it("a 307 to another origin is not followed: the POST body and the token never get there, exit 4", async () => {
    const other = await hostile((_req, res) => json(res, {}));
    const server = await hostile((req, res) => {
      if (isCard(req)) return json(res, card(`http://${req.headers.host}/a2a`));
      res.writeHead(307, { location: `${other.url}/a2a` }).end();
    });
    try {
      const result = await runCli(["run", envelope, "--server", server.url, "--token-file", tokenFile]);
      assert.equal(result.code, 4, result.stderr);
      assert.match(result.stderr, /redirected to http:\/\/127\.0\.0\.1:\d+, another origin: not followed/);
      assert.deepEqual(other.seen, []);
    } finally {
      other.close();
      server.close();
    }
  });
});

describe("the token never appears in any output", { timeout: 60_000 }, () => {
  const secret = "s3cr3t-pa55word";
  it("a token file or ADAPTER_COMMAND_TOKEN with a line break inside: a usage error that does not print it", async () => {
    const bad = join(scratch, "two-lines");
    writeFileSync(bad, `${secret}\nsecond-${secret}\n`);
    const viaFile = await runCli(["tasks", "list", "--server", "http://127.0.0.1:9", "--token-file", bad]);
    const viaEnv = await runCli(["tasks", "list", "--server", "http://127.0.0.1:9"], {
      env: { ADAPTER_COMMAND_TOKEN: `${secret}\nx` },
    });
    for (const result of [viaFile, viaEnv]) {
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /expected a token of letters, digits/);
      assert.ok(!(result.stdout + result.stderr).includes(secret), result.stderr);
    }
  });

  it("user info in --server is refused and never printed", async () => {
    const result = await runCli(["run", envelope, "--server", `http://user:${secret}@127.0.0.1:9/`]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /without a user name or password/);
    assert.ok(!(result.stdout + result.stderr).includes(secret), result.stderr);
  });

  it("--token-file on a FIFO does not wait for a writer; a 100 MB token file is not read whole: exit 2", async () => {
    const fifo = join(scratch, "fifo");
    execFileSync("mkfifo", [fifo]);
    const big = join(scratch, "big");
    closeSync(openSync(big, "w"));
    truncateSync(big, 100 * 1024 * 1024);
    const fromFifo = await runCli(["tasks", "list", "--server", "http://127.0.0.1:9", "--token-file", fifo], {
      timeoutMs: 20_000,
    });
    assert.equal(fromFifo.code, 2, fromFifo.stderr);
    assert.match(fromFifo.stderr, /expected --token-file .* to be a regular file, found a FIFO/);
    const fromBig = await runCli(["tasks", "list", "--server", "http://127.0.0.1:9", "--token-file", big]);
    assert.equal(fromBig.code, 2, fromBig.stderr);
    assert.match(fromBig.stderr, /of at most 4096 bytes, found more/);
  });
});

/** The peak resident memory of a process in MiB (VmHWM), or 0 once it has gone. */
function peakMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Runs the bin, watching its peak memory; kills it past `killAtMiB`. */
async function watched(args: string[], killAtMiB: number) {
  const child = startCli(args);
  let peak = 0;
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  child.stdout.resume();
  child.stdin.end();
  const timer = setInterval(() => {
    peak = Math.max(peak, peakMiB(child.pid as number));
    if (peak > killAtMiB) child.kill("SIGKILL");
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearInterval(timer);
  return { code, stderr, peak };
}

describe("every read is bounded while it is read", { timeout: 120_000 }, () => {
  /** The bound: reading 64 MiB (the largest JSON answer) before giving up peaks near 150 MiB here. */
  const RSS_MIB = 400;
  const endless = (res: ServerResponse, head: string, type = "application/json", status = 200) => {
    res.writeHead(status, { "content-type": type });
    res.write(head);
    const chunk = "x".repeat(64 * 1024);
    const more = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once("drain", more);
    };
    more();
  };

  it(`an endless card, JSON answer, error body and SSE line: exit 4 naming the bound, RSS under ${RSS_MIB} MiB`, async () => {
    const cases: [string, Handler, RegExp][] = [
      ["card", (_req, res) => endless(res, '{"name":"'), /the agent card from .* passed 1048576 bytes/],
      [
        "answer",
        (req, res) => (isCard(req) ? json(res, card(`http://${req.headers.host}/a2a`)) : endless(res, '{"x":"')),
        /an answer from .* passed 67108864 bytes/,
      ],
      [
        "error body",
        (req, res) =>
          isCard(req) ? json(res, card(`http://${req.headers.host}/a2a`)) : endless(res, '{"x":"', undefined, 500),
        /an error answer from .* passed 262144 bytes/,
      ],
      [
        "SSE line",
        (req, res) =>
          isCard(req) ? json(res, card(`http://${req.headers.host}/a2a`)) : endless(res, "data: ", "text/event-stream"),
        /an SSE line over 4194304 bytes from .*a2a \(the bound for a stream\)/,
      ],
    ];
    for (const [name, handler, words] of cases) {
      const server = await hostile(handler);
      try {
        const args = name === "answer" || name === "error body" ? ["tasks", "list"] : ["run", envelope];
        const result = await watched([...args, "--server", server.url, "--token-file", tokenFile], RSS_MIB * 2);
        assert.equal(result.code, 4, `${name}: ${result.stderr}`);
        assert.match(result.stderr, words, name);
        assert.ok(result.peak < RSS_MIB, `${name}: peak RSS ${result.peak} MiB`);
      } finally {
        server.close();
      }
    }
  });

  it("a ListTasks page of 300 000 tasks: exit 4 naming the bound of 100 a page may hold", async () => {
    const rows = `[${Array.from({ length: 300_000 }, (_, i) => `{"id":"t${i}","contextId":"c"}`).join(",")}]`;
    const server = await hostile((req, res, body) => {
      if (isCard(req)) return json(res, card(`http://${req.headers.host}/a2a`));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(rpcId(body))},"result":{"tasks":${rows}}}`);
    });
    try {
      const result = await runCli(["tasks", "list", "--server", server.url, "--token-file", tokenFile]);
      assert.equal(result.code, 4, result.stderr);
      assert.match(result.stderr, /sent 300000 tasks in one page of ListTasks, over the bound of 100/);
    } finally {
      server.close();
    }
  });
});

describe("every wait has a stated limit", { timeout: 120_000, concurrency: AT_ONCE }, () => {
  it("a server that takes the request and never answers: exit 4 within the 10 s for the answer's head", async () => {
    const server = await hostile((req, res) => {
      if (isCard(req)) return json(res, card(`http://${req.headers.host}/a2a`));
      // never answered
    });
    try {
      const start = Date.now();
      const result = await runCli(["run", envelope, "--server", server.url, "--token-file", tokenFile], {
        timeoutMs: 60_000,
      });
      const seconds = (Date.now() - start) / 1000;
      assert.equal(result.code, 4, result.stderr);
      assert.match(result.stderr, /no answer from http:\/\/127\.0\.0\.1:\d+\/a2a within 10 s/);
      assert.ok(seconds >= 9 && seconds < 30, `ended after ${seconds} s`);
    } finally {
      server.close();
    }
  });

  it("SSE comments past the task's deadline do not hold the client: it stops 10 s after the deadline, exit 4", async () => {
    const server = await hostile((req, res, body) => {
      if (isCard(req)) return json(res, card(`http://${req.headers.host}/a2a`));
      sse(res);
      const now = Date.now();
      const working = task("t-1", "TASK_STATE_WORKING", {
        deadline: new Date(now + 1000).toISOString(),
        timeout_seconds: 1,
      });
      working.status.timestamp = new Date(now).toISOString();
      res.write(event(rpcId(body), { task: working }));
      const comments = setInterval(() => res.write(": still here\n\n"), 200);
      res.on("close", () => clearInterval(comments));
    });
    try {
      const start = Date.now();
      const result = await runCli(["run", envelope, "--server", server.url, "--token-file", tokenFile, "--no-tui"], {
        timeoutMs: 90_000,
      });
      const seconds = (Date.now() - start) / 1000;
      assert.equal(result.code, 4, result.stderr);
      assert.match(
        result.stderr,
        /deadline .* passed 10 s ago and http:\/\/127\.0\.0\.1:\d+ has not said the task ended/,
      );
      assert.ok(seconds < 40, `ended after ${seconds} s`);
    } finally {
      server.close();
    }
  });

  for (const [what, after] of [
    ["a Task, then an oversized line", `data: ${"x".repeat(4 * 1024 * 1024 + 10)}\n\n`],
    ["a Task, then the end of the stream", ""],
  ]) {
    it(`resuming that brings nothing new (${what}) gives up after 5 attempts, as it says`, async () => {
      let subscribes = 0;
      const server = await hostile((req, res, body) => {
        if (isCard(req)) return json(res, card(`http://${req.headers.host}/a2a`));
        const method = (JSON.parse(body) as { method: string }).method;
        sse(res);
        const first = event(rpcId(body), { task: task("t-2", "TASK_STATE_WORKING") });
        if (method === "SubscribeToTask") {
          subscribes += 1;
          res.write(first);
          res.end(after);
        } else res.write(first, () => res.socket?.destroy());
      });
      try {
        const result = await runCli(["run", envelope, "--server", server.url, "--token-file", tokenFile, "--no-tui"], {
          timeoutMs: 60_000,
        });
        assert.equal(result.code, 4, result.stderr);
        assert.match(result.stderr, /lost http:\/\/127\.0\.0\.1:\d+: /);
        assert.match(result.stderr, /gave up after 5 attempts to resume that brought nothing new/);
        assert.equal(subscribes, 5, "five attempts to resume, as the words say");
      } finally {
        server.close();
      }
    });
  }
});

describe("remote strings never drive the terminal", { timeout: 120_000 }, () => {
  const OSC52 = "\u001b]52;c;aGFja2Vk\u0007";
  const OSC0 = "\u001b]0;pwned\u001b\\";
  const DCS = "\u001bP1$qm\u001b\\";
  const CLEAR = "\u001b[2J";
  const C1 = "\u009b31m\u009d8;;http://evil\u009c";
  const hostileWords = `${OSC52}${OSC0}${DCS}${CLEAR}${C1}`;
  const id = `t${hostileWords}`;

  /** A task that writes hostile output, asks a hostile prompt, then fails with hostile words and signal. */
  const serve = () =>
    hostile((req, res, body) => {
      if (isCard(req)) return json(res, card(`http://${req.headers.host}/a2a`));
      const rpc = JSON.parse(body) as { id: unknown; method: string };
      if (rpc.method !== "SendStreamingMessage") return json(res, { jsonrpc: "2.0", id: rpc.id, result: {} });
      sse(res);
      res.write(event(rpc.id, { task: task(id, "TASK_STATE_WORKING", { working_dir: "/nowhere" }) }));
      res.write(event(rpc.id, output(id, "stdout", `\u001b[31mred\u001b[0m ${hostileWords} out\n`, 1)));
      const prompt = `Proceed?${hostileWords} [y/N]`;
      res.write(
        event(rpc.id, {
          statusUpdate: {
            taskId: id,
            contextId: "ctx",
            status: {
              state: "TASK_STATE_INPUT_REQUIRED",
              message: agentMessage(prompt, { [HITL_URI]: { prompt_id: `p${hostileWords}`, prompt } }),
            },
          },
        }),
      );
      setTimeout(() => {
        res.end(
          event(rpc.id, {
            statusUpdate: {
              taskId: id,
              contextId: "ctx",
              status: { state: "TASK_STATE_FAILED", message: agentMessage(`failed: ${hostileWords}`) },
              metadata: {
                [ADAPTER_URI]: {
                  fail_kind: "infrastructure",
                  signal: `SIG${hostileWords}`,
                  working_dir: "/nowhere",
                },
              },
            },
          }),
        );
      }, 1500);
    });

  const clean = (bytes: string, what: string) => {
    assert.ok(!bytes.includes("\u001b]"), `${what}: no OSC`);
    assert.ok(!bytes.includes("\u001bP"), `${what}: no DCS`);
    assert.ok(!bytes.includes(CLEAR), `${what}: no ESC[2J`);
    assert.ok(!/[\u0080-\u009f]/.test(bytes), `${what}: no C1 control`);
  };

  it("--json: the server's words and output as JSON, C1 controls escaped too; no local workspace hint", async () => {
    const server = await serve();
    try {
      const result = await runCli(["run", envelope, "--server", server.url, "--token-file", tokenFile, "--json"]);
      assert.equal(result.code, 4, result.stderr);
      clean(result.stdoutBytes.toString("utf8"), "stdout");
      clean(result.stderr, "stderr");
      const lines = result.stdout.trim().split("\n");
      assert.ok(
        lines.some((line) => (JSON.parse(line) as { taskId?: string }).taskId === id),
        "the id, as sent",
      );
      assert.doesNotMatch(result.stderr, /workspace/);
    } finally {
      server.close();
    }
  });

  it("a terminal (tmux), the screen and --no-tui: no OSC, DCS, screen clear or C1 reaches it; colour does", async (t) => {
    if (!HAS_TMUX) return t.skip("tmux is not installed (CI installs it through .ci/run)");
    const server = await serve();
    try {
      for (const mode of ["screen", "plain"]) {
        const pane = `hostile-${mode}`;
        const bytes = join(scratch, `${pane}.out`);
        const args = ["run", envelope, "--server", server.url, "--token-file", tokenFile];
        tmux.binary(pane, mode === "plain" ? [...args, "--no-tui"] : args, { envPrefix: "read go; " });
        tmux.run("pipe-pane", "-o", "-t", pane, `cat >> ${quote(bytes)}`);
        tmux.keys(pane, "Enter");
        const done = await tmux.waitFor(pane, "EXIT=", (screen) => /^EXIT=\d+$/m.test(screen), 30_000);
        assert.match(done, /^EXIT=4$/m, done);
        const written = readFileSync(bytes, "utf8");
        clean(written, mode);
        assert.ok(written.includes("\\u001b]52"), `${mode}: the server's words shown escaped`);
        assert.doesNotMatch(tmux.history(pane), /is the workspace right/);
        if (mode === "plain") assert.ok(written.includes("\u001b[31mred\u001b[0m"), "plain: the colour is kept");
      }
    } finally {
      server.close();
    }
  });
});

describe("every failure names the URL and what happened", { timeout: 60_000 }, () => {
  for (const binding of ["JSONRPC", "HTTP+JSON"]) {
    it(`${binding}: a card that declares the extension, whose endpoint answers 500: the URL and the status, exit 4`, async () => {
      const server = await hostile((req, res) => {
        if (!isCard(req)) return json(res, {}, 500);
        const served = card(`http://${req.headers.host}/a2a`);
        json(res, { ...served, supportedInterfaces: [{ ...served.supportedInterfaces[0], protocolBinding: binding }] });
      });
      try {
        for (const result of await runAndList(server.url)) {
          assert.equal(result.code, 4, result.stderr);
          assert.match(result.stderr, /http:\/\/127\.0\.0\.1:\d+\/a2a\S* answered 500 Internal Server Error: /);
          assert.doesNotMatch(result.stderr, /^adapter-command: An unexpected error occurred\.$/m);
        }
      } finally {
        server.close();
      }
    });
  }
});
