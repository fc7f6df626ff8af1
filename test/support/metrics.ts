import { register } from 'prom-client';

/** One sample of a Prometheus text exposition: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of an exposition (comments and blank lines skipped). */
export function parseExposition(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = line.startsWith('#') ? null : SAMPLE.exec(line);
    if (!match) return [];
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(LABEL)].map(([, name, value]) => [name!, value!.replace(/\\(.)/g, '$1')]),
    );
    return [{ name: match[1]!, labels, value: Number(match[3]) }];
  });
}

/** The metric families an exposition declares (`# TYPE name …`), with or without samples yet. */
export function declaredFamilies(text: string): Set<string> {
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]!));
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function sumOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([label, value]) => sample.labels[label] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** What this (test) process's registry holds now: the in-process API, worker and activities count here. */
export async function ownSamples(): Promise<Sample[]> {
  return parseExposition(await register.metrics());
}

/** How much `name{labels}` of this process's registry grows while `work` runs. */
export async function growthOf(name: string, labels: Record<string, string>, work: () => Promise<unknown>): Promise<number> {
  const before = sumOf(await ownSamples(), name, labels);
  await work();
  return sumOf(await ownSamples(), name, labels) - before;
}
