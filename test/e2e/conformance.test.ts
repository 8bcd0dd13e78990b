// `adapter-command conformance`: --self passes every scenario with none skipped (and says so as JSON and JUnit),
// init writes the workspace, and the exit codes for usage (2) and a server that cannot be checked (4).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { AT_ONCE, runCli } from "../helpers/cli.js";
import { conformanceWorkspace, resultsOf, runConformance } from "../helpers/conformance.js";
import { startHttp } from "../helpers/http-server.js";

const scratch = mkdtempSync(join(tmpdir(), "conformance-e2e-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

// Every test has its own servers and folders, so they run at once: most of --self's time is its scenarios' waits.
describe("conformance", { timeout: 300_000, concurrency: AT_ONCE }, () => {
  it("--self: every scenario passes, none skipped, on every binding and in both set-ups; JSON and JUnit", async () => {
    const junit = join(scratch, "junit.xml");
    const { code, report, stderr } = await runConformance(["--self", "--junit", junit], 240_000);
    const bad = report.results.filter((result) => result.verdict !== "pass");
    assert.deepEqual(bad, [], stderr);
    assert.equal(code, 0);
    assert.deepEqual(
      [report.summary.failed, report.summary.skipped, report.summary.passed],
      [0, 0, report.results.length],
    );
    assert.deepEqual(new Set(report.results.map((result) => result.binding)), new Set(["jsonrpc", "rest", "grpc"]));
    assert.deepEqual(new Set(report.results.map((result) => result.setup)), new Set(["memory", "state-dir"]));
    for (const family of ["A2A", "ADAPTER", "HITL", "IDEM", "RUNTIME"])
      assert.ok(
        report.results.some((result) => result.family === family),
        family,
      );
    for (const id of ["IDEM-AC-3", "IDEM-AC-4", "HITL-CF-4", "RUNTIME-CONF-003", "IDEM-7.1"])
      assert.ok(
        report.results.some((result) => result.id === id),
        id,
      );
    for (const result of report.results) {
      assert.match(result.source, /\S/);
      assert.equal(typeof result.ms, "number");
    }
    const xml = readFileSync(junit, "utf8");
    assert.match(
      xml,
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="adapter-command conformance" tests="(\d+)" failures="0" skipped="0"/,
    );
    assert.equal(xml.match(/<testcase /g)?.length, report.results.length);
    assert.equal(xml.match(/<testsuite /g)?.length, 5);
  });

  it("prints one line per scenario and a summary; --only picks by prefix", async () => {
    const result = await runCli(["conformance", "--self", "--only", "a2a-card"], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split("\n");
    assert.deepEqual(
      lines.slice(0, -1).map((line) => line.split(" — ")[0]),
      [
        "PASS A2A-CARD-SHAPE [jsonrpc] (memory)",
        "PASS A2A-CARD-INTERFACES [jsonrpc] (memory)",
        "PASS A2A-CARD-SIGNATURE [jsonrpc] (memory)",
      ],
    );
    assert.match(lines[0] as string, / — A2A 1\.0\.1 a2a\.proto AgentCard/);
    assert.match(lines.at(-1) as string, /^3 scenarios: 3 passed, 0 failed, 0 skipped \(\d+\.\d s\)$/);
  });

  it("--server: IDEM-AC-4 is skipped without --restart-command, fails when the restart fails; a long TTL skips AC-3", async () => {
    const workspace = await conformanceWorkspace();
    const server = await startHttp(["--workspace", workspace.dir, "--require-extensions", "--quiet"]);
    try {
      const args = ["--server", server.url, "--token-file", server.start.tokenFile as string];
      const skipped = await runConformance([...args, "--only", "IDEM-AC-3", "--only", "IDEM-AC-4"]);
      assert.equal(skipped.code, 0, skipped.stdout);
      assert.deepEqual(
        ["IDEM-AC-3", "IDEM-AC-4"].map((id) => resultsOf(skipped.report, id).map((r) => [r.verdict, r.reason])),
        [
          [["skip", "the card's ttl_seconds is 86400: longer than --max-wait (30 s)"]],
          [["skip", "needs --restart-command to restart the runtime"]],
        ],
      );
      const failed = await runConformance([...args, "--only", "IDEM-AC-4", "--restart-command", "/bin/false"]);
      const [result] = resultsOf(failed.report, "IDEM-AC-4");
      assert.equal(result?.verdict, "fail", JSON.stringify(result));
      assert.match(String(result?.found), /--restart-command \/bin\/false exited with 1/);
      assert.equal(failed.code, 1);
    } finally {
      await server.close();
      workspace.cleanup();
    }
  });

  it("init writes the runner and the request files", async () => {
    const dir = join(scratch, "ws");
    const result = await runCli(["conformance", "init", dir]);
    assert.equal(result.code, 0, result.stderr);
    for (const path of [
      ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs",
      ".aiwg/ops/runs/conformance/ask.json",
      ".aiwg/ops/runs/conformance/exit-3.json",
      ".aiwg/ops/adapters/sandbox-agent-runner/conformance/exit-0.json",
    ])
      assert.ok(existsSync(join(dir, path)), path);
    const request = JSON.parse(readFileSync(join(dir, ".aiwg/ops/runs/conformance/exit-3.json"), "utf8"));
    assert.deepEqual(request.steps.at(-1), { exit: 3 });
  });

  it("usage errors exit 2", async () => {
    for (const args of [
      [],
      ["--server", "http://127.0.0.1:1", "--self"],
      ["--server", "ftp://x"],
      ["--self", "--only", "NOPE"],
      ["--self", "--binding", "soap"],
    ]) {
      const result = await runCli(["conformance", ...args]);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    }
  });

  it("a server that cannot be reached, or whose card is not one, exits 4", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await new Promise((resolve) => closed.once("listening", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await runCli(["conformance", "--server", `http://127.0.0.1:${port}`]);
    assert.equal(unreachable.code, 4, unreachable.stderr);
    assert.match(unreachable.stderr, /cannot read the agent card/);

    const notACard = createServer((_req, res) => res.end("\u001b[31mnot json"));
    notACard.listen(0, "127.0.0.1");
    await new Promise((resolve) => notACard.once("listening", resolve));
    try {
      const result = await runCli([
        "conformance",
        "--server",
        `http://127.0.0.1:${(notACard.address() as AddressInfo).port}`,
      ]);
      assert.equal(result.code, 4, result.stderr);
      assert.match(result.stderr, /is not a JSON object: \\u001b\[31mnot json/);
    } finally {
      notACard.close();
    }
  });
});
