// ListTasks (CONTRACT 7.4): the query every store answers, and its opaque page tokens, stable while tasks are added.
import type { TaskState } from "./task.js";

export interface ListQuery {
  contextId?: string;
  state?: TaskState;
  /** Only tasks whose status changed at or after this instant (epoch ms). */
  statusTimestampAfter?: number;
  /** 1..100. */
  pageSize: number;
  /** From the previous page's `nextPageToken`; already decoded and checked. */
  after?: PageCursor;
}

/** Where a page ended: newest status first, ties broken by id, so pages stay stable while tasks are added. */
export interface PageCursor {
  updatedAt: string;
  id: string;
}

export interface ListPage<T> {
  items: T[];
  /** "" on the last page. */
  nextPageToken: string;
  totalSize: number;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export function encodePageToken(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.updatedAt, cursor.id])).toString("base64url");
}

/** The cursor in a token, or undefined when the token is not one of ours. */
export function decodePageToken(token: string): PageCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [updatedAt, id] = value;
    if (typeof updatedAt !== "string" || typeof id !== "string" || Number.isNaN(Date.parse(updatedAt)))
      return undefined;
    return { updatedAt, id };
  } catch {
    return undefined;
  }
}

interface Listable {
  id: string;
  contextId: string;
  state: TaskState;
  updatedAt: string;
}

/** Newest status first; equal timestamps by id, descending. */
export function compareListed(a: PageCursor, b: PageCursor): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

export function matchesQuery(task: Listable, query: ListQuery): boolean {
  if (query.contextId !== undefined && task.contextId !== query.contextId) return false;
  if (query.state !== undefined && task.state !== query.state) return false;
  if (query.statusTimestampAfter !== undefined && Date.parse(task.updatedAt) < query.statusTimestampAfter) return false;
  return true;
}

/** One page of `tasks` (any order) for `query`: what a store without indexes does. */
export function pageOf<T extends Listable>(tasks: Iterable<T>, query: ListQuery): ListPage<T> {
  const matching = [...tasks].filter((task) => matchesQuery(task, query)).sort(compareListed);
  const start = query.after ? matching.findIndex((task) => compareListed(task, query.after as PageCursor) > 0) : 0;
  const from = start < 0 ? matching.length : start;
  const items = matching.slice(from, from + query.pageSize);
  const last = items.at(-1);
  const more = from + items.length < matching.length;
  return { items, nextPageToken: more && last ? encodePageToken(last) : "", totalSize: matching.length };
}

/**
 * One page from two disjoint sources, each already a page for the same query (at most `pageSize` items after the
 * cursor, in order): the first `pageSize` of both, and a token when either had more or some were left out.
 */
export function mergePages<T extends Listable>(a: ListPage<T>, b: ListPage<T>, pageSize: number): ListPage<T> {
  const both = [...a.items, ...b.items].sort(compareListed);
  const items = both.slice(0, pageSize);
  const last = items.at(-1);
  const more = a.nextPageToken !== "" || b.nextPageToken !== "" || both.length > items.length;
  return { items, nextPageToken: more && last ? encodePageToken(last) : "", totalSize: a.totalSize + b.totalSize };
}
