// `run --server URL` and `tasks` against `serve --http` on both bindings (docs/reference.md, "A task on a server"):
// the same output and exit codes as a local run, answers over hitl-prompt/v1, Ctrl-C cancelling the remote task, a
// stream cut by a proxy and resumed without gap or overlap, and a server that dies mid-run (exit 4).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { AT_ONCE, runCli, started } from "../helpers/cli.js";
import { HITL_URI, type HttpServer, send10, startHttp } from "../helpers/http-server.js";

const scratch = mkdtempSync(join(tmpdir(), "run-server-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

let files = 0;
/** A bare envelope for the fixture runner `name`, in a file of its own (tests that run at once never share one). */
function envelopeFile(name: string, fields: Record<string, unknown> = {}): string {
  const file = join(scratch, `${++files}-${name}-${Object.keys(fields).join("-") || "plain"}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      adapter: "sandbox-agent-runner",
      mode: "plan",
      command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/req.json"],
      working_dir: name,
      timeout_seconds: 30,
      ...fields,
    }),
  );
  return file;
}

function explain(result: { code: number | null; stdout: string; stderr: string }): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

const taskIdIn = (stderr: string) => /task ([0-9a-f-]{36})/.exec(stderr)?.[1] ?? "";

// The bindings, the failures and `tasks` are tested at once, on one server with room for all their tasks: every
// test follows its own task and asserts on nothing another test could change.
describe("run --server and tasks against serve --http", { timeout: 240_000, concurrency: AT_ONCE }, () => {
  let server: HttpServer;
  let tokenFile: string;
  before(async () => {
    server = await startHttp(["--settle-ms", "100", "--quiet", "--max-concurrent", "16"]);
    tokenFile = server.start.tokenFile as string;
  });
  after(async () => {
    await server?.close();
  });

  for (const binding of ["jsonrpc", "rest"] as const) {
    // One binding's tests one after another; the two bindings at once.
    describe(`--binding ${binding}`, { concurrency: false }, () => {
      const remote = (args: string[], input = "") =>
        runCli(["run", "--server", server.url, "--token-file", tokenFile, "--binding", binding, ...args], {
          input,
          timeoutMs: 40_000,
        });

      it("a completed run: its output, exit 0", async () => {
        const result = await remote(["--verbose", envelopeFile("ok")]);
        assert.equal(result.code, 0, explain(result));
        assert.equal(result.stdout, "ok\n");
        assert.match(result.stderr, new RegExp(`connected over ${binding === "rest" ? "HTTP\\+JSON" : "JSONRPC"}`));
        assert.match(result.stderr, /completed: the command exited with code 0 · task /);
      });

      it("a failing command: its stderr, exit 1", async () => {
        const result = await remote([envelopeFile("exit3")]);
        assert.equal(result.code, 1, explain(result));
        assert.match(result.stderr, /failing\n/);
        assert.match(result.stderr, /code 3\b/);
      });

      it("an envelope the server rejects: its problems as validate prints them, exit 3", async () => {
        const result = await remote([envelopeFile("ok", { mode: "bogus" })]);
        assert.equal(result.code, 3, explain(result));
        assert.match(result.stderr, /envelope\.mode: expected "plan" or "assess", found "bogus" \[invalid_value\]/);
        assert.match(result.stderr, /^adapter-command: rejected: 1 problem \(above\); nothing ran$/m);
      });

      it("a prompt answered with --answer: exit 0", async () => {
        const result = await remote(["--answer", "y", envelopeFile("ask", { input_mode: "text-line" })]);
        assert.equal(result.code, 0, explain(result));
        assert.match(result.stdout, /Continue\? \[y\/N\] /);
        assert.match(result.stderr, /answered "Continue\? \[y\/N\]" with "y"/);
      });

      it("a prompt answered from stdin with --input-mode text-line: exit 0", async () => {
        const result = await remote(["--input-mode", "text-line", envelopeFile("ask")], "y\n");
        assert.equal(result.code, 0, explain(result));
      });

      it("a prompt with no answer left (stdin at its end): the task is canceled on the server, exit 130", async () => {
        const result = await remote(["--input-mode", "text-line", envelopeFile("ask")], "");
        assert.equal(result.code, 130, explain(result));
        assert.match(result.stderr, /no answer left for "Continue\? \[y\/N\]": canceling the task/);
        const task = await server.call("GetTask", { id: taskIdIn(result.stderr) });
        assert.equal(task.status.state, "TASK_STATE_CANCELED");
      });

      it("--json: the task's events as NDJSON, the last one the completed status", async () => {
        const result = await remote(["--json", envelopeFile("ok")]);
        assert.equal(result.code, 0, explain(result));
        const lines = result.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line));
        assert.ok(lines.length >= 2, result.stdout);
        assert.equal(lines.at(-1).status?.state, "completed", result.stdout);
      });

      it("Ctrl-C cancels the task on the server: GetTask says canceled, exit 130", async () => {
        const run = started(
          ["run", "--server", server.url, "--token-file", tokenFile, "--binding", binding, envelopeFile("pid-hang")],
          { guardMs: 60_000 },
        );
        try {
          await run.waitFor(/pid \d+/, 30_000);
          run.child.kill("SIGINT");
          const code = await run.closed;
          assert.equal(code, 130, run.stderr());
          const id = taskIdIn(run.stderr());
          const task = await server.call("GetTask", { id });
          assert.equal(task.status.state, "TASK_STATE_CANCELED");
        } finally {
          run.stop();
        }
      });
    });
  }

  it("a card without adapter-command/v1 is refused before anything is sent: exit 4", async () => {
    const card = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          name: "plain agent",
          description: "no extensions",
          version: "1",
          supportedInterfaces: [{ url: "http://127.0.0.1:9/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
          capabilities: { streaming: true, extensions: [] },
          defaultInputModes: ["text/plain"],
          defaultOutputModes: ["text/plain"],
          skills: [],
        }),
      );
    });
    await new Promise<void>((resolve) => card.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(card.address() as AddressInfo).port}`;
      const result = await runCli(["run", "--server", url, envelopeFile("ok")]);
      assert.equal(result.code, 4, explain(result));
      assert.match(
        result.stderr,
        /does not declare https:\/\/agentic-sandbox\.aiwg\.io\/extensions\/adapter-command\/v1/,
      );
    } finally {
      card.close();
    }
  });

  it("a wrong token is refused, and the token is never printed: exit 4", async () => {
    const wrong = join(scratch, "wrong-token");
    writeFileSync(wrong, "not-the-token-123\n");
    const result = await runCli(["run", "--server", server.url, "--token-file", wrong, envelopeFile("ok")]);
    assert.equal(result.code, 4, explain(result));
    assert.match(result.stderr, /refused the token \(401\)/);
    assert.doesNotMatch(result.stderr + result.stdout, /not-the-token-123/);
  });

  it("nothing listening: a clear error, exit 4", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await runCli(["run", "--server", `http://127.0.0.1:${port}`, envelopeFile("ok")]);
    assert.equal(result.code, 4, explain(result));
    assert.match(result.stderr, /nothing listens there \(ECONNREFUSED\)/);
  });

  describe("tasks", () => {
    const tasks = (args: string[]) =>
      runCli(["tasks", ...args, "--server", server.url, "--token-file", tokenFile], { timeoutMs: 30_000 });
    /** A text-line task whose prompt is open: a blocking SendMessage answers at input-required (CONTRACT 7.1). */
    const asking = async () => {
      const result = await server.call(
        "SendMessage",
        send10("go", { envelope: { working_dir: "ask", input_mode: "text-line" } }),
        {
          "A2A-Extensions": HITL_URI,
        },
      );
      assert.equal(result.task.status.state, "TASK_STATE_INPUT_REQUIRED");
      return result.task.id as string;
    };

    it("show, answer and watch a task with a prompt (--json fields as gh has them)", async () => {
      const id = await asking();
      const shown = await tasks(["show", id, "--json", "id,state,prompt"]);
      assert.equal(shown.code, 0, explain(shown));
      assert.deepEqual(JSON.parse(shown.stdout), { id, state: "input-required", prompt: "Continue? [y/N]" });
      const answered = await tasks(["answer", id, "y", "--json", "state"]);
      assert.equal(answered.code, 0, explain(answered));
      const watched = await tasks(["watch", id, "--no-tui"]);
      assert.equal(watched.code, 0, explain(watched));
      assert.match(watched.stdout, /answer: y\n/);
      const again = await tasks(["answer", id, "y"]);
      assert.equal(again.code, 1, explain(again));
      assert.match(again.stderr, /has no open prompt: it is completed/);
      const full = await tasks(["show", id]);
      assert.match(full.stdout, /completed/);
      assert.match(full.stdout, /--- stdout\nContinue\? \[y\/N\] answer: y/);
    });

    it("cancel a task, then list it with the status filter", async () => {
      const id = await asking();
      const canceled = await tasks(["cancel", id, "--json", "id,state"]);
      assert.equal(canceled.code, 0, explain(canceled));
      assert.deepEqual(JSON.parse(canceled.stdout), { id, state: "canceled" });
      const listed = await tasks(["list", "--status", "canceled", "--json", "id,state"]);
      assert.equal(listed.code, 0, explain(listed));
      const rows = JSON.parse(listed.stdout) as { id: string; state: string }[];
      assert.ok(rows.some((row) => row.id === id));
      assert.ok(rows.every((row) => row.state === "canceled" && Object.keys(row).length === 2));
      const table = await tasks(["list", "--page-size", "1"]);
      assert.equal(table.code, 0, explain(table));
      assert.match(table.stdout, /^ID +STATE +UPDATED/);
      assert.match(table.stderr, /more: --page-token /);
      const again = await tasks(["cancel", id]);
      assert.equal(again.code, 1, explain(again));
    });

    it("an unknown --json field is a usage error naming the fields there are", async () => {
      const result = await tasks(["list", "--json", "id,nope"]);
      assert.equal(result.code, 2, explain(result));
      assert.match(result.stderr, /unknown JSON field: nope; available: id, contextId, state/);
    });
  });
});

