// The pure parts of the conformance suite: the §5.4 table and its check, the card's reading, the reports, the
// selection of scenarios, the percentile of CF-4, and the runner that `init` writes.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { cardInfo, ServerProblem } from "../../src/conformance/card.js";
import { detailsOf, extensionsOf } from "../../src/conformance/driver.js";
import { grpcTarget } from "../../src/conformance/driver-grpc.js";
import { A2A_ERRORS, expectA2AError } from "../../src/conformance/errors.js";
import { cardShapeProblems } from "../../src/conformance/family-a2a.js";
import { p95 } from "../../src/conformance/family-hitl.js";
import { junitReport, xmlText } from "../../src/conformance/report-junit.js";
import { resultLine, summaryLine } from "../../src/conformance/report-text.js";
import { Mismatch, type Result } from "../../src/conformance/scenario.js";
import { SCENARIOS, selectScenarios } from "../../src/conformance/scenarios.js";
import { RUNNER_PATH, requestPath, writeWorkspace } from "../../src/conformance/workspace.js";

const INFO = "type.googleapis.com/google.rpc.ErrorInfo";

describe("conformance: the §5.4 table", () => {
  it("derives each reason from the error's name", () => {
    assert.deepEqual(
      Object.values(A2A_ERRORS).map((row) => row.reason),
      [
        "TASK_NOT_FOUND",
        "TASK_NOT_CANCELABLE",
        "PUSH_NOTIFICATION_NOT_SUPPORTED",
        "UNSUPPORTED_OPERATION",
        "CONTENT_TYPE_NOT_SUPPORTED",
        "INVALID_AGENT_RESPONSE",
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
        "EXTENSION_SUPPORT_REQUIRED",
        "VERSION_NOT_SUPPORTED",
      ],
    );
    assert.deepEqual(
      Object.values(A2A_ERRORS).map((row) => row.http),
      [404, 400, 400, 400, 400, 500, 400, 400, 400],
    );
  });

  it("a REST 409 for not cancelable fails; 400 FAILED_PRECONDITION with the ErrorInfo passes", () => {
    const row = A2A_ERRORS.taskNotCancelable;
    const error = {
      httpStatus: 400,
      status: "FAILED_PRECONDITION",
      message: "",
      reason: row.reason,
      domain: "a2a-protocol.org",
    };
    expectA2AError("rest", error, row);
    assert.throws(() => expectA2AError("rest", { ...error, httpStatus: 409 }, row), Mismatch);
    assert.throws(() => expectA2AError("rest", { ...error, domain: "example.org" }, row), Mismatch);
    assert.throws(() => expectA2AError("rest", undefined, row, { id: "t" }), /a success/);
    expectA2AError("jsonrpc", { code: -32002, message: "", reason: row.reason, domain: "a2a-protocol.org" }, row);
    assert.throws(
      () =>
        expectA2AError("jsonrpc", { code: -32001, message: "", reason: row.reason, domain: "a2a-protocol.org" }, row),
      Mismatch,
    );
    expectA2AError(
      "grpc",
      { status: "FAILED_PRECONDITION", message: "", reason: row.reason, domain: "a2a-protocol.org" },
      row,
    );
  });

  it("reads ErrorInfo and BadRequest from typed details", () => {
    assert.deepEqual(
      detailsOf([
        { "@type": INFO, reason: "R", domain: "d", metadata: { a: "b" } },
        { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "/x" }] },
        "junk",
        null,
      ]),
      { reason: "R", domain: "d", infoMetadata: { a: "b" }, fieldViolations: [{ field: "/x" }] },
    );
    assert.deepEqual(detailsOf({ not: "a list" }), {});
  });
});

