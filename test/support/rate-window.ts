/**
 * Waits for the start of a fresh one-minute rate window (windows start on the minute) when fewer than
 * `neededSeconds` of the current one are left, so a test's requests all count in one window.
 */
export async function freshWindow(neededSeconds: number): Promise<void> {
  const secondsLeft = 60 - new Date().getUTCSeconds();
  if (secondsLeft < neededSeconds) await new Promise((resolve) => setTimeout(resolve, secondsLeft * 1000 + 200));
}
