// Items in arrival order that a test can wait for, each wait bounded by a timeout.

interface Waiter<T> {
  accept: (item: T) => boolean;
  resolve: (item: T) => void;
}

export class WaitableQueue<T> {
  private readonly items: T[] = [];
  private readonly waiters: Array<Waiter<T>> = [];

  push(item: T): void {
    const index = this.waiters.findIndex((waiter) => waiter.accept(item));
    if (index >= 0) {
      const [waiter] = this.waiters.splice(index, 1);
      waiter?.resolve(item);
      return;
    }
    this.items.push(item);
  }

  get length(): number {
    return this.items.length;
  }

  /** Removes and returns the first item for which `accept` holds; earlier items that do not match are dropped. */
  take(accept: (item: T) => boolean, timeoutMs: number, what: () => string): Promise<T> {
    while (this.items.length > 0) {
      const item = this.items.shift() as T;
      if (accept(item)) return Promise.resolve(item);
    }
    // Items that do not match are consumed, like the queued ones above.
    return this.wait(() => true, accept, timeoutMs, what);
  }

  /** Removes and returns the first item for which `accept` holds; the others stay, for other waits. */
  pick(accept: (item: T) => boolean, timeoutMs: number, what: () => string): Promise<T> {
    const index = this.items.findIndex(accept);
    if (index >= 0) return Promise.resolve(this.items.splice(index, 1)[0] as T);
    return this.wait(accept, accept, timeoutMs, what);
  }

  drain(): T[] {
    return this.items.splice(0);
  }

  /** Waits for an item that `claims` takes; it resolves the wait when `accept` holds, else the wait goes on. */
  private wait(
    claims: (item: T) => boolean,
    accept: (item: T) => boolean,
    timeoutMs: number,
    what: () => string,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = {
        accept: claims,
        resolve: (item) => {
          if (accept(item)) {
            clearTimeout(timer);
            resolve(item);
          } else this.waiters.push(waiter);
        },
      };
      const timer = setTimeout(() => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}
