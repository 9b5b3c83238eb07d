// LinkedIn's answers treated as hostile: whatever POST /rest/posts answers (garbled JSON, no
// or a malformed x-restli-id, a huge body, a duplicate that names no post), the publication
// job never records the post as published without a post URN LinkedIn really gave; and what
// the media endpoints answer wrongly fails the post before anything is posted.
import type { ServerResponse } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { fuzzParams, hostileString } from '../support/arbitraries.ts';
import type { Override } from '../support/platforms/linkedin.ts';
import { useLinkedInHarness, useLinkedInStandIn } from '../support/platforms/linkedinHarness.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY = credentialsKey(Buffer.alloc(32, 9).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
const li = useLinkedInStandIn();
const h = useLinkedInHarness(server, li, KEY);

let n = 0;
/** A text post of a newly connected member, published by one run of the job (attempt 5 of 5). */
async function publishOnce(answer: Override) {
  const { key } = await h.connectMember();
  const post = await h.schedule(key, { body: `Hostile answer ${++n}` });
  li.overridePosts([answer], { create: true });
  // The last attempt: a retryable failure is recorded as a failure, not thrown for a retry.
  const result = await h.runJob(post, 5);
  return { result, row: await h.row(post.id) };
}

const answer =
  (status: number, body: string, headers: Record<string, string> = {}): Override =>
  (res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);

const VALID_URN = /^urn:li:(share|ugcPost):\d+$/;

describe('hostile answers to POST /rest/posts', () => {
  it('a 201 without x-restli-id fails the post, saying it may exist', async () => {
    const { result, row } = await publishOnce(answer(201, ''));
    expect(result).toBe('failed');
    expect(row).toMatchObject({ status: 'failed', external_post_id: null, published_at: null });
    expect(row.error).toMatch(
      /without the post's URN in x-restli-id; the post may exist there all the same/,
    );
  });

  it('a 201 with a body over a megabyte is refused, not parsed', async () => {
    const { row } = await publishOnce(
      answer(201, JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }), {
        'x-restli-id': 'urn:li:share:1',
      }),
    );
    expect(row).toMatchObject({ status: 'failed', external_post_id: null });
    expect(row.error).toMatch(/answered with more than 1 MB/);
  });

  it('a DUPLICATE_POST that names no post fails rather than guessing', async () => {
    const { row } = await publishOnce(
      answer(
        422,
        JSON.stringify({
          status: 422,
          message: 'Content is a duplicate of something',
          errorDetails: { inputErrors: [{ code: 'DUPLICATE_POST' }] },
        }),
      ),
    );
    expect(row).toMatchObject({ status: 'failed', external_post_id: null });
    expect(row.error).toBe(
      'LinkedIn already has this text, posted before this publication: change the text to post it again.',
    );
  });

  it('another 422 is a final failure quoting LinkedIn', async () => {
    const { row } = await publishOnce(
      answer(422, JSON.stringify({ status: 422, message: '/commentary :: length exceeds 3000' })),
    );
    expect(row.error).toBe('LinkedIn answered 422: /commentary :: length exceeds 3000');
  });

  it('a sunset LinkedIn-Version (426) is a final failure quoting LinkedIn', async () => {
    const { row } = await publishOnce(
      answer(
        426,
        JSON.stringify({
          status: 426,
          code: 'NONEXISTENT_VERSION',
          message: 'Requested version 202401 is not active',
        }),
      ),
    );
    expect(row.error).toBe('LinkedIn answered 426: Requested version 202401 is not active');
  });

  it('fuzzed answers never mark a post published without a real post URN', async () => {
    const header = hostileString.filter(
      (s) => !VALID_URN.test(s) && !/[\r\n\0]/.test(s) && /^[\x20-\x7e]*$/.test(s),
    );
    const body = fc.oneof(
      hostileString,
      fc.constant('{"message":"ok"'),
      fc.constant(''),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      hostileString
        .filter((s) => !/^urn:li:(share|ugcPost):\d/.test(s))
        .map((s) =>
          JSON.stringify({
            status: 422,
            message: `Content is a duplicate of ${s}`,
            errorDetails: { inputErrors: [{ code: 'DUPLICATE_POST' }] },
          }),
        ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(200, 201, 202, 204, 400, 409, 422),
        body,
        fc.option(header, { nil: undefined }),
        async (status, text, restliId) => {
          const { row } = await publishOnce(
            answer(status, text, restliId === undefined ? {} : { 'x-restli-id': restliId }),
          );
          expect(row.status).toBe('failed');
          expect(row.external_post_id).toBeNull();
        },
      ),
      fuzzParams(25),
    );
  }, 120_000);
});
