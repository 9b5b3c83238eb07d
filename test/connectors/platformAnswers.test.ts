// What a connector does with answers that are not what the platform documents, and with
// addresses the outbound guard refuses: the post fails at once with a reason (no retry, no
// `published` without an id), against a Mastodon instance and a Bluesky PDS on loopback
// that answer what each test tells them to.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey, sealCredentials } from '../../core/connections/credentials.ts';
import { upsertConnectedAccount } from '../../core/connections/db.ts';
import { blueskyConnector } from '../../core/connectors/bluesky/index.ts';
import { type Connectors, PublicationError } from '../../core/connectors/connector.ts';
import { mastodonConnector } from '../../core/connectors/mastodon.ts';
import type { Platform } from '../../core/kernel/platforms.ts';
import { type OutboundPolicy, outboundPolicy } from '../../core/outbound/guard.ts';
import { publishScheduledPost } from '../../core/posts/publication.ts';
import { createPost } from '../../core/posts/service.ts';
import { fsStorage } from '../../core/storage/fs.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { makeAccount } from '../support/server.ts';

const KEY = credentialsKey(Buffer.alloc(32, 3).toString('base64'));
/** Loopback and http allowed, as a test platform needs. */
const OPEN = outboundPolicy({ outboundAllowlist: ['127.0.0.0/8'], outboundAllowHttp: true });

type Answer = { status: number; body: string };
/** What the platform answers to a request line, e.g. "POST /api/v1/statuses". */
let answers: Record<string, Answer> = {};
const received: string[] = [];
const json = (body: unknown, status = 200): Answer => ({ status, body: JSON.stringify(body) });

let db: TestDatabase;
let platform: Server;
let base: string;
let dataDir: string;

beforeAll(async () => {
  db = await freshDatabase();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'sps-answers-'));
  platform = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      const line = `${req.method} ${req.url?.split('?')[0]}`;
      received.push(line);
      const answer = answers[line] ?? json({ error: 'Record not found' }, 404);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((r) => platform.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => platform.close(r));
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Mastodon's own answers for everything but what a test changes. */
const mastodonAnswers = (): Record<string, Answer> => ({
  'GET /api/v2/instance': json({ configuration: { statuses: { max_characters: 500 } } }),
  'POST /api/v1/statuses': json({ id: '110', url: `${base}/@brand/110` }),
});
const blueskyAnswers = (): Record<string, Answer> => ({
  'POST /xrpc/com.atproto.server.createSession': json({
    did: 'did:plc:brand',
    handle: 'brand.test',
    accessJwt: 'access',
    refreshJwt: 'refresh',
    didDoc: { service: [{ id: '#atproto_pds', serviceEndpoint: base }] },
  }),
  'POST /xrpc/com.atproto.repo.putRecord': json({
    uri: 'at://did:plc:brand/app.bsky.feed.post/3kabc',
    cid: 'bafyrecord',
  }),
});

/**
 * A post of a brand connected to the test platform, due in an hour, published now by one
 * direct run of the publication job (attempt 1 of 5) through connectors with `policy`.
 */
async function publishOnce(
  platformName: Extract<Platform, 'mastodon' | 'bluesky'>,
  opts: { policy?: OutboundPolicy; instance?: string } = {},
) {
  const acct = await makeAccount(db.pool);
  const credentials =
    platformName === 'mastodon'
      ? { instance: opts.instance ?? base, access_token: 'token' }
      : { service: base, identifier: 'brand.test', app_password: 'app-pass' };
  const account = await upsertConnectedAccount(db.pool, {
    accountId: acct.accountId,
    brandId: acct.brandId,
    platform: platformName,
    handle: '@brand',
    credentials: sealCredentials(KEY, credentials),
  });
  const at = new Date(Date.now() + 3_600_000).toISOString();
  const post = await createPost(
    db.pool,
    {
      accountId: acct.accountId,
      selectedBrandId: acct.brandId,
      credential: { kind: 'api_key', id: '0' },
    },
    { platform: platformName, body: 'Hello there', schedule_at: at },
  );
  const deps = { outbound: opts.policy ?? OPEN, storage: fsStorage(dataDir) };
  const connectors: Connectors = {
    mastodon: mastodonConnector(deps),
    bluesky: blueskyConnector(deps),
  };
  received.length = 0;
  const result = await publishScheduledPost(
    db.pool,
    { connectors, credentialsKey: KEY },
    { post_id: post.id, scheduled_for: at, attempts_before: 0 },
    { number: 1, max: 5, signal: new AbortController().signal },
  );
  const row = (await db.pool.query('select * from posts where id = $1', [post.id])).rows[0];
  const events = (
    await db.pool.query('select type from events where post_id = $1 order by id', [post.id])
  ).rows.map((e) => e.type);
  const connected = (
    await db.pool.query('select status, last_error from connected_accounts where id = $1', [
      account.id,
    ])
  ).rows[0];
  return { result, row, events, connected };
}

