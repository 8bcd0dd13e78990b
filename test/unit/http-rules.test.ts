// The pure rules of the HTTP binding: which Hosts name the server, which origins and media types are accepted, how
// query parameters become params, where the token comes from, and REST errors found again from JSON-RPC errors.
import assert from "node:assert/strict";
import { readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import { restErrorOf, restErrorOfRpc, rpcErrorOf, TABLE } from "../../src/a2a/v1_0/errors.js";
import { CoreError, type CoreErrorCode } from "../../src/core/errors.js";
import { parseOrigin } from "../../src/http/guards.js";
import { allowedHosts, baseUrl, isLoopback } from "../../src/http/hosts.js";
import { queryParams } from "../../src/http/rest.js";
import { obtainToken, TokenError } from "../../src/http/token.js";
import { isJsonMediaType } from "../../src/jsonrpc/request-gate.js";
import { tempDir } from "../helpers/state-dir.js";

const CODES: CoreErrorCode[] = [
  "envelope_rejected",
  "invalid_params",
  "task_not_found",
  "task_not_cancelable",
  "hitl_unknown",
  "hitl_invalid",
  "busy",
  "shutting_down",
  "unsupported_operation",
  "push_not_supported",
  "extended_card_not_configured",
  "version_not_supported",
  "content_type_not_supported",
];

describe("Host and Origin rules", () => {
  it("loopback is localhost, 127.0.0.0/8 and ::1, nothing else", () => {
    for (const host of ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]"])
      assert.ok(isLoopback(host), host);
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "localhost.evil.example", "127.0.0.1.evil.example"])
      assert.ok(!isLoopback(host), host);
  });

  it("on loopback the three loopback names with the port are allowed; on another address only that address", () => {
    assert.deepEqual([...allowedHosts("127.0.0.1", 8080)].sort(), ["127.0.0.1:8080", "[::1]:8080", "localhost:8080"]);
    assert.deepEqual([...allowedHosts("::1", 9)].sort(), ["127.0.0.1:9", "[::1]:9", "localhost:9"]);
    assert.deepEqual([...allowedHosts("192.0.2.7", 8080)], ["192.0.2.7:8080"]);
    assert.deepEqual([...allowedHosts("192.0.2.7", 80)].sort(), ["192.0.2.7", "192.0.2.7:80"]);
    const wildcard = allowedHosts("0.0.0.0", 7);
    assert.ok(wildcard.has("127.0.0.1:7") && wildcard.has("localhost:7"));
    assert.ok(![...wildcard].some((host) => host.startsWith("0.0.0.0")));
    assert.equal(baseUrl("0.0.0.0", 7), "http://127.0.0.1:7");
    assert.equal(baseUrl("::1", 7), "http://[::1]:7");
  });

  it("an origin is scheme://host[:port] and nothing more (by property)", () => {
    const origin = fc.record({
      scheme: fc.constantFrom("http", "https"),
      host: fc.domain(),
      port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(origin, fc.webPath(), ({ scheme, host, port }, path) => {
        const defaultPort = (scheme === "http" && port === 80) || (scheme === "https" && port === 443);
        const text = `${scheme}://${host}${port === undefined || defaultPort ? "" : `:${port}`}`;
        assert.equal(parseOrigin(text), text.toLowerCase());
        if (path.replace(/^\/$/, "") !== "")
          assert.equal(parseOrigin(`${text}${path.startsWith("/") ? "" : "/"}${path}`), undefined);
      }),
    );
    for (const bad of ["*", "null", "app.example", "ftp://app.example", "https://app.example/x", "https://a.example?q"])
      assert.equal(parseOrigin(bad), undefined, bad);
  });
});

describe("media types and query parameters", () => {
  it("application/json and application/a2a+json in any case, with any parameters; nothing else (by property)", () => {
    const params = fc.array(fc.constantFrom("; charset=utf-8", ";charset=UTF-8", "; q=1", " ; charset=latin1"));
    fc.assert(
      fc.property(
        fc.constantFrom("application/json", "application/a2a+json"),
        params,
        fc.boolean(),
        (type, ps, upper) => {
          const text = `${upper ? type.toUpperCase() : type}${ps.join("")}`;
          assert.ok(isJsonMediaType(text), text);
        },
      ),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        const type = text.split(";", 1)[0]?.trim().toLowerCase();
        assert.equal(isJsonMediaType(text), type === "application/json" || type === "application/a2a+json");
      }),
    );
    assert.ok(!isJsonMediaType(undefined));
    for (const bad of ["text/plain", "application/jsonl", "application/json-patch+json", "multipart/form-data"])
      assert.ok(!isJsonMediaType(bad), bad);
  });

  it("query parameters: whole numbers and booleans where ListTasks/GetTask take them, the rest as text", () => {
    assert.deepEqual(
      queryParams({
        pageSize: "10",
        historyLength: "0",
        includeArtifacts: "true",
        page_size: "x",
        contextId: "12",
        "A2A-Version": "1.0",
      }),
      { pageSize: 10, historyLength: 0, includeArtifacts: true, page_size: "x", contextId: "12" },
    );
    assert.deepEqual(queryParams({ include_artifacts: "false", pageSize: "1.5" }), {
      include_artifacts: false,
      pageSize: "1.5",
    });
  });
});

