// idempotency/v1's kept first answers in the state database (CONTRACT 9.1): read once at start (each row checked,
// a row of the wrong shape skipped), then written through by the cache that bounds them (src/a2a/answer-cache.ts).
import type { Database, Statement } from "better-sqlite3";
import type { KeptAnswer, KeptAnswerRows } from "../core/store.js";

const KINDS: ReadonlySet<string> = new Set(["result", "core-error", "error", "task", "stream"]);

function isKeptAnswer(row: Record<string, unknown>): boolean {
  return (
    typeof row.key === "string" &&
    typeof row.hash === "string" &&
    /^(v2:)?[0-9a-f]{64}$/.test(row.hash) &&
    Number.isSafeInteger(row.at) &&
    typeof row.kind === "string" &&
    KINDS.has(row.kind) &&
    typeof row.text === "string"
  );
}

export class SqliteKeptAnswers implements KeptAnswerRows {
  private readonly upsert: Statement;
  private readonly remove: Statement;

  constructor(
    private readonly db: Database,
    private readonly warn: (line: string) => void,
  ) {
    // A key kept again moves to the end: the order of `n` is the order of age.
    this.upsert = db.prepare(
      `INSERT INTO kept_answers (key, hash, at, kind, text) VALUES (@key, @hash, @at, @kind, @text)
       ON CONFLICT (key) DO UPDATE SET n = (SELECT coalesce(max(n), 0) + 1 FROM kept_answers), hash = excluded.hash,
         at = excluded.at, kind = excluded.kind, text = excluded.text`,
    );
    this.remove = db.prepare("DELETE FROM kept_answers WHERE key = ?");
  }

  load(): KeptAnswer[] {
    const answers: KeptAnswer[] = [];
    let skipped = 0;
    for (const row of this.db.prepare("SELECT key, hash, at, kind, text FROM kept_answers ORDER BY n").iterate()) {
      const record = row as Record<string, unknown>;
      if (isKeptAnswer(record)) answers.push(record as unknown as KeptAnswer);
      else skipped += 1;
    }
    if (skipped > 0) this.warn(`${skipped} kept idempotency answer(s) of the wrong shape skipped`);
    return answers;
  }

  put(answer: KeptAnswer): void {
    this.upsert.run(answer);
  }

  delete(keys: readonly string[]): void {
    this.db.transaction(() => {
      for (const key of keys) this.remove.run(key);
    })();
  }
}
