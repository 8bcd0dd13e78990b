// idempotency/v1's kept errors (CONTRACT 9.1) in a state dir: an operation's error is kept as the CoreError it is
// (kind "core-error"), so a retry on another binding of the family gets that binding's own answer to it, as if it
// were the first; an entry kept by an earlier version as a family's JSON-RPC error (kind "error") still replays.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { envelopeParams } from "../helpers/envelopes.js";
import { startHttp } from "../helpers/http-server.js";
import { BOTH, httpRpcDriver, restDriver } from "../helpers/send-drivers.js";
import { editDb, tempDir } from "../helpers/state-dir.js";

/** A message whose envelope is refused (ADAPTER_COMMAND_REJECTED), under `key`. */
function refusedMessage(key: string): Record<string, unknown> {
  const message = envelopeParams("ok", { text: "x" }).message as Record<string, unknown>;
  const metadata = message.metadata as Record<string, unknown>;
  return { ...message, messageId: key, metadata: { [Object.keys(metadata)[0] as string]: { adapter: "nope" } } };
}

interface Row {
  kind: string;
  text: string;
}
const rowOf = (dir: string, key: string) =>
  editDb(dir, (db) => db.prepare("SELECT kind, text FROM kept_answers WHERE key = ?").get(key) as Row | undefined);

/**
 * A server on a new state dir where one refused send was answered on HTTP JSON-RPC 1.0 under `key`, then stopped; with
 * that first answer and HTTP+JSON's first answer to the same refusal (under another key, so nothing is replayed).
 */
async function refusedOnce(key: string) {
  const dir = tempDir("idem-errors");
  const server = await startHttp(["--state-dir", dir]);
  try {
    const first = await httpRpcDriver(() => server, "1.0").send(refusedMessage(key), { extensions: BOTH });
    assert.match(first.text, /"error":/);
    const restFirst = await restDriver(() => server).send(refusedMessage(randomUUID()), { extensions: BOTH });
    assert.equal(restFirst.status, 400, restFirst.text);
    return { dir, first, restFirst };
  } finally {
    await server.close();
  }
}

describe("idempotency/v1: kept errors in a state dir", () => {
  it("an error is kept as the CoreError it is; a retry on HTTP+JSON after a restart is HTTP+JSON's own first answer", async () => {
    const key = randomUUID();
    const { dir, first, restFirst } = await refusedOnce(key);
    const row = rowOf(dir, key);
    assert.equal(row?.kind, "core-error");
    const kept = JSON.parse(row.text);
    assert.equal(kept.code, "envelope_rejected");
    assert.ok(Array.isArray(kept.data.errors) && kept.data.errors.length > 0, row.text);
    const server = await startHttp(["--state-dir", dir]);
    const rpc = httpRpcDriver(() => server, "1.0");
    const rest = restDriver(() => server);
    try {
      const retry = await rest.send(refusedMessage(key), { extensions: BOTH });
      assert.equal(retry.replayed, true);
      assert.equal(retry.status, 400);
      assert.equal(retry.text, restFirst.text);
      const again = await rpc.send(refusedMessage(key), { extensions: BOTH, spaced: true });
      assert.equal(again.replayed, true);
      assert.equal(again.text, first.text);
    } finally {
      await server.close();
    }
  });

  it('an entry of the kind "error" (a JSON-RPC error, as earlier versions kept it) still replays on every binding', async () => {
    const key = randomUUID();
    const { dir, first, restFirst } = await refusedOnce(key);
    // The row as an earlier version wrote it: the 1.0 JSON-RPC error's code, message and data.
    const { code, message, data } = first.body.error;
    editDb(dir, (db) =>
      db
        .prepare("UPDATE kept_answers SET kind = 'error', text = ? WHERE key = ?")
        .run(JSON.stringify({ code, message, data }), key),
    );
    const server = await startHttp(["--state-dir", dir]);
    const rpc = httpRpcDriver(() => server, "1.0");
    const rest = restDriver(() => server);
    try {
      const retry = await rpc.send(refusedMessage(key), { extensions: BOTH });
      assert.equal(retry.replayed, true);
      assert.equal(retry.text, first.text);
      const restRetry = await rest.send(refusedMessage(key), { extensions: BOTH });
      assert.equal(restRetry.replayed, true);
      assert.equal(restRetry.status, 400);
      assert.equal(restRetry.text, restFirst.text);
    } finally {
      await server.close();
    }
  });
});
