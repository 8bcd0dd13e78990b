// How grpc-rps reads h2load (scripts/bench/h2load.mjs): its summary and per-request log as h2load 1.52 prints them,
// and a run whose answers were not each one whole GetTask answer fails instead of reading as fast.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findH2load, grpcFrame, judgeH2load, parseH2loadLog, parseH2loadSummary } from "../../scripts/bench/h2load.mjs";

/** A summary as h2load 1.52 prints it (progress lines and the table below trimmed). */
const summary = ({
  done = 8640,
  started = done,
  ok = done,
  data = done * 2871,
}: {
  done?: number;
  started?: number;
  ok?: number;
  data?: number;
} = {}): string => `starting benchmark...
Application protocol: h2c
Main benchmark duration is over for thread #0. Stopping all clients.

finished in 2.00s, ${done / 2} req/s, 11.88MB/s
requests: ${started} total, ${started} started, ${done} done, ${done} succeeded, 0 failed, 0 errored, 0 timeout
status codes: ${ok} 2xx, 0 3xx, ${Math.max(0, done - ok)} 4xx, 0 5xx
traffic: 23.76MB (24914186) total, 49.22KB (50399) headers (space savings 96.39%), 27.51MB (${data}) data
                     min         max         mean         sd        +/- sd
time for request:     2.72ms    318.86ms     14.99ms     36.55ms    95.56%
`;

/** `n` log rows, latencies 1..n ms, all HTTP 200 unless `status` says otherwise. */
const log = (n: number, status = (_i: number) => 200) =>
  `${Array.from({ length: n }, (_, i) => `${1796675920416778 + i}\t${status(i)}\t${(i + 1) * 1000}`).join("\n")}\n`;

describe("parseH2loadSummary", () => {
  it("reads the rate, the requests by outcome, the status classes and the DATA bytes", () => {
    const parsed = parseH2loadSummary(summary());
    assert.equal(parsed.rps, 4320);
    assert.equal(parsed.seconds, 2);
    assert.deepEqual(parsed.requests, {
      total: 8640,
      started: 8640,
      done: 8640,
      succeeded: 8640,
      failed: 0,
      errored: 0,
      timeout: 0,
    });
    assert.deepEqual(parsed.status, { "2xx": 8640, "3xx": 0, "4xx": 0, "5xx": 0 });
    assert.equal(parsed.dataBytes, 8640 * 2871);
  });

  it("fails on output it does not understand, rather than reading zero", () => {
    assert.throws(() => parseH2loadSummary("finished in 2.00s, 10 req/s, 1MB/s\n"), /not understood/);
  });
});

describe("parseH2loadLog", () => {
  it("reads start, status and latency of each row", () => {
    assert.deepEqual(parseH2loadLog("1796675920416778\t200\t39093\n1796675920416781\t-1\t12\n"), [
      { startUs: 1796675920416778, status: 200, latencyUs: 39093 },
      { startUs: 1796675920416781, status: -1, latencyUs: 12 },
    ]);
  });

  it("fails on a row that is not three numbers", () => {
    assert.throws(() => parseH2loadLog("1796675920416778\tOK\n"), /not "start<TAB>status<TAB>latency"/);
  });
});

describe("judgeH2load", () => {
  it("gives the rate and the p99 of the log in ms when every call brought one whole answer", () => {
    const run = judgeH2load(parseH2loadSummary(summary({ done: 200 })), parseH2loadLog(log(200)), 2871);
    assert.equal(run.error, undefined);
    assert.equal(run.rps, 100);
    assert.equal(run.requests, 200);
    assert.equal(run.seconds, 2);
    assert.equal(run.p99_ms, 199);
  });

  it("counts whole answers of calls still in flight at the end, and no more", () => {
    const inFlight = summary({ done: 200, started: 264, data: 240 * 2871 });
    assert.equal(judgeH2load(parseH2loadSummary(inFlight), parseH2loadLog(log(200)), 2871).error, undefined);
    const headsCame = summary({ done: 200, started: 264, ok: 264, data: 240 * 2871 });
    assert.equal(judgeH2load(parseH2loadSummary(headsCame), parseH2loadLog(log(200)), 2871).error, undefined);
    const tooMuch = summary({ done: 200, started: 264, data: 265 * 2871 });
    assert.match(judgeH2load(parseH2loadSummary(tooMuch), parseH2loadLog(log(200)), 2871).error ?? "", /bytes/);
  });

  it("fails when the log holds rows of another run (h2load appends to its log file)", () => {
    const run = judgeH2load(parseH2loadSummary(summary({ done: 200 })), parseH2loadLog(log(400)), 2871);
    assert.match(run.error ?? "", /the log has 400 rows for 200 calls/);
  });

  it("fails when answers are shorter than one GetTask answer (grpc errors answered with HTTP 200)", () => {
    const errors = summary({ done: 200, data: 0 });
    assert.match(
      judgeH2load(parseH2loadSummary(errors), parseH2loadLog(log(200)), 2871).error ?? "",
      /0 bytes of answers for 200 calls/,
    );
  });

  it("fails when any logged answer is not HTTP 200, or any answer not 2xx", () => {
    const rows = parseH2loadLog(log(200, (i) => (i === 7 ? 0 : 200)));
    assert.match(judgeH2load(parseH2loadSummary(summary({ done: 200 })), rows, 2871).error ?? "", /1 of 200 logged/);
    const refused = summary({ done: 200, ok: 150 });
    assert.match(
      judgeH2load(parseH2loadSummary(refused), parseH2loadLog(log(200)), 2871).error ?? "",
      /150 answers 2xx and 50 not, for 200 calls/,
    );
  });
});

describe("grpcFrame and findH2load", () => {
  it("frames a message as gRPC does: not compressed, its length big-endian, the message", () => {
    assert.deepEqual([...grpcFrame(new Uint8Array([0x0a, 0x01, 0x78]))], [0, 0, 0, 0, 3, 0x0a, 0x01, 0x78]);
  });

  it("finds no h2load on an empty PATH, nor when the node load is asked for", () => {
    assert.equal(findH2load(""), undefined);
    assert.equal(findH2load(process.env.PATH, "node"), undefined);
  });
});
