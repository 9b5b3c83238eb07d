// Hostile answers from X (bad JSON, missing or made-up ids, huge bodies, any JSON at all) to
// the calls of a publication, through the real publication job: a post is never recorded
// `published` unless with the id of a post X really made, and an answer lost after X made the
// post is read back to that post rather than posted twice.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import type { Injected } from '../support/platforms/x.ts';
import { useXHarness, useXStandIn } from '../support/platforms/xHarness.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const KEY = credentialsKey(Buffer.alloc(32, 5).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
const x = useXStandIn();
const h = useXHarness(server, x, KEY);
let brand: { key: string };

beforeAll(async () => {
  brand = await h.connectBrand();
});

const ok = (body: string | Buffer, status = 200): Injected['answer'] => ({ status, body });
/** Answers a 2xx may carry that are not what X documents. */
const HOSTILE: [string, Injected['answer']][] = [
  ['not JSON', ok('<html>Over capacity</html>')],
  ['cut-off JSON', ok('{"data":{"id":"18600')],
  ['no id', ok('{"data":{"text":"hello"}}', 201)],
  ['an empty id', ok('{"data":{"id":""}}', 201)],
  ['"undefined" as the id', ok('{"data":{"id":"undefined"}}', 201)],
  ['a numeric id', ok('{"data":{"id":1860000000000000001}}', 201)],
  ['an id that is not a number', ok('{"data":{"id":"../../admin"}}', 201)],
  ['null', ok('null')],
  ['a 2 MB body', ok(`{"data":{"id":"1","pad":"${'x'.repeat(2 * 1024 * 1024)}"}}`)],
];

let n = 0;
/** A post of its own text (X refuses a duplicate), published by one run of the job. */
async function publishWith(injected: Injected, extra: Record<string, unknown> = {}) {
  const post = await h.schedule(brand.key, { body: `Fuzzed answer ${++n}`, ...extra });
  x.inject(injected);
  const result = await h.runJob(post).catch((e: Error) => e);
  const row = await h.row(post.id);
  const made = x.tweets.filter((t) => t.sent === `Fuzzed answer ${n}`);
  return { result, row, made };
}

describe('a hostile answer to POST /2/tweets', () => {
  for (const [what, answer] of HOSTILE) {
    it(`${what}, with no post made: fails, never published`, async () => {
      const { result, row, made } = await publishWith({ line: 'POST /2/tweets', answer });
      expect(result).toBe('failed');
      expect(made).toEqual([]);
      expect(row).toMatchObject({ status: 'failed', external_post_id: null, published_at: null });
      expect(row.error).toMatch(/^X answered/);
    });

    it(`${what}, after X made the post: the post read back is the one recorded`, async () => {
      const { result, row, made } = await publishWith({
        line: 'POST /2/tweets',
        when: 'after',
        answer,
      });
      expect(made).toHaveLength(1);
      expect(result).toBe('published');
      expect(row.external_post_id).toBe(made[0]!.id);
    });
  }

  it('any JSON at all is never published under an id X did not make', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue(),
        fc.constantFrom<'before' | 'after'>('before', 'after'),
        async (body, when) => {
          const answer = ok(JSON.stringify(body), 200);
          const { row, made } = await publishWith({ line: 'POST /2/tweets', when, answer });
          if (row.status === 'published')
            expect(made.map((t) => t.id)).toContain(row.external_post_id);
          else expect(row.external_post_id).toBeNull();
          expect(made.length).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 25 },
    );
  }, 60_000);
});

describe('hostile answers before the post', () => {
  it('a media upload without an id fails before anything is posted', async () => {
    const asset = await uploadImage(
      server,
      brand.key,
      await solidPng({ width: 4, height: 4 }, '#333'),
    );
    const { result, row, made } = await publishWith(
      { line: 'POST /2/media/upload', answer: ok('{"data":{"media_key":"3_1"}}') },
      { asset_ids: [asset.id] },
    );
    expect(result).toBe('failed');
    expect(made).toEqual([]);
    expect(row.error).toMatch(
      /^X answered 200 to POST \/2\/media\/upload without the JSON it documents \(data\.id: /,
    );
  });

  it('a timeline that is not JSON, on a retry, fails rather than posting blind', async () => {
    const post = await h.schedule(brand.key, { body: 'Blind retry' });
    x.inject({ line: 'POST /2/tweets', when: 'after', answer: 'drop' });
    await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true });
    x.inject({ line: `GET /2/users/${x.user.id}/tweets`, answer: ok('{"data": [') });
    expect(await h.runJob(post, 2)).toBe('failed');
    expect(x.tweets.filter((t) => t.sent === 'Blind retry')).toHaveLength(1);
    expect((await h.row(post.id)).external_post_id).toBeNull();
  });
});

describe('a hostile timeline read back', () => {
  it('an id that is not an X id is never recorded as the post', async () => {
    const post = await h.schedule(brand.key, { body: 'Read back strictly' });
    x.inject({ line: 'POST /2/tweets', answer: ok('{"title":"Service Unavailable"}', 503) });
    await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true });
    const forged = { data: [{ id: 'javascript:alert(1)', text: 'Read back strictly' }] };
    x.inject({ line: `GET /2/users/${x.user.id}/tweets`, answer: ok(JSON.stringify(forged)) });
    expect(await h.runJob(post, 2)).toBe('published');
    const made = x.tweets.filter((t) => t.sent === 'Read back strictly');
    expect(made).toHaveLength(1);
    const row = await h.row(post.id);
    expect(row.external_post_id).toBe(made[0]!.id);
    expect(row.permalink_url).toBe(`https://x.com/brand/status/${made[0]!.id}`);
  });

  it("after X's 403 duplicate, an id that is not an X id is never recorded", async () => {
    const post = await h.schedule(brand.key, { body: 'Duplicate read strictly' });
    x.inject({ line: 'POST /2/tweets', when: 'after', answer: 'drop' });
    await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true });
    const forged = { data: [{ id: '../../admin', text: 'Duplicate read strictly' }] };
    // The retry's first reading lags; X then refuses the post as a duplicate and the second
    // reading is forged: neither the forged id nor a new post is recorded.
    x.timelineLag = 1;
    x.inject({
      line: `GET /2/users/${x.user.id}/tweets`,
      skip: 1,
      answer: ok(JSON.stringify(forged)),
    });
    expect(await h.runJob(post, 2)).toBe('failed');
    expect(x.tweets.filter((t) => t.sent === 'Duplicate read strictly')).toHaveLength(1);
    expect((await h.row(post.id)).external_post_id).toBeNull();
  });
});

describe('an unreadable refresh answer', () => {
  it('fails the post with that failure, spending the refresh token once and posting nothing', async () => {
    // A connection whose access token has expired: the token layer refreshes before posting.
    const { key } = await h.connectBrand({ expires_at: new Date(Date.now() - 1000).toISOString() });
    const post = await h.schedule(key, { body: 'Token first' });
    const before = { ...x.refreshes };
    x.inject({ line: 'POST /2/oauth2/token', when: 'after', answer: ok('<html>oops</html>') });
    expect(await h.runJob(post)).toBe('failed');
    expect(x.refreshes).toEqual({ ok: before.ok + 1, reused: before.reused });
    expect(x.tweets.filter((t) => t.sent === 'Token first')).toEqual([]);
    expect((await h.row(post.id)).error).toMatch(
      /^X answered 200 to POST \/2\/oauth2\/token without the JSON it documents/,
    );
  });
});
