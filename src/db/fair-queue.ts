/**
 * A queue served round robin across shares (workspaces): each share's items stay in their
 * order, and the next item taken is the head of the share whose turn it is, so one share's
 * thousand waiting items put at most one of its own ahead of another share's next one.
 * The shares are a Map in turn order: a share served and still waiting moves to the end.
 */
export class FairQueue<T> {
  private readonly shares = new Map<string, T[]>();
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(share: string, item: T): void {
    const waiting = this.shares.get(share);
    if (waiting) waiting.push(item);
    else this.shares.set(share, [item]);
    this.count += 1;
  }

  /** The item `shift` would take, left in place. */
  peek(): T | undefined {
    for (const waiting of this.shares.values()) return waiting[0];
    return undefined;
  }

  /** Takes the head of the share whose turn it is; that share's turn passes to the next. */
  shift(): T | undefined {
    for (const [share, waiting] of this.shares) {
      const item = waiting.shift()!;
      this.shares.delete(share);
      if (waiting.length > 0) this.shares.set(share, waiting);
      this.count -= 1;
      return item;
    }
    return undefined;
  }

  /** Takes every item, in turn order. */
  drain(): T[] {
    const all: T[] = [];
    for (let item = this.shift(); item !== undefined; item = this.shift()) all.push(item);
    return all;
  }
}
