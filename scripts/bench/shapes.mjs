// Figure `stream_throughput_shapes`: the four shapes of output real commands print (lines of 80 bytes, an
// ANSI-coloured build log, JSON lines, UTF-8 text; scripts/bench/workspace/shapes) written in chunks of 80 B, 2 KiB
// and 64 KiB, streamed through the stdio bridge (A2A 0.3 message/stream) and through SSE (REST message:stream),
// every event parsed and every byte checked. Each cell is measured against the same bytes through the same binding
// with every chunk encoded by plain JSON.stringify of its stream item (scripts/bench/stringify-encoder.mjs), the
// two taking turns, nine rounds each: the ratio is the median of the nine rounds' ratios. Beside it, the CPU time
// per MiB of each bridge and of the reader (this process) in both. A cell where both run the same code is a tie,
// with no goal (scripts/bench/judge.mjs).
import { HttpBridge, readSse, send10 } from "./http-lib.mjs";
import { isTie } from "./judge.mjs";
import { Bridge, cpuSecondsOf, log, MiB, median, now, sendParams, withTimeout } from "./lib.mjs";
import { blockOf, SHAPES } from "./workspace/shapes/.aiwg/ops/adapters/sandbox-agent-runner/shapes.mjs";

const STRINGIFY = ["--import", new URL("./stringify-encoder.mjs", import.meta.url).href];
const CHUNKS = [80, 2048, 65536];
/** Bytes a run streams, by chunk size: enough for a steady rate, little enough for the whole table in minutes. */
const BYTES = { 80: 8 * MiB, 2048: 48 * MiB, 65536: 96 * MiB };
const ROUNDS = 9;
const GOAL = 0.95;
/** BENCH_SHAPES, a regular expression (say `stdio:jsonl` or `:65536$`), picks the cells `binding:shape:chunk` to measure. */
const CELLS = process.env.BENCH_SHAPES ? new RegExp(process.env.BENCH_SHAPES) : undefined;

/** Checks text as it arrives against the shape's block repeated; a compare costs next to nothing. */
class ShapeCheck {
  constructor(block) {
    this.block = block;
    this.source = Buffer.concat([block, block]);
    this.bytes = 0;
    this.ok = true;
  }

  push(text) {
    const chunk = Buffer.from(text, "utf8");
    for (let at = 0; at < chunk.length && this.ok; ) {
      const from = this.bytes % this.block.length;
      const n = Math.min(chunk.length - at, this.block.length);
      this.ok = chunk.compare(this.source, from, from + n, at, at + n) === 0;
      at += n;
      this.bytes += n;
    }
  }
}

/** One task through the stdio bridge in A2A 0.3; resolves with timing, events and the check. */
function viaStdio(bridge, message, check) {
  let taskId;
  let first;
  let events = 0;
  const early = [];
  return new Promise((resolve, reject) => {
    const take = (event) => {
      if (event.taskId !== taskId) return;
      events += 1;
      if (event.kind === "artifact-update" && event.artifact.artifactId === "stdout") {
        first ??= now();
        for (const part of event.artifact.parts) check.push(part.text);
      } else if (event.kind === "status-update" && event.final) {
        off();
        resolve({ first, end: now(), events, state: event.status.state });
      }
    };
    const off = bridge.onEvent((event) => (taskId === undefined ? early.push(event) : take(event)));
    bridge.request("message/stream", sendParams("shapes", { text: message, timeoutSeconds: 600 })).then((task) => {
      taskId = task.id;
      for (const event of early.splice(0)) take(event);
    }, reject);
  });
}

/** One task through SSE (REST message:stream, A2A 1.0); resolves as viaStdio does. */
async function viaSse(bridge, message, check) {
  let first;
  let end;
  let state;
  let events = 0;
  // A connection of its own: one kept alive would sit idle while the other bridge runs, and a run of 5 s or more
  // meets the server closing it (keep-alive timeout) just as the next request goes out ("socket hang up").
  const response = await bridge.open("POST", "/a2a/rest/message:stream", send10("shapes", { text: message }), false);
  if (response.statusCode !== 200) throw new Error(`message:stream answered ${response.statusCode}`);
  await readSse(response, (data) => {
    events += 1;
    const update = data.artifactUpdate;
    if (update?.artifact.artifactId === "stdout") {
      first ??= now();
      for (const part of update.artifact.parts) check.push(part.text);
    } else if (data.statusUpdate) {
      state = data.statusUpdate.status.state;
      end = now();
    }
  });
  return { first, end, events, state };
}

