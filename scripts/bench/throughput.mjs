// Figure 2: the flood runner's stdout through `message/stream` (A2A 0.3) and through `SendStreamingMessage` (A2A 1.0),
// every line parsed and the bytes rebuilt from the artifact updates, against two baselines: the same runner piped
// straight into a reader, and the same output as ready-made `tasks/event` lines piped straight into the same parsing
// reader (what JSON text parts cost with no bridge at all: the goal's). Every reader checks every byte it gets
// against what the runner writes. The same flood also runs through a bridge with --state-dir, against the one
// without (what SQLite costs).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  Bridge,
  cpuSecondsOf,
  LineSplitter,
  log,
  MiB,
  median,
  now,
  runnerOf,
  sendParams,
  track,
  withTimeout,
} from "./lib.mjs";

const LINE = 1024;
/** What the flood runner writes, 65 lines of it: any 64 KiB of its output is a slice of this, at some offset. */
const PATTERN = Buffer.from(`${"x".repeat(LINE - 1)}\n`.repeat(65));

/** Checks a byte stream against the flood runner's output as it arrives; a compare costs next to nothing. */
export class FloodCheck {
  bytes = 0;
  ok = true;

  push(chunk) {
    for (let at = 0; at < chunk.length && this.ok; ) {
      const n = Math.min(chunk.length - at, PATTERN.length - LINE);
      const from = this.bytes % LINE;
      this.ok = chunk.compare(PATTERN, from, from + n, at, at + n) === 0;
      at += n;
      this.bytes += n;
    }
  }
}

const ENDED_V1 = { TASK_STATE_COMPLETED: "completed", TASK_STATE_FAILED: "failed", TASK_STATE_CANCELED: "canceled" };

/** A 0.3 event, or a 1.0 StreamResponse, as what the bench reads of it: its task, its stdout text, its end. */
function readEvent(event) {
  if (event.kind !== undefined) {
    const stdout = event.kind === "artifact-update" && event.artifact.artifactId === "stdout";
    const final = event.kind === "status-update" && event.final;
    return { taskId: event.taskId, parts: stdout ? event.artifact.parts : [], end: final ? event.status : undefined };
  }
  const update = event.artifactUpdate ?? event.statusUpdate;
  const stdout = event.artifactUpdate?.artifact.artifactId === "stdout";
  const state = ENDED_V1[event.statusUpdate?.status.state];
  const end = state ? { ...event.statusUpdate.status, state } : undefined;
  return { taskId: update.taskId, parts: stdout ? event.artifactUpdate.artifact.parts : [], end };
}

/**
 * Rebuilds the bytes of one task's stdout from its events, checking them as they come, until its final status.
 * Resolves with first-text-to-end timing and the check (its `bytes` and `ok`).
 */
function rebuild(subscribe) {
  const check = new FloodCheck();
  return new Promise((resolve) => {
    let first;
    let events = 0;
    const off = subscribe((event) => {
      events += 1;
      const { parts, end } = readEvent(event);
      for (const part of parts) {
        first ??= now();
        check.push(Buffer.from(part.text, "utf8"));
      }
      if (end) {
        off();
        resolve({ first, end: now(), events, state: end.state, status: end, check });
      }
    });
  });
}

/** The 0.3 send params as a 1.0 SendMessageRequest. */
function paramsV1({ message, ...rest }) {
  const { kind: _kind, role: _role, parts, ...fields } = message;
  return { ...rest, message: { ...fields, role: "ROLE_USER", parts: parts.map(({ kind: _k, ...part }) => part) } };
}

