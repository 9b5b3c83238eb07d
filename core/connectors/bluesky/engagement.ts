// Bluesky's side of engagement: mentions of and replies to the connected account
// from its notifications (app.bsky.notification.listNotifications, asked of its PDS, which
// serves them from the AppView, with each post's record), and replies written as records
// under a key derived from the suggestion with `swapRecord: null`, citing the post answered
// as parent and its thread's root: a retried send finds its record instead of a second one;
// likes, reposts and follows (the engagement inbox) are written the same way.

import { z } from 'zod';
import type { OutboundPolicy } from '../../outbound/guard.ts';
import type { ConnectedAccountAccess, Connector, InboundPost } from '../connector.ts';
import { PublicationError } from '../connector.ts';
import { documented } from '../http.ts';
import { claimedTime } from '../readings.ts';
import { facetsOf } from './facets.ts';
import {
  handleResolver,
  POST,
  permalinkOf,
  putOnce,
  replyRefOf,
  ThirdPartyPost,
} from './records.ts';
import { BlueskyClient, blueskyCredentials } from './session.ts';
import { deterministicTid } from './tid.ts';

const NOTIFICATIONS = 'app.bsky.notification.listNotifications';
/** Notifications a page (the method's maximum), and pages a reading asks at most. */
const PAGE = 100;
const MAX_PAGES = 10;

/** Every notification has its time; mentions and replies are read further. */
const Seen = z.object({ indexedAt: z.iso.datetime({ offset: true }) });
const Notification = z.object({ ...ThirdPartyPost, reason: z.enum(['mention', 'reply']) });
const Page = z.object({
  notifications: z.array(z.unknown()).max(PAGE * 2),
  cursor: z.string().max(500).nullish().catch(null),
});

const at = (iso: string) => Date.parse(iso);
/**
 * How far before the cursor a reading looks again. The AppView orders notifications by the
 * earlier of a post's claimed and indexed times, and indexes repositories side by side, so a
 * post can land behind one already read: a reply indexed after a later mention from another
 * account, or a post whose createdAt runs a few minutes early. Read again, a post is kept once.
 */
export const LOOK_BACK_MS = 15 * 60_000;

const ACT_COLLECTIONS = {
  like: 'app.bsky.feed.like',
  repost: 'app.bsky.feed.repost',
  follow: 'app.bsky.graph.follow',
} as const;

export function blueskyEngagement(deps: {
  outbound: OutboundPolicy;
  requestTimeoutMs?: number;
}): Required<Pick<Connector, 'inbound' | 'reply' | 'act'>> {
  const clientOf = (account: ConnectedAccountAccess) =>
    new BlueskyClient(
      deps.outbound,
      blueskyCredentials(account.credentials),
      (session) => account.saveCredentials({ ...account.credentials, session }),
      deps.requestTimeoutMs,
    );
  return {
    /**
     * Mentions and replies (the `reasons` asked for) since the cursor (the newest time an
     * earlier reading saw) less LOOK_BACK_MS, newest pages first until one reaches that time,
     * pages of 100 until `limit` are read (at most 10 pages); without a cursor, the newest page
     * only. More in that span (those read again among them) leaves the oldest unread, and a
     * post whose time falls more than LOOK_BACK_MS behind the cursor is not read. The
     * account's own are left out.
     */
    async inbound(account, cursor, limit) {
      const client = clientOf(account);
      const session = client.session ?? (await client.signIn());
      const items: InboundPost[] = [];
      let newest = cursor;
      const stop = cursor ? at(cursor) - LOOK_BACK_MS : null;
      let page: string | undefined;
      for (let n = 0; n < MAX_PAGES && items.length < limit; n++) {
        const res = await client.call(NOTIFICATIONS, {
          method: 'GET',
          query: {
            limit: String(PAGE),
            reasons: ['mention', 'reply'],
            ...(page ? { cursor: page } : {}),
          },
        });
        const got = documented('Bluesky', NOTIFICATIONS, res, Page);
        let reachedStop = false;
        for (const raw of got.notifications) {
          const seen = Seen.safeParse(raw);
          if (!seen.success) continue;
          if (stop !== null && at(seen.data.indexedAt) < stop) {
            reachedStop = true;
            continue;
          }
          if (!newest || at(seen.data.indexedAt) > at(newest)) newest = seen.data.indexedAt;
          const r = Notification.safeParse(raw);
          if (!r.success || r.data.author.did === session.did) continue;
          const { record } = r.data;
          items.push({
            kind: r.data.reason,
            id: r.data.uri,
            url: permalinkOf(r.data.uri),
            authorHandle: r.data.author.handle,
            authorId: r.data.author.did,
            text: record.text,
            postedAt: claimedTime(record.createdAt, r.data.indexedAt),
            answers: [...new Set([record.reply?.parent.uri, record.reply?.root.uri])].filter(
              (u): u is string => !!u,
            ),
            replyRef: replyRefOf(r.data),
          });
        }
        if (!cursor || reachedStop || !got.cursor) break;
        page = got.cursor;
      }
      // Oldest first, all of them: the cursor moves past every one read.
      return { items: items.reverse(), cursor: newest };
    },

    /**
     * A like or a repost (citing the post) or a follow (citing its author), written like a
     * reply: under a key derived from the action, once.
     */
    async act(account, req) {
      const collection = ACT_COLLECTIONS[req.action];
      const cid = req.to.replyRef?.cid;
      if (req.action !== 'follow' && !cid)
        throw new PublicationError('The post lacks its Bluesky reference (cid).', {
          retryable: false,
        });
      const client = clientOf(account);
      const session = client.session ?? (await client.signIn());
      const record = {
        $type: collection,
        subject: req.action === 'follow' ? req.to.authorId : { uri: req.to.id, cid },
        createdAt: req.requestedAt.toISOString(),
      };
      const rkey = deterministicTid(req.requestedAt, req.idempotencyKey);
      const written = await putOnce(client, session, rkey, record, collection);
      return { externalId: written.uri };
    },

    async reply(account, req) {
      const ref = req.to.replyRef;
      if (!ref?.cid)
        throw new PublicationError('The post to answer lacks its Bluesky reference (cid).', {
          retryable: false,
        });
      const client = clientOf(account);
      const session = client.session ?? (await client.signIn());
      const parent = { uri: req.to.id, cid: ref.cid };
      const root = ref.root_uri && ref.root_cid ? { uri: ref.root_uri, cid: ref.root_cid } : parent;
      const facets = await facetsOf(req.text, handleResolver(client));
      const record = {
        $type: POST,
        text: req.text,
        // From when the reply was asked for, not the clock: a retry writes identical bytes.
        createdAt: req.requestedAt.toISOString(),
        reply: { root, parent },
        ...(facets.length ? { facets } : {}),
      };
      const rkey = deterministicTid(req.requestedAt, req.idempotencyKey);
      const written = await putOnce(client, session, rkey, record);
      return { externalPostId: written.uri, permalinkUrl: permalinkOf(written.uri) };
    },
  };
}
