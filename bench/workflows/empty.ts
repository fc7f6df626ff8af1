import { proxySinks, type Sinks } from '@temporalio/workflow';

/** The bench's in-process counter of finished workflows (a sink: no call to the server). */
export interface CeilingSinks extends Sinks {
  bench: { finished(): void };
}

const { bench } = proxySinks<CeilingSinks>();

/** A workflow that does nothing: what one workflow costs the Temporal server and a worker, and no more. */
export async function emptyWorkflow(): Promise<void> {
  bench.finished();
}
