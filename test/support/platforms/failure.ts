// What the OAuth apps' tests share: the failure a call ends in, and how far off an expiry is.
import type { PublicationError } from '../../../core/connectors/connector.ts';

/** The failure `promise` ends in (the test fails if it succeeds). */
export const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err as PublicationError,
  );

/** How many days from now `iso` is. */
export const inDays = (iso: string | undefined) =>
  (Date.parse(iso ?? '') - Date.now()) / 86_400_000;
