// The operator console in a real headless Chromium (CONTRACT section 10): opened from the start line, it shows a task
// sent by another client with its output, answers its prompt with the y button, cancels a running task, checks a
// pasted envelope at its fields and follows a valid one, keeps hostile output as text, refuses to load anything
// with a wrong or missing token, and never leaks the token. Any CSP violation, dialog or page error fails it.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { NO_BROWSER, type OpenBrowser, openBrowser, type PageWatch, watchedPage } from "../helpers/browser.js";
import { ROOT } from "../helpers/cli.js";
import { ADAPTER_URI, HITL_URI, type HttpServer, startHttp } from "../helpers/http-server.js";

// Screenshots of every view, to look at (CONSOLE_SHOTS=DIR keeps them somewhere else); docs/console.png is the README's.
const SHOTS = process.env.CONSOLE_SHOTS ?? join(tmpdir(), "adapter-command-console-shots");
const WAIT = { timeout: 15_000 };

function envelope(workingDir: string, more: Record<string, unknown> = {}) {
  return {
    adapter: "sandbox-agent-runner",
    mode: "plan",
    command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/req.json"],
    working_dir: workingDir,
    timeout_seconds: 60,
    ...more,
  };
}

let sent = 0;
/** Another client: a 1.0 SendMessage over REST that returns at once; resolves with the task's id. */
async function sendFromElsewhere(server: HttpServer, workingDir: string, more: Record<string, unknown> = {}) {
  sent += 1;
  const answer = await server.fetch("/a2a/rest/message:send", {
    method: "POST",
    headers: { "A2A-Extensions": HITL_URI },
    body: {
      message: {
        messageId: `console-${process.pid}-${sent}`,
        role: "ROLE_USER",
        parts: [{ text: "from another client" }],
        metadata: { [ADAPTER_URI]: envelope(workingDir, more) },
      },
      configuration: { returnImmediately: true },
    },
  });
  assert.equal(answer.status, 200, answer.text);
  return String(answer.body.task.id);
}

/** Nothing the page did may break its policy, open a dialog or throw. */
function assertClean(watch: PageWatch, what: string) {
  assert.deepEqual(watch.violations, [], `CSP violations ${what}`);
  assert.deepEqual(watch.dialogs, [], `dialogs ${what}`);
  assert.deepEqual(watch.errors, [], `page errors ${what}`);
}

/** Every input has a label and every button a name: the controls can be found by keyboard and screen reader. */
async function assertLabelled(page: Page) {
  // Run in the page (a string: this file is typed for Node, not the DOM).
  const unnamed = await page.evaluate(`[...document.querySelectorAll("button, input, select, textarea")]
    .filter((element) => element.tagName === "BUTTON"
      ? (element.getAttribute("aria-label") ?? element.textContent ?? "").trim() === ""
      : (element.labels?.length ?? 0) === 0)
    .map((element) => element.outerHTML.slice(0, 80))`);
  assert.deepEqual(unnamed, []);
}

