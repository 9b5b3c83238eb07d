// Mastodon's side of engagement (issue 21): the mentions of the connected account, read from
// its notifications (GET /api/v1/notifications, type mention, paged forward with min_id), and
// replies sent with in_reply_to_id and an Idempotency-Key, so a retried send answers the
// status it created instead of a second one (the instance keeps a key an hour).
// Docs: docs.joinmastodon.org/methods/notifications, /methods/statuses.
import { z } from 'zod';
import type { Connector, InboundPost } from './connector.ts';
import { CHECK_THE_ACCOUNT, documented } from './http.ts';
import { type Client, getDocumented, OwnAccount, Status, statusText } from './mastodonApi.ts';
import { Address, itemsOf, PlatformId, plainText } from './readings.ts';

/** Notifications a page (the method's maximum). */
const PAGE = 80;

/** A mention notification: its status is the third party's post. */
const MentionNotification = z.object({
  id: PlatformId,
  type: z.literal('mention'),
  account: z.object({
    id: PlatformId,
    acct: z.string().min(1).max(500).transform(plainText).pipe(z.string().min(1)),
  }),
  status: z.object({
    id: PlatformId,
    url: Address,
    content: z.string(),
    created_at: z.iso.datetime({ offset: true }),
    in_reply_to_id: PlatformId.nullish().catch(null),
    in_reply_to_account_id: PlatformId.nullish().catch(null),
    visibility: z.string().catch('public'),
  }),
});
/** Every notification has an id; only mentions are read further. */
const Notification = z.object({ id: PlatformId, type: z.string() });

/** Mastodon's ids sort as numbers (or as equal-length strings, on servers that use ULIDs). */
const newer = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

export function mastodonEngagement(
  callAs: (credentials: Record<string, unknown>) => Client,
): Required<Pick<Connector, 'inbound' | 'reply'>> {
  return {
    /**
     * Mentions newer than the cursor (a notification id), oldest page first: each page is the
     * `PAGE` notifications just after the last one read (min_id), so nothing between two
     * readings is skipped. Without a cursor, the newest page only. A direct message is a
     * private conversation, not a public reply to suggest: it is left out.
     */
    async inbound(account, cursor, limit) {
      const call = callAs(account.credentials);
      const me = await getDocumented(call, '/api/v1/accounts/verify_credentials', OwnAccount);
      const items: InboundPost[] = [];
      let next = cursor;
      for (let read = 0; read < limit; ) {
        const query = new URLSearchParams({ 'types[]': 'mention', limit: String(PAGE) });
        if (next) query.set('min_id', next);
        const page = await getDocumented(
          call,
          `/api/v1/notifications?${query}`,
          itemsOf(z.unknown(), PAGE * 2),
        );
        const ids = page.flatMap((n) => {
          const r = Notification.safeParse(n);
          return r.success ? [r.data.id] : [];
        });
        if (!ids.length) break;
        read += ids.length;
        next = ids.reduce((a, b) => (newer(a, b) >= 0 ? a : b));
        for (const raw of page) {
          const n = MentionNotification.safeParse(raw);
          if (!n.success || n.data.status.visibility === 'direct') continue;
          const s = n.data.status;
          const text = statusText(s.content);
          items.push({
            kind: s.in_reply_to_account_id === me.id ? 'reply' : 'mention',
            id: s.id,
            url: s.url ?? null,
            authorHandle: n.data.account.acct,
            authorId: n.data.account.id,
            text,
            postedAt: s.created_at,
            answers: s.in_reply_to_id ? [s.in_reply_to_id] : [],
            replyRef: null,
          });
        }
        // Without a cursor only the newest page is read: older mentions are not news.
        if (!cursor) break;
      }
      items.sort((a, b) => newer(a.id, b.id));
      return { items, cursor: next };
    },

    /**
     * A reply status, `in_reply_to_id` their status, starting with their handle (the
     * instance tells them only when it names them); the Idempotency-Key makes a retry
     * answer the status the first try created.
     */
    async reply(account, req) {
      const call = callAs(account.credentials);
      const mention = `@${req.to.authorHandle}`;
      const named = req.text.toLowerCase().includes(mention.toLowerCase());
      const res = await call('/api/v1/statuses', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': req.idempotencyKey },
        body: JSON.stringify({
          status: named ? req.text : `${mention} ${req.text}`,
          in_reply_to_id: req.to.id,
        }),
      });
      const status = documented(
        'Mastodon',
        'POST /api/v1/statuses',
        res,
        Status,
        CHECK_THE_ACCOUNT,
      );
      return { externalPostId: status.id, permalinkUrl: status.url ?? null };
    },
  };
}
