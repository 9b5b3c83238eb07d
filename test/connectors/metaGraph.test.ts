// Meta's Graph errors as the Threads (and later Instagram) connector maps them, from the
// error-handling and rate-limiting pages: throttles wait for the usage headers' reset, a dead
// token asks for a reconnect, a policy block and a duplicate are final and quote Meta.
import { describe, expect, it } from 'vitest';
import type { PlatformResponse } from '../../core/connectors/http.ts';
import { graphRefusal, usageResetAt } from '../../core/connectors/meta/graph.ts';

const answer = (
  status: number,
  error: Record<string, unknown>,
  headers: Record<string, string> = {},
): PlatformResponse => ({ status, headers, json: { error: { type: 'OAuthException', ...error } } });

describe('Graph refusals', () => {
  it.each([4, 17, 32, 341, 613])('code %i is a throttle, waited out until its reset', (code) => {
    const err = graphRefusal('Threads', answer(400, { code, message: 'Too many calls' }));
    expect(err.retryable).toBe(true);
    // Unsaid: Meta's rolling hour.
    const wait = err.retryAt!.getTime() - Date.now();
    expect(wait).toBeGreaterThan(59 * 60_000);
    expect(wait).toBeLessThanOrEqual(60 * 60_000);
    expect(err.message).toMatch(/^Threads answered 400 \(code \d+\): Too many calls/);
  });

  it("takes the reset from X-Business-Use-Case-Usage's estimated_time_to_regain_access", () => {
    const usage = JSON.stringify({
      '1234': [
        { type: 'pages', call_count: 100, estimated_time_to_regain_access: 3 },
        { type: 'instagram', call_count: 95, estimated_time_to_regain_access: 12 },
      ],
    });
    const at = usageResetAt({ 'x-business-use-case-usage': usage }, 0);
    expect(at?.getTime()).toBe(12 * 60_000);
    expect(usageResetAt({ 'x-business-use-case-usage': 'not json' })).toBeUndefined();
    expect(usageResetAt({})).toBeUndefined();
  });

  it('190 asks for a reconnect', () => {
    const err = graphRefusal(
      'Threads',
      answer(401, { code: 190, error_subcode: 460, message: 'Session invalidated' }),
    );
    expect(err).toMatchObject({ retryable: false, reconnect: true, code: 190, subcode: 460 });
  });

  it('368 and 506 are final and quote Meta', () => {
    const blocked = graphRefusal(
      'Threads',
      answer(400, {
        code: 368,
        message: 'It looks like you were misusing this feature',
        error_user_msg: 'You cannot post this right now.',
      }),
    );
    expect(blocked.retryable).toBe(false);
    expect(blocked.message).toBe(
      'Threads blocked the post under its policies: It looks like you were misusing this feature: You cannot post this right now.',
    );
    const duplicate = graphRefusal(
      'Threads',
      answer(400, { code: 506, message: 'Duplicate status message' }),
    );
    expect(duplicate.retryable).toBe(false);
    expect(duplicate.message).toMatch(
      /duplicate of one the account already has: Duplicate status message$/,
    );
  });

  it('a 5xx and a transient error are retried; a bad parameter is final', () => {
    expect(graphRefusal('Threads', answer(500, { code: 1, message: 'Unknown' })).retryable).toBe(
      true,
    );
    expect(graphRefusal('Threads', answer(400, { code: 2, message: 'Service' })).retryable).toBe(
      true,
    );
    expect(
      graphRefusal('Threads', answer(400, { code: 9007, is_transient: true, message: 'Later' }))
        .retryable,
    ).toBe(true);
    expect(
      graphRefusal('Threads', answer(400, { code: 100, message: 'Invalid parameter' })),
    ).toMatchObject({
      retryable: false,
      reconnect: false,
    });
  });

  it('a body that is not a Graph error is refused by its status, without a reason to quote', () => {
    const err = graphRefusal('Threads', { status: 400, headers: {}, json: undefined });
    expect(err.message).toBe('Threads answered 400: no reason given');
    expect(err.retryable).toBe(false);
  });
});
