/** Progress lines for the bootstrap: on stderr, one line when work starts and one when it ends. */
export function say(message: string): void {
  process.stderr.write(`${message}\n`);
}

export async function step<T>(label: string, work: () => Promise<T>): Promise<T> {
  say(`› ${label}…`);
  const started = Date.now();
  const result = await work();
  say(`✓ ${label} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return result;
}
