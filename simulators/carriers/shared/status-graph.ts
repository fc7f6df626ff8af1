/**
 * A carrier's statuses as data: from each status, the ones it may move to, the usual next step
 * first. A status with nowhere to go is final.
 */
export class StatusGraph<Status extends string | number> {
  private readonly edges: ReadonlyMap<Status, readonly Status[]>;

  constructor(edges: Iterable<readonly [Status, readonly Status[]]>) {
    this.edges = new Map(edges);
  }

  nextStep(from: Status): Status | undefined {
    return this.edges.get(from)?.[0];
  }

  allows(from: Status, to: Status): boolean {
    return this.edges.get(from)?.includes(to) ?? false;
  }

  isFinal(status: Status): boolean {
    return (this.edges.get(status) ?? []).length === 0;
  }

  /** Whether `to` lies ahead of `from` along some path (a jump reports only the status reached). */
  canReach(from: Status, to: Status): boolean {
    const seen = new Set<Status>([from]);
    const frontier: Status[] = [from];
    for (let status = frontier.shift(); status !== undefined; status = frontier.shift()) {
      for (const next of this.edges.get(status) ?? []) {
        if (next === to) return true;
        if (!seen.has(next)) {
          seen.add(next);
          frontier.push(next);
        }
      }
    }
    return false;
  }
}