describe("conformance: the card", () => {
  const card = (interfaces: unknown[], extensions: unknown[] = []) => ({
    supportedInterfaces: interfaces,
    capabilities: { extensions },
  });

  it("takes the 1.0 interfaces on the server's host, and refuses one elsewhere (the token goes only there)", () => {
    const info = cardInfo(
      "http://127.0.0.1:8000",
      "u",
      "",
      card([
        { url: "http://127.0.0.1:8000/a2a/jsonrpc", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
        { url: "http://127.0.0.1:8000/a2a/jsonrpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: "http://evil.example/a2a/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        { url: "127.0.0.1:9000", protocolBinding: "GRPC", protocolVersion: "1.0" },
      ]),
    );
    assert.deepEqual(info.interfaces, { jsonrpc: "http://127.0.0.1:8000/a2a/jsonrpc", grpc: "127.0.0.1:9000" });
    assert.match(String(info.refused.rest), /not on 127\.0\.0\.1/);
  });

  it("lists the required extensions; a card without a 1.0 interface is a server problem", () => {
    const info = cardInfo(
      "http://127.0.0.1:1",
      "u",
      "",
      card(
        [{ url: "http://127.0.0.1:1/x", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
        [{ uri: "a", required: true }, { uri: "b", required: false }, { uri: "c" }],
      ),
    );
    assert.deepEqual(info.required, ["a"]);
    assert.equal(info.extension("b")?.required, false);
    assert.throws(() => cardInfo("http://127.0.0.1:1", "u", "", card([])), ServerProblem);
    assert.equal(
      extensionsOf({ url: "", token: undefined, required: ["a"], timeoutMs: 1 }, { extensions: ["b", "a"] }),
      "a, b",
    );
    assert.equal(
      extensionsOf({ url: "", token: undefined, required: ["a"], timeoutMs: 1 }, { noExtensions: true }),
      undefined,
    );
  });

  it("names every missing required field of the card", () => {
    const good = {
      name: "n",
      description: "d",
      version: "1",
      supportedInterfaces: [{ url: "http://h/x", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      capabilities: {},
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "s", name: "s", description: "s", tags: [] }],
    };
    assert.deepEqual(cardShapeProblems(good), []);
    const { name: _name, ...noName } = good;
    assert.deepEqual(cardShapeProblems({ ...noName, skills: [{ id: "s" }] }), [
      "name a string",
      "skills[0].name a string",
      "skills[0].description a string",
      "skills[0].tags a list of strings",
    ]);
  });

  it("reads a gRPC target with or without a scheme", () => {
    assert.equal(grpcTarget("127.0.0.1:9000"), "127.0.0.1:9000");
    assert.equal(grpcTarget("grpc://127.0.0.1:9000/"), "127.0.0.1:9000");
  });
});

describe("conformance: reports and selection", () => {
  const result = (verdict: Result["verdict"], extra: Partial<Result> = {}): Result => ({
    id: "A2A-X",
    family: "A2A",
    source: "A2A 1.0.1 §5.4",
    title: "t",
    binding: "rest",
    verdict,
    ms: 12,
    ...extra,
  });

  it("one line per result, what the server said escaped", () => {
    assert.equal(resultLine(result("pass")), "PASS A2A-X [rest] — A2A 1.0.1 §5.4");
    assert.equal(
      resultLine(result("fail", { expected: "400", found: "409 \u001b[31m", setup: "memory" })),
      "FAIL A2A-X [rest] (memory) — A2A 1.0.1 §5.4: expected 400; found 409 \\u001b[31m",
    );
    assert.equal(resultLine(result("skip", { reason: "why", binding: "-" })), "SKIP A2A-X — A2A 1.0.1 §5.4: why");
    assert.equal(
      summaryLine([result("pass"), result("skip")], 1500),
      "2 scenarios: 1 passed, 0 failed, 1 skipped (1.5 s)",
    );
  });

  it("JUnit: a suite per family, failures and skips, text escaped", () => {
    const xml = junitReport(
      [
        result("pass"),
        result("fail", { expected: "<a>", found: 'b"\u0001' }),
        result("skip", { family: "IDEM", id: "IDEM-AC-4", reason: "no restart" }),
      ],
      2000,
    );
    assert.match(
      xml,
      /<testsuites name="adapter-command conformance" tests="3" failures="1" skipped="1" time="2.000">/,
    );
    assert.match(xml, /<testsuite name="A2A" tests="2" failures="1" skipped="0"/);
    assert.match(xml, /<failure message="expected &lt;a&gt;; found b&quot;\\u0001">/);
    assert.match(
      xml,
      /<testcase classname="IDEM" name="IDEM-AC-4 \[rest\]"[^>]*>\n.*\n {6}<skipped message="no restart"\/>/,
    );
    assert.equal(xmlText("\u0000&"), "\\u0000&amp;");
  });

  it("ids are unique, every scenario names its source, --only is a case-insensitive prefix", () => {
    const ids = SCENARIOS.map((scenario) => scenario.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const scenario of SCENARIOS) assert.match(scenario.source, /§|CF-|seed|spec|proto/, scenario.id);
    assert.deepEqual(
      selectScenarios(["hitl-cf-"]).map((scenario) => scenario.id),
      ["HITL-CF-1", "HITL-CF-2", "HITL-CF-3", "HITL-CF-4", "HITL-CF-5", "HITL-CF-6"],
    );
    assert.ok(!selectScenarios(["IDEM"], ["IDEM-AC-4"]).some((scenario) => scenario.id === "IDEM-AC-4"));
  });

  it("p95 is the nearest-rank percentile", () => {
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    assert.equal(p95(twenty), 19);
    assert.equal(p95([...twenty.slice(0, 19), 5000]), 19);
    assert.equal(p95([...twenty.slice(0, 18), 5000, 5000]), 5000);
  });
});

describe("conformance: the runner init writes", () => {
  it("prints, reads one answer with what follows it, prints its environment, exits with the code asked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "conformance-runner-"));
    try {
      await writeWorkspace(dir);
      const run = (request: Parameters<typeof requestPath>[0], input: string) =>
        spawnSync(process.execPath, [RUNNER_PATH, "--request", requestPath(request)], {
          cwd: dir,
          input,
          encoding: "utf8",
          env: { ...process.env, AIWG_A2A_ADAPTER_MODE: "assess" },
        });
      const asked = run("ask-linger", "yes\n");
      assert.equal(asked.stdout, 'Proceed? [y/N] \nreceived="yes\\n"\n');
      assert.equal(run("ask", "").stdout, "Proceed? [y/N] \nreceived=null\n");
      const failed = run("exit-3", "");
      assert.equal(failed.status, 3);
      assert.equal(failed.stderr, "conformance: exit 3\n");
      assert.match(run("env", "").stdout, /^AIWG_A2A_ADAPTER=null\nAIWG_A2A_ADAPTER_MODE="assess"\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
