// Figure 3: prompt latency. The `ask` runner prints "t <ms>" in the same write as each "Continue? [y/N] " and
// "r <ms>" when it reads an answer (wall-clock ms, as `now()` here). Through the bridge: prompt written →
// input-required event (detection), answer sent → runner read (answer-to-read). Baselines: the bench as the
// peer on raw pipes, and `expect` as the peer on a pty when it is installed.
import { spawn, spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  answerParams,
  Bridge,
  HITL_URI,
  log,
  now,
  quantile,
  runnerOf,
  sendParams,
  track,
  withTimeout,
} from "./lib.mjs";

const SETTLE_MS = 150;
const PROMPT = "Continue? [y/N] ";

/** Feeds "t"/"r" stamps from the runner's output text to `onStamp(kind, ms)`; returns the feeder. */
export function stampReader(onStamp) {
  let rest = "";
  return (text) => {
    rest += text;
    const lines = rest.split("\n");
    rest = lines.pop();
    for (const line of lines) {
      // An "r" stamp follows the prompt it answers on the same line ("Continue? [y/N] r 123.456").
      const match = /(?:^|\s)([tr]) (\d+(?:\.\d+)?)$/.exec(line.trim());
      if (match) onStamp(match[1], Number(match[2]));
    }
    return rest;
  };
}

/** A prompt not raised this long after its write arrived counts as missed (its task is then canceled). */
const MISS_AFTER_MS = 2000;

/**
 * One task asking up to `count` prompts through the bridge; the bench answers "y" as soon as each is raised.
 * Resolves with the stamps of the prompts answered, and whether the last one was missed (never raised).
 */
function bridgeTask(bridge, count) {
  const writes = [];
  const reads = [];
  const raised = [];
  const sent = [];
  return new Promise((resolve, reject) => {
    let task;
    let watchdog;
    let done = false;
    const early = [];
    const finish = (missed) => {
      done = true;
      off();
      clearTimeout(watchdog);
      resolve({ writes: writes.slice(0, raised.length), reads, raised, sent, missed });
    };
    const fail = (error) => {
      done = true;
      off();
      clearTimeout(watchdog);
      reject(error);
    };
    const feed = stampReader((kind, ms) => {
      if (kind === "r") return reads.push(ms);
      writes.push(ms);
      clearTimeout(watchdog);
      watchdog = setTimeout(async () => {
        if (done || raised.length === writes.length) return;
        done = true; // the cancel's own events are not the task's outcome
        log(`prompt ${writes.length} of a task was not raised within ${MISS_AFTER_MS} ms; canceling the task`);
        try {
          await bridge.request("tasks/cancel", { id: task.id });
        } catch {}
        finish(true);
      }, MISS_AFTER_MS);
    });
    const handle = (event) => {
      if (done) return;
      if (event.kind === "artifact-update") {
        for (const part of event.artifact.parts) feed(part.text);
      } else if (event.kind === "status-update") {
        if (event.status.state === "input-required") {
          raised.push(now());
          clearTimeout(watchdog);
          const promptId = event.status.message?.metadata?.[HITL_URI]?.prompt_id;
          if (writes.length !== raised.length)
            return fail(new Error(`prompt ${raised.length} raised, but ${writes.length} were written`));
          sent.push(now());
          bridge.request("message/send", answerParams(event, promptId, "y")).catch(fail);
        } else if (event.final) {
          if (event.status.state !== "completed") return fail(new Error(`ask task ended ${event.status.state}`));
          finish(false);
        }
      }
    };
    const off = bridge.onEvent((event) => {
      if (!task) early.push(event);
      else if (event.taskId === task.id) handle(event);
    });
    const params = sendParams("ask", { textLine: true, timeoutSeconds: 600, text: `bench prompts=${count}` });
    bridge.request("message/stream", params).then((t) => {
      task = t;
      for (const event of early.splice(0)) if (event.taskId === task.id) handle(event);
    }, fail);
  });
}

/** `count` prompts through the bridge, in as many tasks as missed prompts make necessary. */
async function viaBridge(bridge, count) {
  const all = { writes: [], reads: [], raised: [], sent: [], missed: 0, tasks: 0 };
  while (all.raised.length + all.missed < count) {
    const run = await bridgeTask(bridge, count - all.raised.length - all.missed);
    all.tasks += 1;
    for (const key of ["writes", "reads", "raised", "sent"]) all[key].push(...run[key]);
    if (run.missed) all.missed += 1;
  }
  return all;
}