/** Streams one flood task through `bridge` in A2A `version` "0.3" or "1.0"; resolves as `rebuild` does. */
export function streamFlood(bridge, version = "0.3") {
  let taskId;
  const early = [];
  let deliver;
  const off = bridge.onEvent((event) => {
    if (taskId === undefined) early.push(event);
    else if (readEvent(event).taskId === taskId) deliver(event);
  });
  const done = rebuild((listener) => {
    deliver = listener;
    return off;
  });
  const params = sendParams("flood", { timeoutSeconds: 900 });
  const sent = (
    version === "0.3"
      ? bridge.request("message/stream", params)
      : bridge.request("SendStreamingMessage", paramsV1(params)).then((first) => first.task)
  ).then((task) => {
    taskId = task.id;
    for (const event of early.splice(0)) if (readEvent(event).taskId === taskId) deliver(event);
  });
  return Promise.all([done, sent]).then(([result]) => result);
}

function spawnProducer(args, cwd, total) {
  return track(
    spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, BENCH_BYTES: String(total) },
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
}

function rawPipe(total) {
  const check = new FloodCheck();
  const { cwd, args } = runnerOf("flood");
  const child = spawnProducer(args, cwd, total);
  return new Promise((resolve, reject) => {
    let first;
    child.stdout.on("data", (chunk) => {
      first ??= now();
      check.push(chunk);
    });
    child.stdout.once("end", () => resolve({ first, end: now(), check }));
    child.once("error", reject);
  });
}

export function jsonPipe(total) {
  const producer = fileURLToPath(new URL("./json-flood.mjs", import.meta.url));
  const child = spawnProducer([producer], process.cwd(), total);
  const listeners = new Set();
  // The same parsing as the bench's bridge client: split lines, decode, JSON.parse each one.
  const splitter = new LineSplitter((line) => {
    const message = JSON.parse(line.toString("utf8"));
    for (const listener of listeners) listener(message.params);
  });
  child.stdout.on("data", (chunk) => splitter.push(chunk));
  const subscribe = (listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    rebuild(subscribe).then(resolve);
  });
}

/** Throws unless `run` rebuilt exactly the `total` bytes the flood runner wrote. */
export function assertRebuilt(what, total, { check }) {
  if (!check.ok || check.bytes !== total) {
    const differ = check.ok ? "" : ", and they differ from what was written";
    throw new Error(`${what}: ${check.bytes} of ${total} bytes arrived${differ}`);
  }
}

export function rateOf(what, total, run) {
  assertRebuilt(what, total, run);
  return total / MiB / ((run.end - run.first) / 1000);
}

/** One flood through `bridge`; resolves with its rate in MiB/s and the CPU seconds the bridge spent on it. */
async function floodRate(bridge, what, total) {
  const cpu = cpuSecondsOf(bridge.pid);
  const run = await withTimeout(bridge.guard(streamFlood(bridge)), 180000, what);
  if (run.state !== "completed") throw new Error(`${what} ended ${run.state}: ${JSON.stringify(run.status)}`);
  return { rate: rateOf(what, total, run), events: run.events, cpu: cpuSecondsOf(bridge.pid) - cpu };
}

