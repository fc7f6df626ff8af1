/** At most `size` holders at once, and no queue: whoever finds every slot taken is turned away. */
export class ConcurrencyLimit {
  #held = 0;

  constructor(readonly size: number) {}

  /** A slot's release function (calling it twice is harmless), or undefined when all are taken. */
  tryAcquire(): (() => void) | undefined {
    if (this.#held >= this.size) return undefined;
    this.#held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held -= 1;
    };
  }
}