/** One run: rate in MiB/s, CPU ms per MiB of the bridge and of this process (the reader), mean event size. */
async function measure(binding, bridge, shape, chunk, total) {
  const check = new ShapeCheck(blockOf(shape));
  const bridgeCpu = cpuSecondsOf(bridge.pid);
  const readerCpu = process.cpuUsage();
  const stream = binding === "stdio" ? viaStdio : viaSse;
  const run = await withTimeout(stream(bridge, `${shape} ${chunk} ${total}`, check), 180000, `${shape} ${chunk}`);
  const reader = process.cpuUsage(readerCpu);
  if (!/^(completed|TASK_STATE_COMPLETED)$/.test(run.state)) throw new Error(`${shape} ${chunk} ended ${run.state}`);
  if (!check.ok || check.bytes !== total)
    throw new Error(
      `${binding} ${shape} ${chunk}: ${check.bytes} of ${total} bytes${check.ok ? "" : ", not as written"}`,
    );
  const mib = total / MiB;
  return {
    rate: mib / ((run.end - run.first) / 1000),
    bridgeMs: ((cpuSecondsOf(bridge.pid) - bridgeCpu) * 1000) / mib,
    readerMs: (reader.user + reader.system) / 1000 / mib,
    eventBytes: total / Math.max(1, run.events - 1),
  };
}

export async function streamShapes({ quick }) {
  const rounds = quick ? 1 : ROUNDS;
  const scale = quick ? 0.25 : 1;
  const bridges = {
    stdio: { ours: new Bridge(), plain: new Bridge([], { nodeFlags: STRINGIFY }) },
    sse: { ours: new HttpBridge(), plain: new HttpBridge([], { nodeFlags: STRINGIFY }) },
  };
  const all = Object.values(bridges).flatMap((pair) => Object.values(pair));
  const figures = [];
  try {
    await Promise.all(all.map((bridge) => bridge.ready()));
    for (const binding of Object.keys(bridges))
      for (const shape of Object.keys(SHAPES))
        for (const chunk of CHUNKS) {
          if (CELLS && !CELLS.test(`${binding}:${shape}:${chunk}`)) continue;
          // Whole blocks: the output ends at the end of a line, never inside a character.
          const block = blockOf(shape).length;
          const total = Math.max(1, Math.round((BYTES[chunk] * scale) / block)) * block;
          const runs = { ours: [], plain: [] };
          // The two take turns (the first in each round alternates), so that changes in load fall on both alike.
          for (let round = 0; round < rounds; round++)
            for (const variant of round % 2 === 0 ? ["ours", "plain"] : ["plain", "ours"])
              runs[variant].push(await measure(binding, bridges[binding][variant], shape, chunk, total));
          const ratio = median(runs.ours.map((run, i) => run.rate / runs.plain[i].rate));
          const pick = (variant, key) => median(runs[variant].map((run) => run[key]));
          const tie = isTie(shape, chunk);
          const figure = {
            name: `stream_throughput_shapes_${binding}_${shape}_${chunk}`,
            value: pick("ours", "rate"),
            unit: "MiB/s",
            baseline: pick("plain", "rate"),
            ratio,
            goal: tie ? null : `>= ${GOAL} x the same bridge encoding each chunk with JSON.stringify`,
            meets: tie ? null : ratio >= GOAL,
            tie,
            cpu_ms_per_mib: pick("ours", "bridgeMs"),
            baseline_cpu_ms_per_mib: pick("plain", "bridgeMs"),
            reader_cpu_ms_per_mib: pick("ours", "readerMs"),
            baseline_reader_cpu_ms_per_mib: pick("plain", "readerMs"),
            event_bytes: pick("ours", "eventBytes"),
            bytes: total,
            rounds,
            verified: true,
          };
          log(
            `shapes ${binding} ${shape} ${chunk} B: ${figure.value.toFixed(0)} vs ${figure.baseline.toFixed(0)} MiB/s ` +
              `(${ratio.toFixed(2)} x${tie ? ", a tie" : ""}), bridge ${figure.cpu_ms_per_mib.toFixed(1)} vs ` +
              `${figure.baseline_cpu_ms_per_mib.toFixed(1)} ms/MiB, events of ${figure.event_bytes.toFixed(0)} B`,
          );
          figures.push(figure);
        }
  } finally {
    await Promise.all(all.map((bridge) => bridge.close()));
  }
  return figures;
}
