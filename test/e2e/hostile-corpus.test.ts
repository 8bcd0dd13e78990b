// One hostile corpus through every binding (docs/security.md, "Hostile requests"): the same send, nested 5000 and
// 101 levels deep, with a key written twice in its metadata or its params written twice, with bytes that are not
// UTF-8, over the size limit, or with a media type that is not JSON, goes to `serve --stdio`, to JSON-RPC over HTTP
// and to REST. Each is refused by the one request gate, in the same words on each binding (its code the binding's
// own: CONTRACT 5.1, 8.1, 8.3); no task is created; every binding still serves afterwards.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ADAPTER_URI, HITL_URI } from "../../src/core/uris.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { answerParams, envelope, textLineParams } from "../helpers/envelopes.js";
import { type HttpServer, startHttp } from "../helpers/http-server.js";
import { assertErrorV1 } from "../helpers/v1-errors.js";
import { artifactText, type Wire } from "../helpers/wire.js";

const LIMIT = 65_536;
const URI_TOKEN = ADAPTER_URI.replaceAll("/", "~1");

let messages = 0;
/** A 1.0 message as JSON text, `metadata` (JSON text) in it when given. */
function messageText(text: string, metadata?: string): string {
  messages += 1;
  const head = `{"messageId":"hostile-${process.pid}-${messages}","role":"ROLE_USER","parts":[{"text":${JSON.stringify(text)}}]`;
  return metadata === undefined ? `${head}}` : `${head},"metadata":${metadata}}`;
}

/** Arrays nested `depth` deep. */
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

/** What a binding answered, reduced to what the gate decided: a JSON-RPC code or an HTTP status, and the words. */
interface Refusal {
  code: number;
  words: string;
  error: Wire;
}

interface Case {
  name: string;
  /** The SendMessage params (a REST body) as bytes. */
  params?: Buffer;
  /** A whole JSON-RPC request, where it is not `params` in a request (a repeated params). */
  request?: (id: string) => Buffer;
  /** The REST body, where it is not `params`. */
  rest?: Buffer;
  contentType?: string;
  /** JSON-RPC code (stdio and HTTP), HTTP status on HTTP JSON-RPC where the contract says so, REST status. */
  rpc: number;
  httpRpcStatus?: number;
  restStatus: number;
  words: RegExp;
  /** The words are the same on every binding (false where the body itself differs, as its size does). */
  sameWords: boolean;
  /** Not on stdio (no media type there). */
  httpOnly?: boolean;
  /** For a refused repeated key: the field it names. */
  field?: string;
}

const HIDDEN = JSON.stringify({ adapter: "sandbox-agent-runner", mode: "plan", command: ["sh", "-c", "id"] });
const VALID = JSON.stringify(envelope({ working_dir: "ok", timeout_seconds: 30 }));
const utf8 = (text: string) => Buffer.from(text);
const params = (message: string) => utf8(`{"message":${message}}`);
/** `text` with its § replaced by `bytes`. */
function withBytes(text: string, bytes: number[]): Buffer {
  const [before, rest] = text.split("§") as [string, string];
  return Buffer.concat([utf8(before), Buffer.from(bytes), utf8(rest)]);
}