describe("the operator console in a browser", { skip: NO_BROWSER, timeout: 120_000 }, () => {
  let server: HttpServer;
  let chromium: OpenBrowser;
  let watch: PageWatch;
  let page: Page;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startHttp();
    chromium = await openBrowser();
    watch = await watchedPage(chromium.context);
    page = watch.page;
  });
  after(async () => {
    await chromium?.close();
    await server?.close();
  });

  it("opens from the start line; the token leaves the address bar at once and goes to session storage", async () => {
    assert.ok(server.token);
    assert.equal(server.start.console, `${server.url}/#token=${encodeURIComponent(server.token)}`);
    await page.goto(server.start.console);
    await page.getByRole("heading", { name: "Tasks" }).waitFor(WAIT);
    assert.equal(page.url(), `${server.url}/`);
    assert.equal(await page.evaluate("location.hash"), "");
    assert.equal(await page.evaluate(`sessionStorage.getItem("adapter-command.console.token")`), server.token);
    assert.deepEqual(await page.context().cookies(), []);
    await assertLabelled(page);
    assertClean(watch, "on opening");
    // The watch sees what the policy blocks: an inline script put into the page is refused and reported.
    const reported = watch.nextViolation();
    const logged = page.waitForEvent(
      "console",
      (message) =>
        message.text().includes("Content-Security-Policy") || message.text().includes("Content Security Policy"),
    );
    await page.evaluate(`document.body.append(Object.assign(document.createElement("script"), { textContent: "1" }))`);
    assert.match(await reported, /script-src/);
    await logged;
    watch.violations.length = 0;
    watch.errors.length = 0;
  });

  it("cancels a running task", async () => {
    const id = await sendFromElsewhere(server, "hang");
    await page.locator(`[data-task-id="${id}"]`).click(WAIT);
    await page.locator(".output").getByText("hanging").waitFor(WAIT);
    await page.getByRole("button", { name: "Cancel task" }).click();
    await page.locator('[data-field="state"]').getByText("canceled").waitFor(WAIT);
    const task = await server.fetch(`/a2a/rest/tasks/${id}`);
    assert.equal(task.body.status.state, "TASK_STATE_CANCELED");
    assertClean(watch, "canceling");
  });

  it("a failed task shows its fail kind, exit code and stderr", async () => {
    const id = await sendFromElsewhere(server, "exit3");
    await page.locator(`[data-task-id="${id}"]`).click(WAIT);
    await page.locator('[data-field="state"]').getByText("failed").waitFor(WAIT);
    await page.locator('[data-field="fail_kind"]').getByText("application").waitFor(WAIT);
    await page.locator('[data-field="exit_code"]').getByText("3").waitFor(WAIT);
    await page.locator(".out-stderr").getByText("failing").waitFor(WAIT);
    assertClean(watch, "showing a failure");
  });

  it("checks a pasted envelope in the page, shows its problems at their fields, then sends a valid one and follows it", async () => {
    await page.getByRole("button", { name: "New task" }).click();
    const input = page.getByLabel("Envelope or input file");
    const before = await server.fetch("/a2a/rest/tasks?pageSize=1");
    await input.fill(
      JSON.stringify({ ...envelope("ok"), mode: "build", timeout_seconds: "5", colour: "red" }, null, 2),
    );
    await page.getByRole("button", { name: "Check" }).click();
    await page.locator('[data-field="/mode"]').getByText("mode").waitFor(WAIT);
    assert.match(String(await page.locator('[data-field="/mode"]').textContent()), /plan/);
    assert.match(String(await page.locator('[data-field="/timeout_seconds"]').textContent()), /integer|number/);
    assert.match(String(await page.locator('[data-field="/colour"]').textContent()), /unknown_field/);
    assert.match(String(await page.locator('[data-field="/timeout_seconds"]').textContent()), /line \d+, column \d+/);
    await page.screenshot({ path: join(SHOTS, "problems.png") });
    // Sending an invalid one sends nothing.
    await page.getByRole("button", { name: "Send and follow" }).click();
    await page.locator('[data-field="/mode"]').waitFor(WAIT);
    const still = await server.fetch("/a2a/rest/tasks?pageSize=1");
    assert.equal(still.body.totalSize, before.body.totalSize);
    // A working_dir that leaves the workspace passes the page's checks but not the server's: shown at its field too.
    await input.fill(JSON.stringify(envelope("../.."), null, 2));
    await page.getByRole("button", { name: "Send and follow" }).click();
    await page.locator('[data-field="/working_dir"]').waitFor(WAIT);
    await page.getByText("The server refused it").waitFor(WAIT);
    // A whole input file (send params, 0.3 names) that is valid: sent, and its task followed.
    await input.fill(
      JSON.stringify({
        message: {
          kind: "message",
          role: "user",
          parts: [{ kind: "text", text: "from the form" }],
          metadata: { [ADAPTER_URI]: envelope("ok") },
        },
      }),
    );
    await page.getByText("Valid (adapter command)").waitFor(WAIT);
    await page.getByRole("button", { name: "Send and follow" }).click();
    await page.locator('[data-field="state"]').getByText("completed").waitFor(WAIT);
    await page.locator(".output").getByText("ok").first().waitFor(WAIT);
    assertClean(watch, "in the new task form");
  });

  it("keeps hostile output as text: no markup, no script, no link; colours by class", async () => {
    const id = await sendFromElsewhere(server, "console-hostile");
    await page.locator(`[data-task-id="${id}"]`).click(WAIT);
    const output = page.locator(".output");
    await output.getByText("hostile done").waitFor(WAIT);
    const text = String(await output.textContent());
    assert.ok(text.includes(`<img src=x onerror="alert('img')">`), text);
    assert.ok(text.includes(`</script><script>alert('script')</script>`), text);
    assert.ok(text.includes(`<iframe src="/">`), text);
    assert.ok(text.includes("a link and a title"), text);
    assert.ok(text.includes("&lt;entity&gt;"), text);
    assert.equal(await output.locator("img, script, iframe, a, b").count(), 0);
    assert.ok((await output.locator(".ansi-red-fg").count()) > 0);
    assert.ok((await output.locator(".ansi-green-fg.ansi-bold").count()) > 0);
    // Colours by class: styles set through the DOM are only the heights of the output's spacers.
    assert.equal(await page.locator("[style*=color], [style*=background]").count(), 0);
    assert.ok(!watch.requests.some((request) => /\/x$|javascript:/.test(request)), watch.requests.join("\n"));
    await page.screenshot({ path: join(SHOTS, "hostile.png") });
    assertClean(watch, "showing hostile output");
  });

  it("shows a task sent by another client and its output; the y button answers its prompt; it completes", async () => {
    const id = await sendFromElsewhere(server, "ask", { input_mode: "text-line" });
    const item = page.locator(`[data-task-id="${id}"]`);
    await item.waitFor(WAIT);
    await item.click();
    const output = page.locator(".output");
    await output.getByText("Continue? [y/N]").waitFor(WAIT);
    await page.locator(".prompt").getByText("Continue? [y/N]").waitFor(WAIT);
    await item.getByText("input required").waitFor(WAIT);
    await assertLabelled(page);
    // The README's picture is made here: kept in SHOTS, and written to docs/ when CONSOLE_README_SHOT=1 asks for it
    // (so that a test run does not change a file of the checkout).
    await page.screenshot({ path: join(SHOTS, "console.png") });
    if (process.env.CONSOLE_README_SHOT === "1") await page.screenshot({ path: join(ROOT, "docs", "console.png") });
    await page.getByRole("button", { name: "Answer y (yes)" }).click();
    await page.locator('[data-field="state"]').getByText("completed").waitFor(WAIT);
    await output.getByText("answer: y").waitFor(WAIT);
    await page.locator('[data-field="exit_code"]').getByText("0").waitFor(WAIT);
    await item.getByText("completed").waitFor(WAIT);
    const task = await server.fetch(`/a2a/rest/tasks/${id}`);
    assert.equal(task.body.status.state, "TASK_STATE_COMPLETED");
    await page.screenshot({ path: join(SHOTS, "completed.png") });
    assertClean(watch, "following a task");
  });

  it("an answer the server refuses is told in words, and the prompt stays open", async () => {
    const id = await sendFromElsewhere(server, "ask-text", { input_mode: "text-line" });
    await page.locator(`[data-task-id="${id}"]`).click(WAIT);
    await page.locator(".prompt").waitFor(WAIT);
    // A control character is refused by the server's checks (CONTRACT section 4, check 3).
    await page.getByLabel("Answer", { exact: true }).fill("bad\u0007text");
    await page.getByRole("button", { name: "Send answer" }).click();
    await page.getByText("the answer text is invalid").waitFor(WAIT);
    // By keyboard alone: Tab from the answer box reaches the send button, and Enter in the box sends.
    const box = page.getByLabel("Answer", { exact: true });
    await box.focus();
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate("document.activeElement.textContent"), "Send answer");
    await box.focus();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("a good name");
    await page.keyboard.press("Enter");
    await page.locator('[data-field="state"]').getByText("completed").waitFor(WAIT);
    await page.locator(".output").getByText('got "a good name"').waitFor(WAIT);
    assertClean(watch, "refusing an answer");
  });

  it("shows the agent card, and works in a narrow window", async () => {
    await page.getByRole("button", { name: "Agent card" }).click();
    await page.getByRole("heading", { name: "Agent card" }).waitFor(WAIT);
    await page.getByText(ADAPTER_URI).first().waitFor(WAIT);
    await page.setViewportSize({ width: 380, height: 800 });
    await page.getByRole("button", { name: "New task" }).click();
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than a 380 px window`);
    await page.screenshot({ path: join(SHOTS, "narrow.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    assertClean(watch, "on the card and in a narrow window");
  });

  it("at 1280 px: a long output line wraps whole (no sideways overflow), and each filter's label shares its box's row", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const boxes = (await page.evaluate(`["status", "context"].map((name) => {
      const box = (element) => { const r = element.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
      return { label: box(document.querySelector('label[for="filter-' + name + '"]')), control: box(document.getElementById("filter-" + name)) };
    })`)) as Array<{ label: { top: number; bottom: number }; control: { top: number; bottom: number } }>;
    for (const { label, control } of boxes) {
      const middle = (label.top + label.bottom) / 2;
      assert.ok(
        middle > control.top && middle < control.bottom,
        `a label beside its box, not above it: ${JSON.stringify(boxes)}`,
      );
    }
    await page.locator(".filters").screenshot({ path: "/tmp/screen-filters.png" });
    const words = Array.from({ length: 60 }, (_, n) => `word${n}`).join(" ");
    const unbroken = "x".repeat(300);
    const write = `a short line\n${words} ${unbroken} END\n`;
    sent += 1;
    const answer = await server.fetch("/a2a/rest/message:send", {
      method: "POST",
      body: {
        message: {
          messageId: `console-${process.pid}-${sent}`,
          role: "ROLE_USER",
          parts: [{ text: JSON.stringify({ write, quietMs: 100 }) }],
          metadata: { [ADAPTER_URI]: envelope("say") },
        },
        configuration: { returnImmediately: true },
      },
    });
    assert.equal(answer.status, 200, answer.text);
    await page.locator(`[data-task-id="${answer.body.task.id}"]`).click(WAIT);
    const line = page.locator(".out-line").filter({ hasText: "END" });
    await line.waitFor(WAIT);
    await page.locator('[data-field="state"]').getByText("completed").waitFor(WAIT);
    // Measured in the page (a string: this file is typed for Node, not the DOM).
    const measured = (await page.evaluate(`(() => {
      const line = [...document.querySelectorAll(".out-line")].find((row) => row.textContent.includes("END"));
      const output = document.querySelector(".output");
      return {
        text: line.textContent,
        lineOverflow: line.scrollWidth - line.clientWidth,
        outputOverflow: output.scrollWidth - output.clientWidth,
        height: line.offsetHeight,
        right: line.getBoundingClientRect().right,
        outputRight: output.getBoundingClientRect().right,
      };
    })()`)) as {
      text: string;
      lineOverflow: number;
      outputOverflow: number;
      height: number;
      right: number;
      outputRight: number;
    };
    assert.ok(measured.text.includes(`${words} ${unbroken} END`), measured.text);
    assert.ok(measured.lineOverflow <= 0, `the line overflows by ${measured.lineOverflow} px`);
    assert.ok(measured.outputOverflow <= 0, `the output scrolls sideways by ${measured.outputOverflow} px`);
    assert.ok(measured.height > 3 * 18, `the line is ${measured.height} px high: it did not wrap`);
    assert.ok(measured.right <= measured.outputRight + 0.5, JSON.stringify(measured));
    await page.screenshot({ path: "/tmp/screen-output-wrap.png" });
    assertClean(watch, "wrapping output and the filters");
  });

  it("a wrong token says so and loads no data; without a token the page asks for one", async () => {
    const wrong = await watchedPage(chromium.context);
    await wrong.page.goto(`${server.url}/#token=not-the-token`);
    await wrong.page.getByRole("heading", { name: "The token was refused" }).waitFor(WAIT);
    await wrong.page.getByText("No data was loaded").waitFor(WAIT);
    assert.equal(await wrong.page.locator(".task-list").count(), 0);
    assert.equal(await wrong.page.evaluate(`sessionStorage.getItem("adapter-command.console.token")`), null);
    const api = wrong.requests.filter((request) => request.includes("/a2a/"));
    assert.equal(api.length, 1, api.join("\n"));
    await wrong.page.screenshot({ path: join(SHOTS, "wrong-token.png") });
    assert.deepEqual(wrong.violations, []);
    assert.deepEqual(wrong.dialogs, []);
    await wrong.page.close();

    const missing = await watchedPage(chromium.context);
    await missing.page.goto(`${server.url}/`);
    await missing.page.getByRole("heading", { name: "This console needs the server's token" }).waitFor(WAIT);
    assert.equal(await missing.page.locator(".task-list").count(), 0);
    await missing.page.getByLabel("Token", { exact: true }).fill(server.token as string);
    await missing.page.getByRole("button", { name: "Use this token" }).click();
    await missing.page.getByRole("heading", { name: "Tasks" }).waitFor(WAIT);
    await missing.page.locator(".task-item").first().waitFor(WAIT);
    assert.deepEqual(missing.violations, []);
    assert.deepEqual(missing.dialogs, []);
    await missing.page.close();
  });

  it("the token never reaches a request line or the server's log", async () => {
    const token = server.token as string;
    assert.ok(watch.requests.length > 0);
    for (const request of watch.requests) assert.ok(!request.includes(token), request);
    assert.ok(!server.stderr.includes(token), "the token is in the server's stderr");
    assertClean(watch, "at the end");
  });
});

