// The webhook rules of push notifications (CONTRACT 9.3, docs/security.md "Webhooks"): which hosts are allowed,
// that a name's address is pinned when the config is made (DNS rebinding changes nothing), that header fields with
// control characters are refused, and that a receiver that does not keep up stops its own config only.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { configRequestOf } from "../../src/a2a/push/config-wire.js";
import { Deliverer } from "../../src/a2a/push/deliverer.js";
import { agentFor, postOnce } from "../../src/a2a/push/post.js";
import { allowedHostOf, canonicalAddress, WebhookHosts } from "../../src/a2a/push/webhook-hosts.js";
import { CoreError } from "../../src/core/errors.js";
import type { OutputEvent } from "../../src/core/task/events.js";
import { WebhookReceiver } from "../helpers/webhook-receiver.js";

const refusal = async (hosts: WebhookHosts, url: string) => {
  try {
    await hosts.check(url);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

describe("webhook hosts", () => {
  it("canonical addresses: IPv4-mapped IPv6 is the IPv4 address it maps", () => {
    assert.equal(canonicalAddress("::ffff:127.0.0.1"), "127.0.0.1");
    assert.equal(canonicalAddress("[::ffff:7f00:1]"), "127.0.0.1");
    assert.equal(canonicalAddress("0:0:0:0:0:ffff:a00:1"), "10.0.0.1");
    assert.equal(canonicalAddress("0:0:0:0:0:0:0:1"), "::1");
    assert.equal(canonicalAddress("example.com"), undefined);
  });

  it("loopback and localhost are allowed; other hosts only when named; 0.0.0.0, ::, userinfo never", async () => {
    const hosts = new WebhookHosts(["10.1.2.3", "hooks.internal"], async () => "10.9.9.9");
    for (const url of [
      "http://127.0.0.1:8080/h",
      "http://127.5.6.7/h",
      "http://[::1]:9/h",
      "http://localhost/h",
      "https://[::ffff:127.0.0.1]/h",
      "http://10.1.2.3/h",
      "http://[::ffff:10.1.2.3]/h",
      "https://hooks.internal/h",
      "http://HOOKS.internal./h",
    ])
      assert.equal(await refusal(hosts, url), undefined, url);
    for (const [url, reason] of [
      ["http://10.1.2.4/h", /not allowed/],
      ["http://[::ffff:10.1.2.4]/h", /not allowed/],
      ["http://169.254.169.254/latest/meta-data", /not allowed/],
      ["http://evil.example/h", /not allowed/],
      ["http://127.0.0.1.nip.io/h", /not allowed/],
      ["http://0.0.0.0/h", /unspecified/],
      ["http://0/h", /unspecified/],
      ["http://[::]/h", /unspecified/],
      ["http://[::ffff:0.0.0.0]/h", /unspecified/],
      ["http://a:b@127.0.0.1/h", /userinfo/],
      ["http://a@localhost/h", /userinfo/],
      ["ftp://127.0.0.1/h", /http:\/\/ or https:\/\//],
      ["not a url", /absolute http/],
      [`http://127.0.0.1/${"x".repeat(3000)}`, /at most 2048/],
    ] as const)
      assert.match((await refusal(hosts, url)) ?? "accepted", reason, url);
  });

  it("property: an IPv4 address outside 127/8, plain or IPv4-mapped, is refused unless allowed", async () => {
    const hosts = new WebhookHosts([], async () => {
      throw new Error("no lookups for addresses");
    });
    await fc.assert(
      fc.asyncProperty(fc.ipV4(), async (address) => {
        const loopback = address.startsWith("127.");
        for (const url of [`http://${address}/h`, `http://[::ffff:${address}]/h`]) {
          const why = await refusal(hosts, url);
          if (loopback) assert.equal(why, undefined, url);
          else assert.match(why ?? "accepted", /not allowed|unspecified/, url);
        }
      }),
    );
  });

  it("a name is resolved once, when the config is made: its address is pinned (no rebinding)", async () => {
    const answers = ["127.0.0.1", "10.6.6.6"];
    const hosts = new WebhookHosts(["rebind.test"], async () => answers.shift() as string);
    const receiver = await WebhookReceiver.start();
    try {
      const checked = await hosts.check(`http://rebind.test:${receiver.port}/h`);
      assert.equal(checked.address, "127.0.0.1");
      const url = new URL(checked.url);
      const agent = agentFor(url);
      // Every delivery connects to the pinned address, whatever the name resolves to now; Host stays the URL's.
      for (let i = 0; i < 2; i++)
        assert.equal(await postOnce(url, checked.address as string, "{}", {}, 2000, agent), undefined);
      agent.destroy();
      assert.equal(receiver.received.length, 2);
      assert.equal(receiver.received[0]?.headers.host, `rebind.test:${receiver.port}`);
      assert.equal(answers.length, 1, "looked up once");
    } finally {
      await receiver.close();
    }
  });

  it("an allowed name that resolves to an unspecified address is refused", async () => {
    const hosts = new WebhookHosts(["zero.test"], async () => "0.0.0.0");
    assert.match((await refusal(hosts, "http://zero.test/h")) ?? "accepted", /unspecified/);
  });

  it("--allow-webhook-host takes a bare name or address, never one that means every address", () => {
    assert.deepEqual(allowedHostOf("Example.COM."), { host: "example.com" });
    assert.deepEqual(allowedHostOf("[::ffff:10.0.0.1]"), { host: "10.0.0.1" });
    for (const bad of ["0.0.0.0", "::", "http://x", "x:80", "a/b", "*"])
      assert.ok("problem" in allowedHostOf(bad), bad);
  });
});

describe("config fields that become headers", () => {
  it("property: a token, credentials or scheme with a control character is refused with its field", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.integer({ min: 0, max: 0x1f }).chain((c) => fc.constant(String.fromCharCode(c))),
        fc.string({ maxLength: 20 }),
        fc.constantFrom("token", "credentials", "scheme"),
        (before, control, after, field) => {
          const value = `${before}${control}${after}`;
          const config: Record<string, unknown> = { url: "http://127.0.0.1/h" };
          if (field === "token") config.token = value;
          else config.authentication = { scheme: field === "scheme" ? value : "Bearer", credentials: value };
          assert.throws(
            () => configRequestOf(config, "", "1.0"),
            (error: unknown) =>
              error instanceof CoreError &&
              error.code === "invalid_params" &&
              (error.data.errors?.[0]?.path.startsWith(field === "token" ? "/token" : "/authentication") ?? false),
          );
        },
      ),
    );
  });

  it("printable values are taken as they are", () => {
    assert.deepEqual(
      configRequestOf(
        {
          url: "http://127.0.0.1/h",
          id: "c-1",
          token: "t x!",
          authentication: { scheme: "Basic", credentials: "a b" },
        },
        "",
        "1.0",
      ),
      { url: "http://127.0.0.1/h", id: "c-1", token: "t x!", authentication: { scheme: "Basic", credentials: "a b" } },
    );
  });
});

