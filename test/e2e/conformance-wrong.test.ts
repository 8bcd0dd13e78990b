// The suite catches a runtime that is wrong: a proxy in front of a real `serve --http` breaks one rule at a time,
// and the scenario for that rule fails; through the same proxy left alone, those scenarios pass (so the proxy is
// not what they catch).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import {
  type Breakage,
  conformanceWorkspace,
  type Exchange,
  resultsOf,
  runConformance,
  startProxy,
} from "../helpers/conformance.js";
import { ADAPTER_URI, type HttpServer, startHttp } from "../helpers/http-server.js";

describe("conformance against a runtime that breaks one rule", { timeout: 300_000 }, () => {
  let server: HttpServer;
  let workspace: Awaited<ReturnType<typeof conformanceWorkspace>>;
  let tokenFile = "";
  before(async () => {
    workspace = await conformanceWorkspace();
    server = await startHttp(["--workspace", workspace.dir, "--require-extensions", "--quiet"]);
    tokenFile = server.start.tokenFile as string;
  });
  after(async () => {
    await server?.close();
    workspace?.cleanup();
  });

  /** Runs `ids` on `binding` through a proxy that applies `breakage`; the results by id. */
  async function through(breakage: Breakage, binding: string, ids: string[]) {
    const proxy = await startProxy(server.url, breakage);
    try {
      const only = ids.flatMap((id) => ["--only", id]);
      const { code, report } = await runConformance([
        "--server",
        proxy.url,
        "--token-file",
        tokenFile,
        "--binding",
        binding,
        ...only,
      ]);
      return { code, report, verdict: (id: string) => resultsOf(report, id).map((result) => result.verdict) };
    } finally {
      proxy.close();
    }
  }

  it("through a proxy that changes nothing, the scenarios below pass", async () => {
    const ids = ["IDEM-AC-1", "HITL-CF-6", "ADAPTER-REFUSE-MODE"];
    for (const binding of ["rest", "jsonrpc"]) {
      const { report } = await through({}, binding, ids);
      for (const id of ids)
        assert.deepEqual(
          resultsOf(report, id).map((r) => [r.verdict, r.found]),
          [["pass", undefined]],
          `${id} on ${binding}`,
        );
    }
  });

  it("a 409 for a task that cannot be canceled fails A2A-ERR-NOT-CANCELABLE", async () => {
    const breakage: Breakage = {
      response: (exchange: Exchange) =>
        exchange.path.endsWith(":cancel") && exchange.status === 400 ? { ...exchange, status: 409 } : exchange,
    };
    const { code, report } = await through(breakage, "rest", ["A2A-ERR-NOT-CANCELABLE"]);
    const [result] = resultsOf(report, "A2A-ERR-NOT-CANCELABLE");
    assert.equal(result?.verdict, "fail", JSON.stringify(result));
    assert.match(String(result?.found), /HTTP 409/);
    assert.match(String(result?.expected), /HTTP 400 FAILED_PRECONDITION/);
    assert.equal(code, 1);
  });

  for (const binding of ["rest", "jsonrpc"]) {
    it(`${binding}: a replay that differs by one byte fails IDEM-AC-1`, async () => {
      const breakage: Breakage = {
        response: (exchange) => {
          if (exchange.headers["idempotent-replayed"] !== "true") return exchange;
          const text = exchange.body.toString("utf8");
          const at = text.indexOf('"timestamp":"') + '"timestamp":"'.length + 22; // a digit of the milliseconds
          const digit = String((Number(text[at]) + 1) % 10);
          return { ...exchange, body: Buffer.from(text.slice(0, at) + digit + text.slice(at + 1)) };
        },
      };
      const { report } = await through(breakage, binding, ["IDEM-AC-1"]);
      const [result] = resultsOf(report, "IDEM-AC-1");
      assert.equal(result?.verdict, "fail", JSON.stringify(result));
      assert.match(String(result?.expected), /byte for byte/);
    });
  }

  it("a replay without Idempotent-Replayed fails IDEM-AC-1", async () => {
    const breakage: Breakage = {
      response: (exchange) => {
        const { "idempotent-replayed": _gone, ...headers } = exchange.headers;
        return { ...exchange, headers };
      },
    };
    const { report } = await through(breakage, "rest", ["IDEM-AC-1"]);
    const [result] = resultsOf(report, "IDEM-AC-1");
    assert.equal(result?.verdict, "fail", JSON.stringify(result));
    assert.match(String(result?.expected), /Idempotent-Replayed: true/);
    assert.match(String(result?.found), /\(absent\)/);
  });

  it("a prompt_id that changes when the prompt is replayed fails HITL-CF-6", async () => {
    const breakage: Breakage = {
      sseLine: (path, line) =>
        path.includes(":subscribe")
          ? line.replace(/"prompt_id":"[0-9a-f-]{36}"/g, `"prompt_id":"${randomUUID()}"`)
          : line,
    };
    const { report } = await through(breakage, "rest", ["HITL-CF-6"]);
    const [result] = resultsOf(report, "HITL-CF-6");
    assert.equal(result?.verdict, "fail", JSON.stringify(result));
    assert.match(String(result?.expected), /same response_schema/);
  });

  for (const binding of ["rest", "jsonrpc"]) {
    it(`${binding}: an echo success for a refused envelope fails ADAPTER-REFUSE-MODE`, async () => {
      // The envelope of an unsupported mode is taken off the message on its way in, so the server echoes it.
      const breakage: Breakage = {
        request: (_path, body) => {
          if (body.length === 0) return body;
          const json = JSON.parse(body.toString("utf8"));
          const message = json.message ?? json.params?.message;
          if (message?.metadata?.[ADAPTER_URI]?.mode !== "apply") return body;
          delete message.metadata;
          return Buffer.from(JSON.stringify(json));
        },
      };
      const { report } = await through(breakage, binding, ["ADAPTER-REFUSE-MODE"]);
      const [result] = resultsOf(report, "ADAPTER-REFUSE-MODE");
      assert.equal(result?.verdict, "fail", JSON.stringify(result));
      assert.match(String(result?.found), /TASK_STATE_COMPLETED/);
    });
  }
});
