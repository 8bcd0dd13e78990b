// For the conformance suite's end-to-end tests: a workspace written by `conformance init`, the suite run as the
// built binary with --json, and a proxy in front of a real `serve --http` that breaks one rule by rewriting a
// request, an answer or an SSE line. The proxy rewrites the card's URLs to its own, so every call passes it.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./cli.js";

export interface SuiteResult {
  id: string;
  family: string;
  source: string;
  title: string;
  binding: string;
  setup?: string;
  verdict: "pass" | "fail" | "skip";
  expected?: string;
  found?: string;
  reason?: string;
  ms: number;
}

export interface SuiteReport {
  server: string;
  summary: { passed: number; failed: number; skipped: number; ms: number };
  results: SuiteResult[];
}

/** A workspace written by `conformance init`, removed by `cleanup`. */
export async function conformanceWorkspace(): Promise<{ dir: string; cleanup(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "conformance-ws-"));
  const result = await runCli(["conformance", "init", dir]);
  if (result.code !== 0) throw new Error(`conformance init exited ${result.code}: ${result.stderr}`);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `conformance ... --json`; the exit code and the parsed report. */
export async function runConformance(
  args: string[],
  timeoutMs = 120_000,
): Promise<{ code: number | null; report: SuiteReport; stderr: string; stdout: string }> {
  const result = await runCli(["conformance", ...args, "--json"], { timeoutMs, env: { ADAPTER_COMMAND_TOKEN: "" } });
  let report: SuiteReport;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`conformance exited ${result.code} without a JSON report:\n${result.stdout}\n${result.stderr}`);
  }
  return { code: result.code, report, stderr: result.stderr, stdout: result.stdout };
}

/** The results of one scenario id. */
export const resultsOf = (report: SuiteReport, id: string) => report.results.filter((result) => result.id === id);

export interface Exchange {
  method: string;
  path: string;
  requestBody: Buffer;
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Breakage {
  /** Rewrites a request's body before it goes on. */
  request?(path: string, body: Buffer): Buffer;
  /** Rewrites an answer that is not a stream. */
  response?(exchange: Exchange): Exchange;
  /** Rewrites one line of an SSE stream. */
  sseLine?(path: string, line: string): string;
}

const HOP = ["host", "content-length", "transfer-encoding", "connection", "keep-alive"];

export interface Proxy {
  url: string;
  close(): void;
}

/** A proxy on 127.0.0.1 in front of `target` (a `serve --http` base URL) that applies `breakage`. */
export async function startProxy(target: string, breakage: Breakage = {}): Promise<Proxy> {
  let base = "";
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? "/";
    let body: Buffer = Buffer.concat(chunks);
    body = breakage.request?.(path, body) ?? body;
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP.includes(name)));
    const upstream = request(new URL(path, target), {
      method: req.method,
      headers: { ...headers, "content-length": String(body.length) },
    });
    upstream.on("error", () => res.destroy());
    upstream.on("response", async (up) => {
      const upHeaders = Object.fromEntries(Object.entries(up.headers).filter(([name]) => !HOP.includes(name)));
      if (String(up.headers["content-type"] ?? "").startsWith("text/event-stream")) {
        res.writeHead(up.statusCode ?? 502, upHeaders);
        res.on("close", () => up.destroy());
        let buffer = "";
        up.setEncoding("utf8");
        up.on("data", (text: string) => {
          buffer += text;
          for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
            const line = buffer.slice(0, at);
            buffer = buffer.slice(at + 1);
            res.write(`${breakage.sseLine?.(path, line) ?? line}\n`);
          }
        });
        up.on("end", () => res.end(buffer));
        return;
      }
      const out: Buffer[] = [];
      for await (const chunk of up) out.push(chunk as Buffer);
      let exchange: Exchange = {
        method: req.method ?? "GET",
        path,
        requestBody: body,
        status: up.statusCode ?? 502,
        headers: upHeaders,
        body: Buffer.concat(out),
      };
      // The card names the server's own URLs: they become the proxy's, so that every call passes here.
      if (path.startsWith("/.well-known/agent-card.json")) {
        exchange.body = Buffer.from(exchange.body.toString("utf8").replaceAll(target, base));
        delete exchange.headers.etag;
      }
      exchange = breakage.response?.(exchange) ?? exchange;
      res.writeHead(exchange.status, { ...exchange.headers, "content-length": String(exchange.body.length) });
      res.end(exchange.body);
    });
    upstream.end(body);
  });
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