/**
 * An HTTP proxy in front of `serve --http` that rewrites the card to point at itself and cuts the first event
 * stream once `cutAfter` has passed through it: the client must resume (CONTRACT 9.4).
 */
async function cuttingProxy(
  upstream: string,
  cutAfter: RegExp,
): Promise<{ url: string; cuts: () => number; close: () => void }> {
  const target = new URL(upstream);
  let cuts = 0;
  let url = "";
  const proxy: Server = createServer((req, res) => {
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        const isCard = req.url?.startsWith("/.well-known/agent-card.json");
        const isStream = String(answer.headers["content-type"]).startsWith("text/event-stream");
        if (isCard) {
          let body = "";
          answer.setEncoding("utf8").on("data", (chunk: string) => {
            body += chunk;
          });
          answer.on("end", () => {
            const text = body.split(target.origin).join(url);
            const headers = { ...answer.headers, "content-length": String(Buffer.byteLength(text)) };
            delete headers.etag;
            res.writeHead(answer.statusCode ?? 200, headers).end(text);
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 200, answer.headers);
        if (!isStream || cuts > 0) {
          answer.pipe(res);
          return;
        }
        let seen = "";
        answer.on("data", (chunk: Buffer) => {
          if (cuts > 0) return;
          res.write(chunk);
          seen += chunk.toString("utf8");
          if (cutAfter.test(seen)) {
            cuts += 1;
            answer.destroy();
            res.socket?.destroy();
          }
        });
        answer.on("end", () => res.end());
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  return { url, cuts: () => cuts, close: () => proxy.close() };
}

describe("run --server when the stream breaks", { timeout: 120_000, concurrency: AT_ONCE }, () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp(["--quiet"]);
  });
  after(async () => {
    await server?.close();
  });

  for (const binding of ["jsonrpc", "rest"] as const) {
    it(`${binding}: a stream cut after some output is resumed: every line exactly once, exit 0`, async () => {
      const proxy = await cuttingProxy(server.url, /out 5\b/);
      try {
        const result = await runCli(
          [
            "run",
            "--server",
            proxy.url,
            "--token-file",
            server.start.tokenFile as string,
            "--binding",
            binding,
            "--verbose",
            envelopeFile("interleave-slow"),
          ],
          { timeoutMs: 40_000 },
        );
        assert.equal(result.code, 0, explain(result));
        assert.equal(proxy.cuts(), 1, "the proxy cut the first stream");
        assert.match(result.stderr, /the stream broke .*: resuming/);
        const expected = (prefix: string) => Array.from({ length: 50 }, (_, i) => `${prefix} ${i + 1}`);
        assert.deepEqual(result.stdout.trim().split("\n"), expected("out"));
        const errLines = result.stderr.split("\n").filter((line) => /^err \d+$/.test(line));
        assert.deepEqual(errLines, expected("err"));
      } finally {
        proxy.close();
      }
    });
  }

  it("a server killed mid-run: a clear error after bounded retries, exit 4", async () => {
    const doomed = await startHttp(["--quiet"]);
    const run = started(
      ["run", "--server", doomed.url, "--token-file", doomed.start.tokenFile as string, envelopeFile("pid-hang")],
      {
        guardMs: 60_000,
      },
    );
    let pid = 0;
    try {
      pid = Number((await run.waitFor(/pid (\d+)/))[1]);
      doomed.child.kill("SIGKILL");
      const code = await run.closed;
      assert.equal(code, 4, run.stderr());
      assert.match(run.stderr(), /gave up after \d+ attempts to resume/);
      assert.match(run.stderr(), /ECONNREFUSED|nothing listens/);
    } finally {
      run.stop();
      // The killed server could not stop its command: the test does, by its process group.
      if (pid > 0)
        try {
          process.kill(-pid, "SIGKILL");
        } catch {}
    }
  });
});