export async function throughput({ quick }) {
  const total = (quick ? 32 : 256) * MiB;
  const reps = 3;
  const rates = { bridge: [], bridge10: [], stateDir: [], raw: [], json: [] };
  // CPU seconds: each bridge's, and this process's while it reads the JSON pipe (the baseline's reader).
  const cpu = { bridge: [], bridge10: [], stateDir: [], jsonReader: [] };
  const env = { env: { BENCH_BYTES: String(total) } };
  const stateDir = mkdtempSync(join(tmpdir(), "adapter-command-bench-state-"));
  const bridge = new Bridge([], env);
  // The same bridge with --state-dir: every task row and every kept output chunk goes to SQLite as it streams.
  const stored = new Bridge(["--state-dir", stateDir], env);
  try {
    await Promise.all([bridge.ready(), stored.ready()]);
    for (let i = 0; i < reps; i++) {
      const raw = await withTimeout(rawPipe(total), 120000, "raw pipe");
      rates.raw.push(rateOf("raw pipe", total, raw));
      const reader = process.cpuUsage();
      const json = await withTimeout(jsonPipe(total), 120000, "JSON pipe");
      const read = process.cpuUsage(reader);
      cpu.jsonReader.push((read.user + read.system) / 1e6);
      rates.json.push(rateOf("JSON pipe", total, json));
      const run = await floodRate(bridge, "message/stream flood", total);
      rates.bridge.push(run.rate);
      cpu.bridge.push(run.cpu);
      const storedRun = await floodRate(stored, "message/stream flood with --state-dir", total);
      rates.stateDir.push(storedRun.rate);
      cpu.stateDir.push(storedRun.cpu);
      const cpu10 = cpuSecondsOf(bridge.pid);
      const run10 = await withTimeout(bridge.guard(streamFlood(bridge, "1.0")), 180000, "SendStreamingMessage flood");
      cpu.bridge10.push(cpuSecondsOf(bridge.pid) - cpu10);
      if (run10.state !== "completed")
        throw new Error(`1.0 flood ended ${run10.state}: ${JSON.stringify(run10.status)}`);
      rates.bridge10.push(rateOf("bridge (1.0)", total, run10));
      log(
        `throughput ${i + 1}/${reps}: bridge ${rates.bridge.at(-1).toFixed(0)} MiB/s (${run.events} events), ` +
          `1.0 ${rates.bridge10.at(-1).toFixed(0)} MiB/s (${run10.events} events), ` +
          `with --state-dir ${rates.stateDir.at(-1).toFixed(0)} MiB/s ` +
          `JSON pipe ${rates.json.at(-1).toFixed(0)} MiB/s, raw ${rates.raw.at(-1).toFixed(0)} MiB/s`,
      );
    }
  } finally {
    await Promise.all([bridge.close(), stored.close()]);
    rmSync(stateDir, { recursive: true, force: true });
  }
  const value = median(rates.bridge);
  const withState = median(rates.stateDir);
  const raw = median(rates.raw);
  const json = median(rates.json);
  const common = { unit: "MiB/s", bytes: total, verified: true, rounds: reps };
  const msPerMib = (seconds) => (median(seconds) * 1000) / (total / MiB);
  /** The median of the rounds' ratios (each round's two runs close in time), not the ratio of the medians. */
  const ratioOf = (ours, base) => median(ours.map((rate, i) => rate / base[i]));
  const vsJson = (name, key) => {
    const ratio = ratioOf(rates[key], rates.json);
    return {
      name,
      value: median(rates[key]),
      ...common,
      baseline: json,
      ratio,
      goal: ">= 0.6 x JSON pipe",
      meets: ratio >= 0.6,
      cpu_ms_per_mib: msPerMib(cpu[key]),
      baseline_reader_cpu_ms_per_mib: msPerMib(cpu.jsonReader),
    };
  };
  const stateRatio = ratioOf(rates.stateDir, rates.bridge);
  const rawRatio = ratioOf(rates.bridge, rates.raw);
  return [
    {
      name: "state_dir_stream_throughput_ratio",
      value: withState,
      ...common,
      baseline: value,
      ratio: stateRatio,
      goal: ">= 0.8 x the same bridge without --state-dir",
      meets: stateRatio >= 0.8,
      // The same comparison by the CPU time each bridge spent: less swayed by the machine's load.
      cpu_ms_per_mib: msPerMib(cpu.stateDir),
      baseline_cpu_ms_per_mib: msPerMib(cpu.bridge),
      cpu_s: median(cpu.bridge),
      cpu_s_state_dir: median(cpu.stateDir),
      cpu_ratio: median(cpu.bridge) / median(cpu.stateDir),
    },
    {
      name: "stream_throughput_mib_s",
      value,
      ...common,
      baseline: raw,
      ratio: rawRatio,
      goal: ">= 0.5 x raw pipe",
      meets: rawRatio >= 0.5,
      cpu_ms_per_mib: msPerMib(cpu.bridge),
    },
    vsJson("stream_throughput_vs_json_pipe", "bridge"),
    vsJson("stream_throughput_v1_vs_json_pipe", "bridge10"),
  ];
}
