// Reading mentions and replies from Bluesky notifications against an AppView stand-in on
// loopback: the AppView orders notifications by the earlier of a post's claimed and indexed
// times and indexes accounts side by side, so a reply can appear behind a mention a reading
// already passed. The next reading still finds it; it stops paging a while before the cursor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blueskyEngagement, LOOK_BACK_MS } from '../../core/connectors/bluesky/engagement.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { startJsonServer } from '../support/jsonServer.ts';

/** What the stand-in lists, newest first, in pages of two; and the cursors asked for. */
let listed: Record<string, unknown>[] = [];
const asked: (string | null)[] = [];
let appView: Awaited<ReturnType<typeof startJsonServer>>;

beforeAll(async () => {
  appView = await startJsonServer((_req, reply, url) => {
    if (url.pathname !== '/xrpc/app.bsky.notification.listNotifications')
      return reply(404, { error: 'MethodNotImplemented' });
    const from = Number(url.searchParams.get('cursor') ?? 0);
    asked.push(url.searchParams.get('cursor'));
    const next = from + 2 < listed.length ? String(from + 2) : undefined;
    reply(200, { notifications: listed.slice(from, from + 2), cursor: next });
  });
});
afterAll(() => appView.close());

const connector = blueskyEngagement({
  outbound: outboundPolicy({ outboundAllowlist: ['127.0.0.0/8'], outboundAllowHttp: true }),
});
const access = () => ({
  handle: 'brand.test',
  credentials: {
    identifier: 'brand.test',
    app_password: 'app-password',
    service: appView.url,
    session: {
      did: 'did:plc:brand',
      handle: 'brand.test',
      accessJwt: 'access',
      refreshJwt: 'refresh',
      pds: appView.url,
    },
  },
  saveCredentials: async () => {},
});

const T0 = Date.parse('2026-11-28T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const notification = (rkey: string, reason: 'mention' | 'reply', time: number) => ({
  uri: `at://did:plc:fan/app.bsky.feed.post/${rkey}`,
  cid: `bafy${rkey}`,
  author: { did: 'did:plc:fan', handle: 'fan.test' },
  reason,
  record: { text: `post ${rkey}`, createdAt: iso(time) },
  indexedAt: iso(time),
});

describe('Bluesky inbound', () => {
  it('reads a reply that lands behind a mention the last reading passed', async () => {
    const mention = notification('mention1', 'mention', T0);
    listed = [mention];
    const first = await connector.inbound(access(), null, 800);
    expect(first.items.map((i) => i.id)).toEqual([mention.uri]);
    expect(first.cursor).toBe(iso(T0));

    // Indexed later, listed by its earlier claimed time: behind the cursor.
    const reply = notification('reply1', 'reply', T0 - 2_000);
    listed = [mention, reply];
    const second = await connector.inbound(access(), first.cursor, 800);
    expect(second.items.map((i) => i.id)).toContain(reply.uri);
    expect(second.cursor).toBe(iso(T0));
  });

  it('pages back to LOOK_BACK_MS before the cursor and no further', async () => {
    listed = [
      notification('new', 'mention', T0 + 60_000),
      notification('cursor', 'mention', T0),
      notification('late', 'reply', T0 - LOOK_BACK_MS + 1_000),
      notification('older', 'reply', T0 - LOOK_BACK_MS - 1_000),
      notification('oldest1', 'reply', T0 - 2 * LOOK_BACK_MS),
      notification('oldest2', 'reply', T0 - 3 * LOOK_BACK_MS),
    ];
    asked.length = 0;
    const read = await connector.inbound(access(), iso(T0), 800);
    expect(read.items.map((i) => i.id.split('/').pop())).toEqual(['late', 'cursor', 'new']);
    expect(read.cursor).toBe(iso(T0 + 60_000));
    // The second page reached the stop: the third was never asked for.
    expect(asked).toEqual([null, '2']);
  });
});