const CORPUS: Case[] = [
  {
    name: "metadata nested 5000 levels deep",
    params: params(messageText("x", `{"deep":${nested(5000)}}`)),
    rpc: -32600,
    restStatus: 400,
    words: /^expected at most 100 levels of nesting, found 5003$/,
    sameWords: true,
  },
  {
    name: "params nested 101 levels deep",
    params: params(messageText("x", `{"deep":${nested(98)}}`)),
    rpc: -32600,
    restStatus: 400,
    words: /^expected at most 100 levels of nesting, found 101$/,
    sameWords: true,
  },
  {
    name: "the extension key written twice in metadata (a non-allowlisted envelope hidden first)",
    params: params(messageText("x", `{"${ADAPTER_URI}":${HIDDEN},"${ADAPTER_URI}":${VALID}}`)),
    rpc: -32602,
    restStatus: 400,
    words: /^expected each key once in an object, found "https:.*adapter-command\/v1" again at \/message\/metadata\//,
    sameWords: true,
    field: `/message/metadata/${URI_TOKEN}`,
  },
  {
    name: "params written twice (REST: message written twice)",
    request: (id) =>
      utf8(
        `{"jsonrpc":"2.0","id":"${id}","method":"SendMessage","params":{"message":${messageText("a")}},"params":{"message":${messageText("b")}}}`,
      ),
    rest: utf8(`{"message":${messageText("a")},"message":${messageText("b")}}`),
    rpc: -32602,
    restStatus: 400,
    words: /^expected each key once in an object, found "(params|message)" again/,
    sameWords: false,
  },
  {
    name: "an answer text whose bytes are not UTF-8 (y\\xff\\xfe)",
    params: withBytes(`{"message":${messageText("§")}}`, [0x79, 0xff, 0xfe]),
    rpc: -32700,
    restStatus: 400,
    words: /^expected UTF-8 text, found bytes that are not UTF-8 at byte \d+$/,
    sameWords: false,
  },
  {
    name: `a body over the limit of ${LIMIT} bytes`,
    params: params(messageText("z".repeat(LIMIT + 10))),
    rpc: -32600,
    httpRpcStatus: 413,
    restStatus: 413,
    words: new RegExp(`^a body of \\d+ bytes is over the limit of ${LIMIT}; discarded$`),
    sameWords: false,
  },
  {
    name: "a body whose Content-Type is not JSON",
    params: params(messageText("x")),
    contentType: "text/plain",
    rpc: -32005,
    restStatus: 415,
    words: /^expected Content-Type application\/json or application\/a2a\+json, found text\/plain$/,
    sameWords: true,
    httpOnly: true,
  },
];

const requestOf = (c: Case, id: string): Buffer =>
  c.request
    ? c.request(id)
    : Buffer.concat([
        utf8(`{"jsonrpc":"2.0","id":"${id}","method":"SendMessage","params":`),
        c.params as Buffer,
        utf8("}"),
      ]);

/** The words of a JSON-RPC error: `data.detail` for -32600 and -32700, else its message. */
function rpcRefusal(response: Wire): Refusal {
  const error = response.error;
  assert.ok(error, `an error answer: ${JSON.stringify(response)}`);
  return { code: error.code, words: error.data?.detail ?? error.message, error };
}

