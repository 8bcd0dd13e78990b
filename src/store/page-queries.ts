// ListTasks in SQL: the filters, order, cursor and page tokens of src/core/task/list-query.ts (`pageOf`), answered from the
// indexes of src/store/schema.ts instead of a scan of every task.
import type { Database, Statement } from "better-sqlite3";
import { encodePageToken, type ListQuery } from "../core/task/list-query.js";

export interface RowPage {
  /** Raw rows, each to be checked before use. */
  rows: Array<{ id: string }>;
  nextPageToken: string;
  totalSize: number;
}

const EARLIEST = Date.parse("0000-01-01T00:00:00.000Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * `statusTimestampAfter` as a bound on `updated_at`, which holds only `toISOString` text (checked on read), so text
 * order is time order: "all" when every stored instant is at or after it, "none" when none can be.
 */
export function instantBound(after: number): string | "all" | "none" {
  // matchesQuery keeps a task whose instant (whole milliseconds) is >= after.
  const at = Math.ceil(after);
  if (at <= EARLIEST) return "all";
  if (at > LATEST || Number.isNaN(at)) return "none";
  return new Date(at).toISOString();
}

export class PageQueries {
  private readonly statements = new Map<string, { count: Statement; rows: Statement }>();

  constructor(private readonly db: Database) {}

  /** One page of rows for `query`, leaving out the ids in `hidden`. */
  page(query: ListQuery, hidden: ReadonlySet<string>): RowPage {
    const filters: string[] = [];
    const params: Record<string, string | number> = {};
    if (query.contextId !== undefined) {
      filters.push("context_id = @contextId");
      params.contextId = query.contextId;
    }
    if (query.state !== undefined) {
      filters.push("state = @state");
      params.state = query.state;
    }
    if (query.statusTimestampAfter !== undefined) {
      const bound = instantBound(query.statusTimestampAfter);
      if (bound === "none") return { rows: [], nextPageToken: "", totalSize: 0 };
      if (bound !== "all") {
        filters.push("updated_at >= @after");
        params.after = bound;
      }
    }
    if (hidden.size > 0) {
      filters.push("id NOT IN (SELECT value FROM json_each(@hidden))");
      params.hidden = JSON.stringify([...hidden]);
    }
    const { count, rows } = this.statementsFor(filters, query.after !== undefined);
    const totalSize = (count.get(params) as { n: number }).n;
    const cursor = query.after ? { cursorAt: query.after.updatedAt, cursorId: query.after.id } : {};
    const found = rows.all({ ...params, ...cursor, limit: query.pageSize + 1 }) as Array<{
      id: string;
      updated_at: string;
    }>;
    const page = found.slice(0, query.pageSize);
    const last = page.at(-1);
    const more = found.length > page.length && last !== undefined;
    return {
      rows: page,
      nextPageToken: more ? encodePageToken({ updatedAt: last.updated_at, id: last.id }) : "",
      totalSize,
    };
  }

  private statementsFor(filters: string[], withCursor: boolean): { count: Statement; rows: Statement } {
    const key = `${filters.join(" AND ")}|${withCursor}`;
    let statements = this.statements.get(key);
    if (!statements) {
      const where = (extra: string[]) => (extra.length > 0 ? `WHERE ${extra.join(" AND ")}` : "");
      // Newest status first, ties by id descending (compareListed); the cursor is the last item of the page before.
      const paged = withCursor ? [...filters, "(updated_at, id) < (@cursorAt, @cursorId)"] : filters;
      statements = {
        count: this.db.prepare(`SELECT count(*) AS n FROM tasks ${where(filters)}`),
        rows: this.db.prepare(`SELECT * FROM tasks ${where(paged)} ORDER BY updated_at DESC, id DESC LIMIT @limit`),
      };
      this.statements.set(key, statements);
    }
    return statements;
  }
}
