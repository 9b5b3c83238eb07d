// Polls until a condition holds (for work done by a worker in the background). The timeout
// only bounds a hang: it is generous, since a loaded machine may be slow, and a test asserts
// what was recorded (times stored, jobs' run_at), never how soon its wait ended. `detail`
// adds to a timeout's message what the test last saw, so a failure in CI says what stalled.
// followJob is the same wait for a job's record, read through whichever surface the test uses.
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

/** Whether a job (or task) record has ended: succeeded or failed. */
export const jobEnded = (job: { status: string }) =>
  job.status === 'succeeded' || job.status === 'failed';

/**
 * Follows a job's record until it ends (or `until` holds): `read` asks for the record, given
 * how long it may wait on the server for a change (job_status's wait_s; a read that cannot wait
 * ignores it). The timeout only bounds a hang, and its message shows the record last seen and
 * `detail` (what else would say why it stalled).
 */
export async function followJob<J extends { status: string }>(
  read: (waitS: number) => Promise<J>,
  {
    timeoutMs = 120_000,
    what = 'the job',
    until = jobEnded,
    detail,
  }: {
    timeoutMs?: number;
    what?: string;
    until?: (job: J) => unknown;
    detail?: () => Promise<string> | string;
  } = {},
): Promise<J> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    const job = await read(Math.max(0, Math.min(20, Math.floor(left / 1000))));
    if (until(job)) return job;
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms following ${what}; last seen ${JSON.stringify(job)}` +
          (detail ? `; ${await detail()}` : ''),
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}