describe("REST errors from JSON-RPC errors", () => {
  it("every core error gives the same REST answer either way (by property)", () => {
    const data = fc.record(
      {
        reason: fc.constantFrom("queue_full", "no_live_binding", "unknown_or_answered"),
        prompt_id: fc.uuid(),
        task_id: fc.string(),
        errors: fc.array(fc.record({ path: fc.string(), code: fc.string(), message: fc.string() })),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.constantFrom(...CODES), fc.string(), data, (code, message, extra) => {
        const error = new CoreError(code, message, extra as CoreError["data"]);
        assert.deepEqual(restErrorOfRpc(rpcErrorOf(error)), restErrorOf(error));
      }),
    );
  });

  it("every A2A error's HTTP status and google.rpc status are A2A 1.0.1 §5.4's (400, not 409 or 415)", () => {
    // The released table, code by code (A2A 1.0.1 §5.4; 1.0.0 had 409, 415 and 502 in three rows).
    const table: Record<number, [number, string]> = {
      [-32001]: [404, "NOT_FOUND"],
      [-32002]: [400, "FAILED_PRECONDITION"],
      [-32003]: [400, "FAILED_PRECONDITION"],
      [-32004]: [400, "FAILED_PRECONDITION"],
      [-32005]: [400, "INVALID_ARGUMENT"],
      [-32006]: [500, "INTERNAL"],
      [-32007]: [400, "FAILED_PRECONDITION"],
      [-32008]: [400, "FAILED_PRECONDITION"],
      [-32009]: [400, "FAILED_PRECONDITION"],
    };
    const a2aRows = Object.entries(TABLE).filter(([, row]) => row.domain === "a2a-protocol.org" && table[row.code]);
    assert.ok(a2aRows.length >= 8, "every A2A error this agent answers is checked");
    for (const [code, row] of a2aRows) {
      const [http, status] = table[row.code] as [number, string];
      const error = new CoreError(code as CoreErrorCode, "words", {
        errors: [{ path: "/x", code: "c", message: "m" }],
      });
      const answer = restErrorOf(error);
      assert.deepEqual([answer.http, answer.body.error.status], [http, status], code);
      assert.equal(answer.body.error.code, http, code);
      assert.deepEqual([restErrorOfRpc(rpcErrorOf(error)).http], [http], code);
    }
  });

  it("an error no row knows is 500 INTERNAL; invalid requests are 400", () => {
    assert.equal(restErrorOfRpc({ code: -32603, message: "Internal error", data: [] }).http, 500);
    assert.equal(restErrorOfRpc({ code: -32600, message: "Invalid Request" }).http, 400);
  });
});

describe("obtainToken", () => {
  const dir = () => tempDir("token-unit");

  it("--token-file first, then ADAPTER_COMMAND_TOKEN, then a fresh token in the state dir or a private temp dir", () => {
    const d = dir();
    writeFileSync(join(d, "mine"), "  abc.DEF~123 \n", { mode: 0o600 });
    const env = { ADAPTER_COMMAND_TOKEN: "from-env" };
    const file = obtainToken({ tokenFile: join(d, "mine"), env });
    assert.deepEqual([file.value, file.file, file.warnings], ["abc.DEF~123", join(d, "mine"), []]);
    assert.deepEqual([obtainToken({ env }).value, obtainToken({ env }).file], ["from-env", null]);
    const state = obtainToken({ stateDir: join(d, "state"), env: {} });
    assert.equal(state.file, join(d, "state", "token"));
    assert.equal(readFileSync(state.file as string, "utf8"), `${state.value}\n`);
    assert.equal(Buffer.from(state.value, "base64url").length, 32);
    const temp = obtainToken({ env: { ADAPTER_COMMAND_TOKEN: "  " } });
    assert.equal(statSync(temp.file as string).mode & 0o777, 0o600);
    assert.equal(statSync(join(temp.file as string, "..")).mode & 0o777, 0o700);
    temp.cleanup();
    assert.throws(() => statSync(temp.file as string));
  });

  it("warns about a token file others can read; refuses bad tokens and a symlink where the token goes", () => {
    const d = dir();
    writeFileSync(join(d, "open"), "tok\n", { mode: 0o644 });
    assert.match(obtainToken({ tokenFile: join(d, "open") }).warnings[0] ?? "", /other users/);
    assert.throws(() => obtainToken({ env: { ADAPTER_COMMAND_TOKEN: "has space" } }), TokenError);
    writeFileSync(join(d, "big"), "a".repeat(5000));
    assert.throws(() => obtainToken({ tokenFile: join(d, "big") }), TokenError);
    const state = join(d, "state");
    obtainToken({ stateDir: state, env: {} });
    const target = join(d, "target");
    writeFileSync(target, "keep");
    rmSync(join(state, "token"));
    symlinkSync(target, join(state, "token"));
    assert.throws(() => obtainToken({ stateDir: state, env: {} }), /ELOOP/);
    assert.equal(readFileSync(target, "utf8"), "keep", "the file behind the link is left alone");
  });
});
