// Helpers for the HTTP figures: one `serve --http` process with its start line and token, requests over one
// keep-alive connection, an SSE reader that parses every event, and an autocannon run in a process of its own.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { ADAPTER_URI, BIN, REQUEST, ROOT, RUNNER, sleep, track, WORKSPACE } from "./lib.mjs";

const AUTOCANNON = fileURLToPath(new URL("../../node_modules/autocannon/autocannon.js", import.meta.url));

/** A 1.0 SendMessageRequest for the bench runner `name`. */
export function send10(name, { returnImmediately = false, timeoutSeconds = 600, text = `bench ${name}` } = {}) {
  const message = { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] };
  if (name)
    message.metadata = {
      [ADAPTER_URI]: {
        adapter: "sandbox-agent-runner",
        mode: "plan",
        command: ["node", RUNNER, "--request", REQUEST],
        working_dir: name,
        timeout_seconds: timeoutSeconds,
      },
    };
  return { message, ...(returnImmediately ? { configuration: { returnImmediately: true } } : {}) };
}

/**
 * One `adapter-command serve --http --port 0` on the bench workspace. BENCH_NODE_FLAGS adds node flags to the server
 * (`--cpu-prof --cpu-prof-dir=DIR` to profile it).
 */
export class HttpBridge {
  constructor(args = [], { env, nodeFlags = [] } = {}) {
    this.child = track(
      spawn(
        process.execPath,
        [
          ...nodeFlags,
          ...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(" ") : []),
          BIN,
          "serve",
          "--http",
          "--quiet", // no access line per request: the bench measures the serving
          "--port",
          "0",
          "--workspace",
          WORKSPACE,
          ...args,
        ],
        {
          cwd: ROOT,
          env: { ...process.env, NO_COLOR: "1", ...env },
          stdio: ["ignore", "pipe", "pipe"],
        },
      ),
    );
    this.pid = this.child.pid;
    this.stderr = "";
    this.child.stderr.on("data", (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-8192);
    });
    this.exited = new Promise((resolve) => this.child.once("close", (code, signal) => resolve({ code, signal })));
    this.started = new Promise((resolve, reject) => {
      let out = "";
      this.child.stdout.on("data", (chunk) => {
        out += chunk;
        if (out.includes("\n")) resolve(JSON.parse(out.slice(0, out.indexOf("\n"))));
      });
      this.exited.then(() => reject(new Error(`serve --http exited: ${this.stderr}`)));
    });
    this.agent = new Agent({ keepAlive: true, maxSockets: 1 });
    this.nextId = 1;
  }

  async ready(timeoutMs = 15000) {
    const timer = sleep(timeoutMs).then(() => {
      throw new Error(`serve --http did not start: ${this.stderr}`);
    });
    this.start = await Promise.race([this.started, timer]);
    this.url = this.start.url;
    this.token = readFileSync(this.start.tokenFile, "utf8").trim();
    this.headers = { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" };
  }

  /** Opens a request; resolves with the response (not yet read). `headers` adds to the bearer and JSON ones. */
  open(method, path, body, agent = this.agent, headers = {}) {
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.url), { method, headers: { ...this.headers, ...headers }, agent });
      req.once("response", resolve);
      req.once("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  /** A request answered in full, its body parsed. */
  async json(method, path, body) {
    const response = await this.open(method, path, body);
    let text = "";
    response.setEncoding("utf8");
    for await (const chunk of response) text += chunk;
    if (response.statusCode !== 200) throw new Error(`${method} ${path}: ${response.statusCode} ${text}`);
    return JSON.parse(text);
  }

  /** A JSON-RPC call's result. */
  async call(method, params) {
    const answer = await this.json("POST", "/a2a/jsonrpc", { jsonrpc: "2.0", id: this.nextId++, method, params });
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  }

  /** SIGTERM (a clean shutdown); SIGKILL if it has not exited after a while. */
  async close(timeoutMs = 8000) {
    this.agent.destroy();
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}

/**
 * Reads an SSE answer, parsing every event's data as JSON and handing it to `onEvent`; resolves when the stream
 * ends. The same work the JSON-pipe baseline's reader does per line.
 */
export function readSse(response, onEvent) {
  return new Promise((resolve, reject) => {
    let buffer = "";
    response.setEncoding("utf8");
    response.on("data", (chunk) => {
      buffer += chunk;
      let from = 0;
      for (let at = buffer.indexOf("\n\n"); at >= 0; at = buffer.indexOf("\n\n", from)) {
        // A 1.0 event starts with its number (`id: n`), a line before its data.
        const data = buffer.startsWith("id: ", from) ? buffer.indexOf("\n", from) + 1 : from;
        if (buffer.startsWith("data: ", data)) onEvent(JSON.parse(buffer.slice(data + 6, at)));
        else if (buffer.startsWith("event: error\n", from))
          return reject(new Error(`the stream ended with ${buffer.slice(from + 13, at)}`));
        from = at + 2;
      }
      buffer = buffer.slice(from);
    });
    response.once("end", resolve);
    response.once("error", reject);
  });
}

/**
 * autocannon in its own process against `url`: `connections` keep-alive connections for `seconds`, after a warm-up
 * of `warmup` seconds. Resolves with its JSON summary.
 */
export async function autocannon(
  url,
  { method = "POST", headers = {}, body, connections = 64, seconds = 5, warmup = 2 },
) {
  const args = [AUTOCANNON, "--json", "-c", String(connections), "-d", String(seconds), "-m", method];
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}=${value}`);
  if (body !== undefined) args.push("-b", body);
  if (warmup > 0) args.push("--warmup", "[", "-c", String(connections), "-d", String(warmup), "]");
  args.push(url);
  const child = track(spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] }));
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  child.stderr.on("data", (chunk) => {
    err = (err + chunk).slice(-4096);
  });
  const code = await new Promise((resolve) => child.once("close", resolve));
  if (code !== 0) throw new Error(`autocannon exited ${code}: ${err}`);
  // With a warm-up, autocannon prints the warm-up's summary first: the last line is the measured one.
  const lines = out.trim().split("\n");
  const result = JSON.parse(lines.at(-1));
  // Every request answered, warm-up included: what a server's CPU time over the whole run is divided by.
  result.allRequests = lines.reduce((sum, line) => sum + (JSON.parse(line).requests?.total ?? 0), 0);
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`autocannon: ${result.non2xx} non-2xx answers, ${result.errors} errors against ${url}`);
  return result;
}

/** Spawns a bench server script that prints `{ "url" }` on stdout when it listens; resolves with it and the child. */
export async function startScript(script, args = []) {
  const child = track(spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] }));
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(JSON.parse(out.slice(0, out.indexOf("\n"))).url);
    });
    child.once("close", (code) => reject(new Error(`${script} exited ${code} before listening`)));
  });
  return {
    url,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("close", resolve)));
    },
  };
}