/** The same runner on raw pipes, the bench answering as soon as the prompt has arrived. */
function viaPipes(count) {
  const { cwd, args } = runnerOf("ask");
  const writes = [];
  const reads = [];
  const seen = [];
  const sent = [];
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(process.execPath, args, {
        cwd,
        env: { ...process.env, BENCH_PROMPTS: String(count) },
        stdio: ["pipe", "pipe", "inherit"],
      }),
    );
    const feed = stampReader((kind, ms) => (kind === "t" ? writes : reads).push(ms));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text) => {
      const rest = feed(text);
      if (rest.endsWith(PROMPT) && seen.length < writes.length) {
        seen.push(now());
        sent.push(now());
        child.stdin.write("y\n");
      }
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0 || reads.length !== count)
        reject(new Error(`ask runner exited ${code} after ${reads.length} reads`));
      else resolve({ writes, reads, seen, sent });
    });
  });
}

/** The same runner driven by expect on a pty: prompt seen → "y" sent → read, stamped by expect. */
function viaExpect(count) {
  const { cwd, args } = runnerOf("ask");
  const script = join(tmpdir(), `adapter-command-bench-${process.pid}.exp`);
  writeFileSync(
    script,
    `set timeout 20
log_user 0
set n ${count}
spawn -noecho {${process.execPath}} {${args[0]}} {${args[1]}} {${args[2]}}
for {set i 0} {$i < $n} {incr i} {
  expect {
    -re {t ([0-9.]+)\\r\\nContinue\\? \\[y/N\\] $} { set w $expect_out(1,string) }
    timeout { puts "timeout waiting for prompt $i"; exit 2 }
    eof { puts "eof before prompt $i"; exit 2 }
  }
  set seen [expr {[clock microseconds] / 1000.0}]
  set sent [expr {[clock microseconds] / 1000.0}]
  send "y\\r"
  expect {
    -re {r ([0-9.]+)\\r\\n} { set r $expect_out(1,string) }
    timeout { puts "timeout waiting for read $i"; exit 2 }
    eof { puts "eof before read $i"; exit 2 }
  }
  puts "stamp $w $seen $sent $r"
}
expect eof
`,
  );
  return new Promise((resolve, reject) => {
    const child = track(
      spawn("expect", [script], {
        cwd,
        env: { ...process.env, BENCH_PROMPTS: String(count) },
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text) => {
      out += text;
    });
    child.once("error", reject);
    child.once("close", (code) => {
      rmSync(script, { force: true });
      const rows = [...out.matchAll(/^stamp (\S+) (\S+) (\S+) (\S+)$/gm)].map((m) => m.slice(1).map(Number));
      if (code !== 0 || rows.length !== count) return reject(new Error(`expect exited ${code}: ${out.slice(-500)}`));
      resolve({
        writes: rows.map((r) => r[0]),
        seen: rows.map((r) => r[1]),
        sent: rows.map((r) => r[2]),
        reads: rows.map((r) => r[3]),
      });
    });
  });
}

const diffs = (to, from) => to.map((x, i) => x - from[i]);
const p = (values) => ({ p50: quantile(values, 0.5), p95: quantile(values, 0.95) });

export async function promptLatency({ quick }) {
  const count = quick ? 20 : 100;
  const bridge = new Bridge(["--settle-ms", String(SETTLE_MS)], { env: { BENCH_PROMPTS: String(count) } });
  let run;
  try {
    await bridge.ready();
    run = await withTimeout(bridge.guard(viaBridge(bridge, count)), 30000 + count * 2000, "prompts through the bridge");
  } finally {
    await bridge.close();
  }
  const pipes = await withTimeout(viaPipes(count), 30000, "prompts on raw pipes");

  const detect = p(diffs(run.raised, run.writes));
  const answer = p(diffs(run.reads, run.sent));
  const roundTrip = p(diffs(run.reads, run.writes));
  const pipeSeen = p(diffs(pipes.seen, pipes.writes));
  const pipeAnswer = p(diffs(pipes.reads, pipes.sent));
  const pipeRoundTrip = p(diffs(pipes.reads, pipes.writes));
  if (run.missed > 0)
    log(`prompts: ${run.missed} of ${count} were never raised (within ${MISS_AFTER_MS} ms); ${run.tasks} tasks`);
  log(
    `prompts (${count}): detect p50 ${detect.p50.toFixed(1)} / p95 ${detect.p95.toFixed(1)} ms, answer-to-read p50 ${answer.p50.toFixed(2)} / p95 ${answer.p95.toFixed(2)} ms`,
  );
  const detectGoal = SETTLE_MS + 10;
  const figures = [
    {
      name: "prompt_detect_p50_ms",
      value: detect.p50,
      unit: "ms",
      baseline: SETTLE_MS + pipeSeen.p50,
      ratio: detect.p50 / (SETTLE_MS + pipeSeen.p50),
      goal: null,
      meets: null,
      missed: run.missed,
      settle_ms: SETTLE_MS,
      prompts: count,
    },
    {
      name: "prompt_detect_p95_ms",
      value: detect.p95,
      unit: "ms",
      baseline: SETTLE_MS + pipeSeen.p95,
      ratio: detect.p95 / (SETTLE_MS + pipeSeen.p95),
      goal: `p95 < settle window + 10 ms (${detectGoal} ms), no prompt missed`,
      meets: detect.p95 < detectGoal && run.missed === 0,
      missed: run.missed,
      tasks: run.tasks,
      settle_ms: SETTLE_MS,
      prompts: count,
    },
    {
      name: "prompt_answer_to_read_p50_ms",
      value: answer.p50,
      unit: "ms",
      baseline: pipeAnswer.p50,
      ratio: answer.p50 / pipeAnswer.p50,
      goal: null,
      meets: null,
      prompts: count,
    },
    {
      name: "prompt_answer_to_read_p95_ms",
      value: answer.p95,
      unit: "ms",
      baseline: pipeAnswer.p95,
      ratio: answer.p95 / pipeAnswer.p95,
      goal: "p95 < 5 ms",
      meets: answer.p95 < 5,
      prompts: count,
    },
    {
      name: "prompt_roundtrip_p50_ms",
      value: roundTrip.p50,
      unit: "ms",
      baseline: pipeRoundTrip.p50,
      ratio: roundTrip.p50 / pipeRoundTrip.p50,
      goal: null,
      meets: null,
      p95: roundTrip.p95,
      baseline_p95: pipeRoundTrip.p95,
      prompts: count,
    },
  ];

  const hasExpect = spawnSync("sh", ["-c", "command -v expect"], { encoding: "utf8" }).status === 0;
  if (!hasExpect) {
    figures.push({
      name: "prompt_roundtrip_expect_p50_ms",
      value: roundTrip.p50,
      unit: "ms",
      baseline: null,
      ratio: null,
      goal: null,
      meets: null,
      skipped: "expect not installed",
    });
  } else {
    const peer = await withTimeout(viaExpect(count), 60000, "prompts driven by expect");
    const expectRoundTrip = p(diffs(peer.reads, peer.writes));
    const expectSeen = p(diffs(peer.seen, peer.writes));
    const expectAnswer = p(diffs(peer.reads, peer.sent));
    log(
      `expect (${count}): round trip p50 ${expectRoundTrip.p50.toFixed(2)} ms, seen p50 ${expectSeen.p50.toFixed(2)} ms, answer-to-read p50 ${expectAnswer.p50.toFixed(2)} ms`,
    );
    figures.push({
      name: "prompt_roundtrip_expect_p50_ms",
      value: roundTrip.p50,
      unit: "ms",
      baseline: expectRoundTrip.p50,
      ratio: roundTrip.p50 / expectRoundTrip.p50,
      goal: null,
      meets: null,
      p95: roundTrip.p95,
      baseline_p95: expectRoundTrip.p95,
      expect_seen_p50_ms: expectSeen.p50,
      expect_answer_to_read_p50_ms: expectAnswer.p50,
      expect_answer_to_read_p95_ms: expectAnswer.p95,
      prompts: count,
    });
  }
  return figures;
}