// The first thing a newcomer does in the console: open New task and send what the box holds, against the bundled
// workspace that `serve --http --workspace examples/workspace` serves (the README's example). It completes.
describe("the console's default New task against the bundled workspace", { skip: NO_BROWSER, timeout: 120_000 }, () => {
  let server: HttpServer;
  let chromium: OpenBrowser;
  let watch: PageWatch;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startHttp(["--workspace", join(ROOT, "examples", "workspace")]);
    chromium = await openBrowser();
    watch = await watchedPage(chromium.context);
  });
  after(async () => {
    await chromium?.close();
    await server?.close();
  });

  it("is valid as it stands, and sent unchanged it completes with the plan's output", async () => {
    const { page } = watch;
    await page.goto(server.start.console);
    await page.getByRole("button", { name: "New task" }).click();
    await page.getByRole("button", { name: "Check" }).click();
    await page.getByText("Valid (adapter command)").waitFor(WAIT);
    await page.getByRole("button", { name: "Send and follow" }).click();
    // However it ends, it is said: a request file the workspace lacks fails at once (exit code 2).
    const state = page.locator('[data-field="state"]');
    await state.getByText(/completed|failed|canceled/).waitFor(WAIT);
    const output = page.locator(".output");
    assert.match(String(await state.textContent()), /completed/, String(await output.textContent()));
    await page.locator('[data-field="exit_code"]').getByText("0").waitFor(WAIT);
    await output.getByText("plan: 3 steps, nothing changed").waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, "first-task.png") });
    const list = await server.fetch("/a2a/rest/tasks");
    assert.deepEqual(
      list.body.tasks.map((task: { status: { state: string } }) => task.status.state),
      ["TASK_STATE_COMPLETED"],
    );
    assertClean(watch, "sending the default New task");
  });
});