describe("the hostile corpus, through stdio, HTTP JSON-RPC and REST", { timeout: 120_000 }, () => {
  let bridge: RpcBridge;
  let http: HttpServer;
  before(async () => {
    bridge = startBridge({ args: ["--max-line-bytes", String(LIMIT)] });
    [http] = await Promise.all([startHttp(["--max-body-bytes", String(LIMIT)]), bridge.ready()]);
  });
  after(async () => {
    await bridge?.close();
    await http?.close();
  });

  for (const c of CORPUS) {
    it(`${c.name}: the same refusal on every binding, and no task`, async () => {
      const seen: Array<[string, Refusal]> = [];
      const id = `hostile-${messages}`;
      if (!c.httpOnly) {
        bridge.sendLine(requestOf(c, id));
        const response = await bridge.nextRawResponse();
        const refusal = rpcRefusal(response);
        assert.equal(refusal.code, c.rpc, `stdio: ${JSON.stringify(response)}`);
        if (c.rpc !== -32700) assert.equal(response.id, id, "stdio: the answer carries the request's id");
        seen.push(["stdio", refusal]);
      }
      const headers: Record<string, string> = c.contentType ? { "Content-Type": c.contentType } : {};
      const overHttp = await http.fetch("/a2a/jsonrpc", { method: "POST", headers, body: requestOf(c, id) });
      if (c.httpRpcStatus) {
        assert.equal(overHttp.status, c.httpRpcStatus, overHttp.text);
        seen.push(["HTTP JSON-RPC", { code: c.rpc, words: overHttp.body.error.message, error: overHttp.body.error }]);
      } else {
        assert.equal(overHttp.status, 200, overHttp.text);
        const refusal = rpcRefusal(overHttp.body);
        assert.equal(refusal.code, c.rpc, `HTTP JSON-RPC: ${overHttp.text}`);
        seen.push(["HTTP JSON-RPC", refusal]);
      }
      const rest = await http.fetch("/a2a/rest/message:send", {
        method: "POST",
        headers,
        body: c.rest ?? c.params,
      });
      assert.equal(rest.status, c.restStatus, `REST: ${rest.text}`);
      seen.push(["REST", { code: rest.status, words: rest.body.error.message, error: rest.body.error }]);

      for (const [binding, refusal] of seen) assert.match(refusal.words, c.words, `${binding}: ${refusal.words}`);
      if (c.sameWords)
        assert.deepEqual(
          new Set(seen.map(([, refusal]) => refusal.words)).size,
          1,
          `the same words: ${JSON.stringify(seen.map(([b, r]) => [b, r.words]))}`,
        );
      if (c.field) {
        // 1.0 shapes: a BadRequest names the field on JSON-RPC and REST alike.
        for (const [binding, refusal] of seen) {
          const details =
            binding === "REST" ? { code: -32602, message: "", data: refusal.error.details } : refusal.error;
          const { violations } = assertErrorV1(details, -32602, "INVALID_PARAMS");
          assert.deepEqual(
            violations?.map((v) => [v.field, v.reason]),
            [[c.field, "duplicate_key"]],
            binding,
          );
        }
      }
      // Nothing was created, on either runtime.
      assert.deepEqual((await bridge.call("ListTasks", {})).tasks ?? [], []);
      assert.deepEqual((await http.call("ListTasks", {})).tasks ?? [], []);
    });
  }

  it("100 levels below the params are still taken, the same on every binding", async () => {
    const body = params(messageText("deep but allowed", `{"deep":${nested(97)}}`));
    const viaStdio = (await bridge.call("SendMessage", JSON.parse(body.toString()))) as Wire;
    assert.equal(viaStdio.task?.status?.state, "TASK_STATE_COMPLETED", JSON.stringify(viaStdio));
    const viaHttp = await http.fetch("/a2a/jsonrpc", {
      method: "POST",
      body: requestOf({ params: body } as Case, "ok"),
    });
    assert.equal(viaHttp.body.result?.task?.status?.state, "TASK_STATE_COMPLETED", viaHttp.text);
    const viaRest = await http.fetch("/a2a/rest/message:send", { method: "POST", body });
    assert.equal(viaRest.status, 200, viaRest.text);
    assert.equal(viaRest.body.task?.status?.state, "TASK_STATE_COMPLETED", viaRest.text);
  });

  it("an answer whose text is not UTF-8 (y\\xff\\xfe) never reaches the command: -32700, and a valid one does", async () => {
    const viaStdio = {
      send: (params: unknown) => bridge.call("message/send", params),
      raw: async (bytes: Buffer) => {
        bridge.sendLine(bytes);
        return bridge.nextRawResponse();
      },
      get: (id: string) => bridge.waitTask(id, (task) => task.status.state === "completed"),
    };
    const viaHttp = {
      send: (params: unknown) => http.call("message/send", params),
      raw: async (bytes: Buffer) => (await http.fetch("/a2a/jsonrpc", { method: "POST", body: bytes })).body,
      get: async (id: string) => {
        for (;;) {
          const task = await http.call("tasks/get", { id });
          if (task.status.state === "completed") return task;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      },
    };
    for (const binding of [viaStdio, viaHttp]) {
      const task = await binding.send(textLineParams("ask-slow"));
      assert.equal(task.status.state, "input-required", JSON.stringify(task.status));
      const promptId = task.status.message.metadata[HITL_URI].prompt_id;
      const text = JSON.stringify({
        jsonrpc: "2.0",
        id: "bad-answer",
        method: "message/send",
        params: answerParams(task, promptId, { text: "§" }),
      });
      const refused = await binding.raw(withBytes(text, [0x79, 0xff, 0xfe]));
      assert.equal(refused.error?.code, -32700, JSON.stringify(refused));
      const accepted = await binding.send(answerParams(task, promptId, { text: "y" }));
      assert.ok(accepted.id === task.id, JSON.stringify(accepted));
      const done = await binding.get(task.id);
      assert.match(artifactText(done, "stdout"), /got y\n/);
      assert.ok(!artifactText(done, "stdout").includes("\uFFFD"), "no U+FFFD reached the command");
    }
  });

  it("after the corpus every binding still serves: a valid envelope runs to completed", async () => {
    const body = params(messageText("run", `{"${ADAPTER_URI}":${VALID}}`));
    const viaStdio = (await bridge.call("SendMessage", JSON.parse(body.toString()))) as Wire;
    assert.equal(viaStdio.task?.status?.state, "TASK_STATE_COMPLETED", JSON.stringify(viaStdio));
    const viaRest = await http.fetch("/a2a/rest/message:send", { method: "POST", body });
    assert.equal(viaRest.body.task?.status?.state, "TASK_STATE_COMPLETED", viaRest.text);
    assert.equal(bridge.exitStatus, undefined, bridge.stderr);
    assert.doesNotMatch(http.stderr, /RangeError|internal error/);
    assert.doesNotMatch(bridge.stderr, /RangeError|internal error/);
  });
});
