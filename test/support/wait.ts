// Polls until a condition holds (for work done by a worker in the background). The timeout
// only bounds a hang: it is generous, since a loaded machine may be slow, and a test asserts
// what was recorded (times stored, jobs' run_at), never how soon its wait ended. `detail`
// adds to a timeout's message what the test last saw, so a failure in CI says what stalled.
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  {
    timeoutMs = 30_000,
    everyMs = 50,
    what = 'condition',
    detail,
  }: { timeoutMs?: number; everyMs?: number; what?: string; detail?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${detail ? `; ${detail()}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Waits, if needed, until at least `marginMs` remain in the current minute: request-budget
 * windows are whole minutes, and a test counting requests must not straddle two.
 */
export async function awayFromMinuteBoundary(marginMs = 5_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}