describe("a receiver that does not keep up", () => {
  const output = (seq: number, stream: "stdout" | "stderr", text: string): OutputEvent => {
    const data = Buffer.from(text);
    return { type: "output", taskId: "t1", contextId: "c1", stream, seq, text, data, raw: data, first: seq === 1 };
  };

  it("consecutive output of one artifact is merged while it waits; a full queue stops the config", async () => {
    const receiver = await WebhookReceiver.start(() => 200);
    const logs: string[] = [];
    const config = { id: "p", taskId: "t1", url: receiver.url(), family: "1.0" as const, address: "127.0.0.1" };
    const deliverer = new Deliverer(
      config,
      new WebhookHosts(),
      { timeoutMs: 2000, backoffMs: 10, maxQueued: 3, maxQueuedBytes: 1 << 20, log: (line) => logs.push(line) },
      () => {},
    );
    try {
      for (let seq = 1; seq <= 100; seq++) deliverer.event(output(seq, "stdout", `line ${seq}\n`));
      await deliverer.idle();
      const texts = receiver.received.map((r) => r.body.artifactUpdate.artifact.parts[0].text);
      assert.equal(texts.join(""), Array.from({ length: 100 }, (_, i) => `line ${i + 1}\n`).join(""));
      // The first went out at once; the 99 that came while it was sent waited as one.
      assert.equal(receiver.received.length, 2);
      assert.deepEqual(logs, []);
      // Alternating artifacts can't be merged: past 3 waiting items the config stops, and says so.
      for (let seq = 101; seq <= 110; seq++) deliverer.event(output(seq, seq % 2 ? "stdout" : "stderr", "x"));
      assert.equal(deliverer.isStopped, true);
      assert.match(logs[0] ?? "", /push config p of task t1 .* receives no more deliveries: its queue is full/);
    } finally {
      deliverer.stop();
      await receiver.close();
    }
  });
});