describe('a 2xx answer without the JSON the platform documents', () => {
  it('Mastodon: a status answered with HTML fails the post, saying so', async () => {
    answers = {
      ...mastodonAnswers(),
      'POST /api/v1/statuses': { status: 200, body: '<html>Welcome to our portal</html>' },
    };
    const { result, row, events } = await publishOnce('mastodon');
    expect(result).toBe('failed');
    expect(row).toMatchObject({ status: 'failed', external_post_id: null, published_at: null });
    expect(row.error).toBe(
      'Mastodon answered 200 to POST /api/v1/statuses without the JSON it documents (the body ' +
        'is not JSON); the post may exist there all the same: check the account before ' +
        'scheduling it again.',
    );
    expect(events).toEqual(['post.failed']);
  });

  it('Mastodon: a status without an id is not published as "undefined"', async () => {
    answers = { ...mastodonAnswers(), 'POST /api/v1/statuses': json({ url: null }) };
    const { result, row } = await publishOnce('mastodon');
    expect(result).toBe('failed');
    expect(row.external_post_id).toBeNull();
    expect(row.error).toMatch(
      /^Mastodon answered 200 to POST \/api\/v1\/statuses without the JSON it documents \(id: /,
    );
  });

  it('Mastodon: an instance description that is not JSON fails before any status is sent', async () => {
    answers = {
      ...mastodonAnswers(),
      'GET /api/v2/instance': { status: 200, body: 'not json' },
    };
    const { result, row } = await publishOnce('mastodon');
    expect(result).toBe('failed');
    expect(row.error).toMatch(/^Mastodon answered 200 to GET \/api\/v2\/instance without the JSON/);
    expect(received).toEqual(['GET /api/v2/instance']);
  });

  it('Bluesky: a record written without its uri fails the post, naming the field', async () => {
    answers = {
      ...blueskyAnswers(),
      'POST /xrpc/com.atproto.repo.putRecord': json({ cid: 'bafyrecord' }),
    };
    const { result, row } = await publishOnce('bluesky');
    expect(result).toBe('failed');
    expect(row.external_post_id).toBeNull();
    expect(row.error).toMatch(
      /^Bluesky answered 200 to com\.atproto\.repo\.putRecord without the JSON it documents \(uri: .*\); the post may exist there/,
    );
  });

  it('Bluesky: a session answer without tokens fails before any record is written', async () => {
    answers = {
      ...blueskyAnswers(),
      'POST /xrpc/com.atproto.server.createSession': json({ did: 'did:plc:brand' }),
    };
    const { result, row } = await publishOnce('bluesky');
    expect(result).toBe('failed');
    expect(row.error).toMatch(
      /^Bluesky answered 200 to com\.atproto\.server\.createSession without the JSON it documents \(handle: /,
    );
    expect(received).toEqual(['POST /xrpc/com.atproto.server.createSession']);
  });

  it('the documented answers still publish, with the platform ids', async () => {
    answers = { ...mastodonAnswers(), ...blueskyAnswers() };
    const mastodon = await publishOnce('mastodon');
    expect(mastodon.row).toMatchObject({ status: 'published', external_post_id: '110' });
    const bluesky = await publishOnce('bluesky');
    expect(bluesky.row).toMatchObject({
      status: 'published',
      external_post_id: 'at://did:plc:brand/app.bsky.feed.post/3kabc',
    });
  });
});

describe('a platform address the outbound guard refuses', () => {
  it('fails at once (not retried) and names OUTBOUND_ALLOW_HTTP for an http: instance', async () => {
    answers = mastodonAnswers();
    const { result, row, connected } = await publishOnce('mastodon', {
      policy: { ...OPEN, allowHttp: false },
    });
    expect(result).toBe('failed');
    expect(row.error).toMatch(
      /^Mastodon was not contacted: the outbound guard refused it \(.*https.*\); an operator allows http: addresses with OUTBOUND_ALLOW_HTTP=true\.$/,
    );
    expect(received).toEqual([]);
    // The account is not to blame: it keeps working once the operator allows the address.
    expect(connected.status).toBe('active');
  });

  it('a name that does not resolve reads as a private address, and is retried', async () => {
    answers = mastodonAnswers();
    // Longer than a DNS label may be: the resolver refuses it without sending a query.
    const unknown = `${'n'.repeat(64)}.example`;
    const policy = outboundPolicy({ outboundAllowlist: [], outboundAllowHttp: true });
    const err = await publishOnce('mastodon', { policy, instance: `http://${unknown}:1` }).then(
      () => undefined,
      (e: PublicationError) => e,
    );
    // DNS may come back: the job runs again.
    expect(err).toBeInstanceOf(PublicationError);
    expect(err?.retryable).toBe(true);
    const refused = await publishOnce('mastodon', { policy, instance: 'http://localhost:1' });
    expect(refused.result).toBe('failed');
    // The same words: a post's error does not tell a name inside the network from no name.
    expect(err?.message.replaceAll(unknown, '{host}')).toBe(
      refused.row.error.replaceAll('localhost', '{host}'),
    );
    expect(received).toEqual([]);
  });

  it('fails at once and names OUTBOUND_ALLOWLIST for a private address', async () => {
    answers = blueskyAnswers();
    const { result, row } = await publishOnce('bluesky', {
      policy: outboundPolicy({ outboundAllowlist: [], outboundAllowHttp: true }),
    });
    expect(result).toBe('failed');
    expect(row.error).toMatch(
      /^Bluesky was not contacted: the outbound guard refused it \(.*127\.0\.0\.1.*\); an operator allows a private address by adding it to OUTBOUND_ALLOWLIST/,
    );
    expect(received).toEqual([]);
  });
});
