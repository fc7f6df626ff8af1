/**
 * At most `size` holders at once and one per key (a client address), so no one client can take
 * every slot. A key that already holds a slot is turned away at once; others wait their turn in
 * arrival order for at most `maxWaitMs`, so the line is never longer than the clients in it.
 */
export class ConcurrencyLimit {
  #held = 0;
  readonly #keys = new Set<string>();
  /** Hands a freed slot to the next in line. */
  readonly #line: (() => void)[] = [];

  readonly size: number;
  readonly maxWaitMs: number;

  constructor(size: number, maxWaitMs = 2_000) {
    this.size = size;
    this.maxWaitMs = maxWaitMs;
  }

  /** The slot's release function (calling it twice is harmless), or undefined when refused. */
  async acquire(key: string): Promise<(() => void) | undefined> {
    if (this.#keys.has(key)) return undefined;
    this.#keys.add(key);
    if (!(await this.#slot())) {
      this.#keys.delete(key);
      return undefined;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#keys.delete(key);
      // The slot passes straight to the next in line, so a newcomer cannot take it first.
      const next = this.#line.shift();
      if (next) next();
      else this.#held -= 1;
    };
  }

  #slot(): Promise<boolean> {
    if (this.#held < this.size) {
      this.#held += 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#line.splice(this.#line.indexOf(grant), 1);
        resolve(false);
      }, this.maxWaitMs);
      this.#line.push(grant);
    });
  }
}
