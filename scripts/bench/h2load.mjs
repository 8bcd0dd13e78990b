// h2load (nghttp2's load generator, written in C; Debian package nghttp2-client) as the load of `grpc-rps`: a few µs
// of CPU a call where a node:http2 client spends about 85, so on 2 cores the figure measures the servers and not the
// load (docs/benchmarks.md, "Where the cost is"). This file runs it and reads what it prints; grpc-rps.mjs checks
// that every answer was a whole GetTask answer.
import { spawn } from "node:child_process";
import { accessSync, constants, readFileSync, rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import { track } from "./lib.mjs";

/**
 * The h2load on PATH, or undefined when it is not installed or BENCH_GRPC_LOAD=node asks for the node:http2 load
 * (scripts/bench/grpc-load.mjs) instead.
 */
export function findH2load(path = process.env.PATH ?? "", choice = process.env.BENCH_GRPC_LOAD) {
  if (choice === "node") return undefined;
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const file = join(dir, "h2load");
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {}
  }
  return undefined;
}

/** A gRPC message frame: not compressed (0), the message's length (4 bytes, big-endian), the message. */
export function grpcFrame(message) {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

const count = (text, pattern) => {
  const found = pattern.exec(text);
  return found ? Number(found[1]) : undefined;
};

/**
 * h2load's summary: the rate of the measured part (`finished in 5.00s, 12345.67 req/s, …`), the requests by outcome,
 * the status classes and the bytes of DATA (for HTTP/1.1 the bodies). Throws when a line it needs is missing, so a
 * changed output fails the figure instead of reading as zero.
 */
export function parseH2loadSummary(text) {
  const finished = /finished in ([\d.]+)(m?s), ([\d.]+) req\/s/.exec(text);
  const requests =
    /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(
      text,
    );
  const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(text);
  const dataBytes = count(text, /traffic: .*?\(\d+\) total, .*?\(\d+\) headers .*?, [\d.]+\w*B \((\d+)\) data/);
  if (!finished || !requests || !codes || dataBytes === undefined)
    throw new Error(`h2load's summary was not understood:\n${text}`);
  const [total, started, done, succeeded, failed, errored, timeout] = requests.slice(1).map(Number);
  const [s2xx, s3xx, s4xx, s5xx] = codes.slice(1).map(Number);
  return {
    seconds: Number(finished[1]) / (finished[2] === "ms" ? 1000 : 1),
    rps: Number(finished[3]),
    requests: { total, started, done, succeeded, failed, errored, timeout },
    status: { "2xx": s2xx, "3xx": s3xx, "4xx": s4xx, "5xx": s5xx },
    dataBytes,
  };
}

/** h2load's `--log-file`: one row a request, tab-separated (start µs since the epoch, HTTP status, µs to the end). */
export function parseH2loadLog(text) {
  const rows = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const [start, status, latency] = line.split("\t");
    const row = { startUs: Number(start), status: Number(status), latencyUs: Number(latency) };
    if (!Number.isFinite(row.startUs) || !Number.isInteger(row.status) || !Number.isFinite(row.latencyUs))
      throw new Error(`h2load's log has a row that is not "start<TAB>status<TAB>latency": ${JSON.stringify(line)}`);
    rows.push(row);
  }
  return rows;
}

/**
 * What one h2load run says about a target: the rate, the p99 in ms from its log, and an error when any answer was not
 * an HTTP 200 or the DATA bytes are not `answerBytes` a call (one whole answer: a gRPC error comes as trailers with no
 * message, a JSON-RPC error as a shorter body, and either would look fast).
 */
export function judgeH2load(summary, rows, answerBytes) {
  const { requests, status, dataBytes } = summary;
  const problems = [];
  const inFlight = requests.started - requests.done;
  if (requests.done === 0 || rows.length === 0) problems.push("no request was answered");
  if (requests.succeeded !== requests.done || requests.failed + requests.errored + requests.timeout > 0)
    problems.push(`${requests.failed} failed, ${requests.errored} errored, ${requests.timeout} timed out`);
  // A call in flight at the end has its status counted once its head came, so 2xx may pass the calls done.
  const not2xx = status["3xx"] + status["4xx"] + status["5xx"];
  if (not2xx > 0 || status["2xx"] < requests.done)
    problems.push(`${status["2xx"]} answers 2xx and ${not2xx} not, for ${requests.done} calls`);
  // One row a call answered (h2load appends to a log file that exists, so rows of an earlier run would show here).
  if (rows.length < requests.done || rows.length > requests.started)
    problems.push(`the log has ${rows.length} rows for ${requests.done} calls (${inFlight} more in flight)`);
  const not200 = rows.filter((row) => row.status !== 200).length;
  if (not200 > 0) problems.push(`${not200} of ${rows.length} logged answers were not HTTP 200`);
  // Calls still in flight when the time is up are started but not done, and some of their answers arrive whole (on
  // HTTP/1.1): their bytes count, so each done call must have brought one answer and no more than those came besides.
  if (dataBytes < requests.done * answerBytes || dataBytes > requests.started * answerBytes)
    problems.push(
      `${dataBytes} bytes of answers for ${requests.done} calls (${inFlight} more in flight), not ${answerBytes} each`,
    );
  const latencies = rows.map((row) => row.latencyUs).sort((a, b) => a - b);
  const p99Us = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))];
  return {
    requests: requests.done,
    // h2load's rate is the answered calls over the duration asked for (-D), which is what the figure is.
    seconds: requests.done / summary.rps,
    rps: summary.rps,
    p99_ms: p99Us / 1000,
    error: problems.length > 0 ? problems.join("; ") : undefined,
  };
}

/**
 * One h2load run: `clients` connections with `streams` requests in flight on each, POSTing `bodyFile` to `url` with
 * `headers` for `seconds`; `h1` for HTTP/1.1. Resolves with its summary text and its log's text (of this run
 * alone).
 */
export function runH2load(h2load, { url, bodyFile, headers, clients, streams, seconds, h1 = false, logFile }) {
  const args = [
    ...(h1 ? ["--h1"] : []),
    "-c",
    String(clients),
    "-m",
    String(streams),
    "-t",
    "1",
    "-D",
    String(seconds),
    "-d",
    bodyFile,
    ...Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]),
    "--log-file",
    logFile,
    url,
  ];
  rmSync(logFile, { force: true }); // h2load appends to it
  const child = track(spawn(h2load, args, { stdio: ["ignore", "pipe", "pipe"] }));
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out = (out + chunk).slice(-65536)));
    child.stderr.on("data", (chunk) => (err = (err + chunk).slice(-8192)));
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0
        ? resolve({ summary: out, log: readFileSync(logFile, "utf8") })
        : reject(new Error(`h2load exited ${code}: ${err}${out}`)),
    );
  });
}
