// The one read-back rule of the connectors that take no idempotency key (Threads, Instagram,
// Facebook, X): the post taken as this publication's is the only one with its text made since
// the publish call less the clocks' margin; several that cannot be told apart fail for good.
import { describe, expect, it } from 'vitest';
import { PublicationError } from '../../core/connectors/connector.ts';
import { pickPublished } from '../../core/connectors/readings.ts';

const SINCE = Date.parse('2026-06-01T12:00:00.400Z');
const want = {
  platform: 'Threads',
  text: 'Hello  world',
  since: SINCE,
  marginMs: 120_000,
  comparable: (t: string) => t.replace(/\s+/g, ' ').trim(),
};
const post = (id: string, text: string | undefined, offsetMs: number) => ({
  id,
  text,
  at: SINCE + offsetMs,
});

describe('pickPublished', () => {
  it('answers none when no post has the text within the margin', () => {
    expect(pickPublished([], want)).toBeUndefined();
    expect(
      pickPublished(
        [post('1', 'Other', 1_000), post('2', 'Hello world', -121_000), post('3', undefined, 0)],
        want,
      ),
    ).toBeUndefined();
  });

  it('takes the one post with the text, within the margin for clocks', () => {
    expect(pickPublished([post('1', 'Hello\nworld', -60_000)], want)?.id).toBe('1');
  });

  it('of two, takes the one made from the remembered second on (times are whole seconds)', () => {
    const older = post('1', 'Hello world', -90_000);
    const ours = post('2', 'Hello world', -400);
    expect(pickPublished([ours, older], want)?.id).toBe('2');
  });

  it('leaves out a post whose time is not one', () => {
    expect(pickPublished([{ id: '1', text: 'Hello world', at: Number.NaN }], want)).toBeUndefined();
  });

  it('fails for good, saying the post may exist, when two made since cannot be told apart', () => {
    const both = [post('1', 'Hello world', 1_000), post('2', 'Hello world', 2_000)];
    let thrown: unknown;
    try {
      pickPublished(both, want);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(PublicationError);
    expect((thrown as PublicationError).retryable).toBe(false);
    expect((thrown as Error).message).toMatch(
      /^Threads shows 2 posts with this text .*check the account/,
    );
  });
});
