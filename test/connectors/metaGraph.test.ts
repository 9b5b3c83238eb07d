// Meta's Graph errors as the Threads, Instagram and Facebook connectors map them (one layer,
// core/connectors/meta/graph.ts), from the error-handling and rate-limiting pages and
// Instagram's error codes: throttles (Business Use Case limits among them) wait for the usage
// headers' reset, a dead token or a missing permission asks for a reconnect, a policy block
// and a duplicate are final and quote Meta, a container not ready yet is tried again.
import { describe, expect, it } from 'vitest';
import type { PlatformResponse } from '../../core/connectors/http.ts';
import {
  graphErrorOf,
  graphRefusal,
  notReadyYet,
  usageResetAt,
} from '../../core/connectors/meta/graphErrors.ts';

const answer = (
  status: number,
  error: Record<string, unknown>,
  headers: Record<string, string> = {},
): PlatformResponse => ({ status, headers, json: { error: { type: 'OAuthException', ...error } } });

describe('Graph refusals', () => {
  it.each([4, 17, 32, 341, 613, 80001, 80002])(
    'code %i is a throttle, waited out until its reset',
    (code) => {
      const err = graphRefusal('Threads', answer(400, { code, message: 'Too many calls' }));
      expect(err.retryable).toBe(true);
      // Unsaid: Meta's rolling hour.
      const wait = err.retryAt!.getTime() - Date.now();
      expect(wait).toBeGreaterThan(59 * 60_000);
      expect(wait).toBeLessThanOrEqual(60 * 60_000);
      expect(err.message).toMatch(/^Threads answered 400 \(code \d+\): Too many calls/);
    },
  );

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

  it("Instagram's spent publishing limit (2207042) waits, publishing nothing", () => {
    const err = graphRefusal(
      'Instagram',
      answer(400, {
        code: 9,
        error_subcode: 2207042,
        message: 'Application request limit reached',
      }),
    );
    expect(err).toMatchObject({ retryable: true, reconnect: false, subcode: 2207042 });
    expect(err.retryAt!.getTime() - Date.now()).toBeGreaterThan(59 * 60_000);
  });

  it('102 (a session gone) and a bare 401 ask for a reconnect, as 190 does', () => {
    expect(
      graphRefusal('Facebook', answer(400, { code: 102, message: 'Session key invalid' })),
    ).toMatchObject({ retryable: false, reconnect: true, code: 102 });
    expect(graphRefusal('Threads', { status: 401, headers: {}, json: undefined })).toMatchObject({
      retryable: false,
      reconnect: true,
    });
  });

  it.each([10, 200, 230, 299])(
    'permission error %i asks for a reconnect granting the permission',
    (code) => {
      const err = graphRefusal(
        'Facebook',
        answer(403, { code, message: `(#${code}) Requires pages_manage_posts permission` }),
      );
      expect(err).toMatchObject({ retryable: false, reconnect: true, code });
      expect(err.message).toMatch(/Requires pages_manage_posts permission Reconnect the account/);
    },
  );

  it('codes next to the permission range are not permission errors', () => {
    for (const code of [3, 9, 199, 300])
      expect(graphRefusal('Facebook', answer(400, { code, message: 'No' })).reconnect).toBe(false);
  });
});

describe("Meta's reason", () => {
  it('reads error_user_title between the message and error_user_msg, each once', () => {
    const e = graphErrorOf(
      answer(400, {
        code: 9004,
        error_subcode: 2207052,
        message: 'Only photo or video can be accepted as media type.',
        error_user_title: "Media download has failed. The media URI doesn't meet our requirements.",
        error_user_msg: 'The media could not be fetched from this URI: https://x.test/a.png.',
      }),
    );
    expect(e?.reason).toBe(
      "Only photo or video can be accepted as media type. Media download has failed. The media URI doesn't meet our requirements. The media could not be fetched from this URI: https://x.test/a.png.",
    );
    expect(
      graphErrorOf(answer(400, { message: 'Duplicate', error_user_title: 'Duplicate' }))?.reason,
    ).toBe('Duplicate');
    expect(
      graphErrorOf(answer(400, { message: 'Duplicate status message', error_user_title: 'Dup' }))
        ?.reason,
    ).toBe('Duplicate status message: Dup');
  });
});

describe('a container not ready yet', () => {
  it("is Threads' code 24 (4279009) and Instagram's 9007 (2207027), and nothing else", () => {
    const refusal = (code: number, error_subcode?: number) =>
      graphRefusal('Meta', answer(400, { code, error_subcode, message: 'Not ready' }));
    expect(notReadyYet(refusal(24, 4279009))).toBe(true);
    expect(notReadyYet(refusal(9007, 2207027))).toBe(true);
    expect(notReadyYet(refusal(9007, 2207032))).toBe(false);
    expect(notReadyYet(refusal(24))).toBe(false);
    expect(notReadyYet(new Error('Not ready'))).toBe(false);
  });
});
