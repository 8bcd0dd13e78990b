// The ids of rows whose `detail` this run has already checked whole (src/store/rows.ts): only this runtime writes
// the database while it holds the lock, and it writes only what it checks on the way in, so a row read again needs
// its JSON parsed, not checked again. A ListTasks page read again and again (a console polling the first page)
// then costs a parse per task instead of a schema check (docs/benchmarks.md, "How cost grows with kept tasks").

/** Ids remembered at most: a few hundred KiB; past it the oldest are checked again when read. */
export const MAX_CHECKED_ROWS = 10_000;

export class CheckedRows {
  private readonly ids = new Set<string>();

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    if (this.ids.has(id)) return;
    this.ids.add(id);
    if (this.ids.size > MAX_CHECKED_ROWS) this.ids.delete(this.ids.values().next().value as string);
  }
}
