// A task named by the start of its id, as the console and `tasks list` show it (8 characters): a prefix of at least
// MIN_PREFIX characters that starts exactly one task's id names that task. Resolved on the client by listing the
// server's tasks, newest first, a bounded number of pages; a whole id is used as it is (docs/reference.md, "A
// runtime at a URL").
import { ListTasksRequest } from "@a2a-js/sdk";
import type { Connection } from "./connect.js";
import { ClientFailure } from "./failures.js";

export const MIN_PREFIX = 8;
/** Tasks a page, and pages read at most: a prefix is looked for among the 5,000 most recent tasks. */
const PAGE_SIZE = 100;
const MAX_PAGES = 50;
/** Candidates named when a prefix is ambiguous. */
const MAX_NAMED = 10;

const WHOLE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type PrefixMatch =
  | { kind: "short" }
  | { kind: "one"; id: string }
  | { kind: "many"; ids: string[] }
  | { kind: "none" };

/**
 * What `prefix` names among `ids`: too short to name anything, one task (a whole id, or the start of exactly one),
 * several, or none.
 */
export function matchPrefix(prefix: string, ids: Iterable<string>): PrefixMatch {
  if (prefix.length < MIN_PREFIX) return { kind: "short" };
  const found = new Set<string>();
  for (const id of ids) {
    if (id === prefix) return { kind: "one", id };
    if (id.startsWith(prefix)) found.add(id);
  }
  const [first, ...rest] = found;
  if (first === undefined) return { kind: "none" };
  return rest.length === 0 ? { kind: "one", id: first } : { kind: "many", ids: [first, ...rest] };
}

/** The whole id `given` names on the server; a usage failure when it is too short, refused when none or several. */
export async function resolveTaskId(connection: Connection, given: string): Promise<string> {
  if (given.length < MIN_PREFIX)
    throw new ClientFailure(
      "usage",
      `expected a task id or the first ${MIN_PREFIX} or more characters of one, found "${given}" (${given.length} character${given.length === 1 ? "" : "s"})`,
    );
  if (WHOLE_ID.test(given)) return given;
  const matches = new Set<string>();
  let pageToken = "";
  let pages = 0;
  do {
    const page = await connection.client.listTasks(
      ListTasksRequest.fromJSON({ pageSize: PAGE_SIZE, historyLength: 0, includeArtifacts: false, pageToken }),
      connection.options,
    );
    const match = matchPrefix(
      given,
      page.tasks.map((task) => task.id),
    );
    if (match.kind === "one" && match.id === given) return given;
    if (match.kind === "one") matches.add(match.id);
    if (match.kind === "many") for (const id of match.ids) matches.add(id);
    pageToken = page.nextPageToken;
    pages += 1;
  } while (pageToken !== "" && pages < MAX_PAGES);
  const [only, ...others] = matches;
  if (only !== undefined && others.length === 0) return only;
  if (only !== undefined) {
    const named = [...matches].slice(0, MAX_NAMED);
    const more = matches.size > named.length ? ` and ${matches.size - named.length} more` : "";
    throw new ClientFailure(
      "refused",
      `task id prefix "${given}" is ambiguous: it starts ${matches.size} tasks' ids (${named.join(", ")}${more}); give more characters`,
    );
  }
  const where = pageToken !== "" ? ` among the ${pages * PAGE_SIZE} most recent tasks` : "";
  throw new ClientFailure("refused", `no task${where} has an id that starts with "${given}": task not found`);
}
