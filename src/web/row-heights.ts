// The heights of the output's rows: LINE_HEIGHT each, except lines that wrapped (measured as they were drawn), so
// the output view can tell which lines a scroll position shows and how tall the lines outside the view are
// (src/web/output-view.tsx). Rows are named by their absolute number (lines dropped from the front included).

/** Must match `.out-line` in console.css. */
export const LINE_HEIGHT = 18;
/** Wrapped rows remembered at most; past it the oldest are forgotten (then taken as one row high until redrawn). */
const MAX_KEPT = 10_000;

export class RowHeights {
  /** Absolute row number → its height, for rows taller than LINE_HEIGHT only. */
  private readonly tall = new Map<number, number>();
  private sorted: number[] | undefined;

  /** Records a drawn row's height; true when that changed what is known. */
  set(row: number, height: number): boolean {
    if (!Number.isFinite(row) || height <= 0) return false;
    const known = this.tall.get(row) ?? LINE_HEIGHT;
    if (Math.abs(known - height) < 1) return false;
    if (height <= LINE_HEIGHT) this.tall.delete(row);
    else {
      this.tall.set(row, height);
      if (this.tall.size > MAX_KEPT) this.tall.delete(this.tall.keys().next().value as number);
    }
    this.sorted = undefined;
    return true;
  }

  clear(): void {
    this.tall.clear();
    this.sorted = undefined;
  }

  /** Rows before `row` are gone (dropped from the front of a long output). */
  forgetBefore(row: number): void {
    if (this.keys()[0] === undefined || (this.keys()[0] as number) >= row) return;
    for (const key of this.tall.keys()) if (key < row) this.tall.delete(key);
    this.sorted = undefined;
  }

  /** The height of rows `from` (inclusive) to `to` (exclusive). */
  span(from: number, to: number): number {
    let height = Math.max(0, to - from) * LINE_HEIGHT;
    for (const row of this.keys()) {
      if (row >= to) break;
      if (row >= from) height += (this.tall.get(row) as number) - LINE_HEIGHT;
    }
    return height;
  }

  /** The number (from `base`, the first row) of the row at `offset` pixels from the top. */
  indexAt(base: number, offset: number): number {
    let row = base;
    let left = offset;
    for (const tall of this.keys()) {
      if (tall < row) continue;
      const before = (tall - row) * LINE_HEIGHT;
      if (left < before) break;
      left -= before;
      const height = this.tall.get(tall) as number;
      if (left < height) return tall - base;
      left -= height;
      row = tall + 1;
    }
    return row - base + Math.floor(left / LINE_HEIGHT);
  }

  private keys(): number[] {
    this.sorted ??= [...this.tall.keys()].sort((a, b) => a - b);
    return this.sorted;
  }
}
