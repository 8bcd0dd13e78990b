// The operator console in headless Chromium (CONTRACT section 10; Debian's chromium, driven by playwright-core).
// console_first_render_ms: navigation to the task list drawn with 50 tasks, against navigation to the same page
// served by the same server with JavaScript off (its HTML and CSS; no script run), in the same run and browser.
// console_output_lines_per_s: lines a runner prints (100 000) that the open task view has appended per second,
// with the longest main-thread task the browser reports (long-task timing), which must stay under 100 ms.
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import { HttpBridge, send10 } from "./http-lib.mjs";
import { HITL_URI, log, median, noFigure } from "./lib.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

async function firstRender(browser, bridge, reps) {
  const consoleMs = [];
  const staticMs = [];
  for (let i = 0; i < reps; i++) {
    const plain = await browser.newContext({ javaScriptEnabled: false });
    const page = await plain.newPage();
    await page.goto(`${bridge.url}/`, { waitUntil: "load" });
    staticMs.push(await page.evaluate(() => performance.getEntriesByType("navigation")[0].loadEventEnd));
    await plain.close();

    const context = await browser.newContext();
    const live = await context.newPage();
    await live.goto(bridge.start.console, { waitUntil: "commit" });
    await live.waitForFunction(() => document.querySelector(".task-list")?.getAttribute("data-count") === "50", null, {
      polling: "raf",
      timeout: 30000,
    });
    consoleMs.push(await live.evaluate(() => performance.now()));
    await context.close();
    log(
      `console first render ${i + 1}/${reps}: ${consoleMs.at(-1).toFixed(0)} ms, static ${staticMs.at(-1).toFixed(0)} ms`,
    );
  }
  return { console: median(consoleMs), static: median(staticMs) };
}

async function outputLines(browser, bridge, lines) {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(bridge.start.console);
    const body = send10("lines", { returnImmediately: true, text: String(lines) });
    body.message.metadata["https://agentic-sandbox.aiwg.io/extensions/adapter-command/v1"].input_mode = "text-line";
    const response = await bridge.open("POST", "/a2a/rest/message:send", body, undefined, {
      "A2A-Extensions": HITL_URI,
    });
    let text = "";
    for await (const chunk of response) text += chunk;
    const id = JSON.parse(text).task.id;
    await page.locator(`[data-task-id="${id}"]`).click({ timeout: 30000 });
    await page.locator(".prompt").waitFor({ timeout: 30000 });
    await page.evaluate(() => {
      window.__longest = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) window.__longest = Math.max(window.__longest, entry.duration);
      }).observe({ type: "longtask" });
      window.__t0 = performance.now();
    });
    await page.getByRole("button", { name: "Answer y (yes)" }).click();
    await page.waitForFunction(
      (n) => Number(document.querySelector(".output")?.getAttribute("data-lines")) >= n,
      lines,
      {
        polling: "raf",
        timeout: 120000,
      },
    );
    const { elapsed, longest } = await page.evaluate(() => ({
      elapsed: performance.now() - window.__t0,
      longest: window.__longest,
    }));
    return { rate: (lines / elapsed) * 1000, longest, elapsed };
  } finally {
    await context.close();
  }
}

/** The two figures as skipped, saying why (as the expect comparison does where expect is missing). */
function skipped(why) {
  return ["console_first_render_ms", "console_output_lines_per_s"].map((name) =>
    noFigure(name, {
      meets: null,
      skipped: why,
    }),
  );
}

export async function consoleFigures({ quick }) {
  if (!existsSync(CHROMIUM)) return skipped(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM)`);
  const reps = quick ? 3 : 7;
  const lines = 100_000;
  // Playwright's launch starts from a fresh profile of its own, removed at close.
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const bridge = new HttpBridge();
  try {
    await bridge.ready();
    for (let i = 0; i < 50; i++) await bridge.json("POST", "/a2a/rest/message:send", send10("noop"));
    const render = await firstRender(browser, bridge, reps);
    const output = await outputLines(browser, bridge, lines);
    log(
      `console output: ${lines} lines in ${output.elapsed.toFixed(0)} ms, longest task ${output.longest.toFixed(0)} ms`,
    );
    const ratio = render.console / render.static;
    return [
      {
        name: "console_first_render_ms",
        value: render.console,
        unit: "ms",
        baseline: render.static,
        ratio,
        goal: "< 4 x the same page's HTML and CSS with no script",
        meets: ratio < 4,
        tasks: 50,
      },
      {
        name: "console_output_lines_per_s",
        value: output.rate,
        unit: "lines/s",
        baseline: null,
        ratio: null,
        goal: ">= 10000 lines/s, no main-thread task over 100 ms",
        meets: output.rate >= 10_000 && output.longest <= 100,
        lines,
        longest_task_ms: output.longest,
      },
    ];
  } finally {
    await bridge.close();
    await browser.close();
  }
}
