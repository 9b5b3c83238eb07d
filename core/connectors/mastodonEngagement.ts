// Mastodon's side of engagement: the mentions of the connected account, read from
// its notifications (GET /api/v1/notifications, type mention, paged forward with min_id), and
// replies sent with in_reply_to_id and an Idempotency-Key, so a retried send answers the
// status it created instead of a second one (the instance keeps a key an hour).
// Docs: docs.joinmastodon.org/methods/notifications, /methods/statuses.
import { z } from 'zod';
import type { Connector, InboundPost } from './connector.ts';
import { CHECK_THE_ACCOUNT, documented } from './http.ts';
import { type Client, getDocumented, OwnAccount, Status, statusText } from './mastodonApi.ts';
import { Address, claimedTime, Handle, itemsOf, MAX_POST_TEXT, PlatformId } from './readings.ts';

/** Notifications a page (the method's maximum), and pages a reading asks at most. */
const PAGE = 80;
const MAX_PAGES = 10;

/** A mention notification: its status is the third party's post. */
const MentionNotification = z.object({
  id: PlatformId,
  type: z.literal('mention'),
  account: z.object({
    id: PlatformId,
    acct: Handle,
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
/** A status a search or a tag's timeline found. */
const FoundStatus = z.object({
  ...MentionNotification.shape.status.shape,
  account: MentionNotification.shape.account,
});

/** The statuses below one (its context's descendants), as far as a reply of ours. */
const Context = z.object({
  descendants: itemsOf(
    z.object({
      id: PlatformId,
      url: Address,
      in_reply_to_id: PlatformId.nullish().catch(null),
      account: z.object({ id: PlatformId }),
    }),
    4000,
  ),
});

/** A reply's text as sent: it names the author first unless it names them already. */
export function mastodonReplyText(text: string, authorHandle: string): string {
  const mention = `@${authorHandle}`;
  return text.toLowerCase().includes(mention.toLowerCase()) ? text : `${mention} ${text}`;
}

/** Every notification has an id; only mentions are read further. */
const Notification = z.object({ id: PlatformId, type: z.string() });

/** Mastodon's ids sort as numbers (or as equal-length strings, on servers that use ULIDs). */
const newer = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

export function mastodonEngagement(
  callAs: (credentials: Record<string, unknown>) => Client,
): Required<Pick<Connector, 'inbound' | 'reply' | 'search' | 'act'>> {
  // The account's own id, asked once a reading (mentions, then each keyword search share it).
  const ownIds = new WeakMap<object, Promise<string>>();
  const ownId = (account: object, call: Client) => {
    let id = ownIds.get(account);
    if (!id) {
      id = getDocumented(call, '/api/v1/accounts/verify_credentials', OwnAccount).then((a) => a.id);
      id.catch(() => ownIds.delete(account));
      ownIds.set(account, id);
    }
    return id;
  };
  return {
    /**
     * Mentions newer than the cursor (a notification id), oldest page first: each page is the
     * `PAGE` notifications just after the last one read (min_id), so nothing between two
     * readings is skipped. Without a cursor, the newest page only. A direct message is a
     * private conversation, not a public reply to suggest: it is left out.
     */
    async inbound(account, cursor, limit) {
      const call = callAs(account.credentials);
      const me = { id: await ownId(account, call) };
      const items: InboundPost[] = [];
      let next = cursor;
      // Pages, not notifications, bound a reading, and each must move the cursor forward: an
      // instance answering the same page again cannot hold a reading slot for long.
      for (let read = 0, pages = 0; read < limit && pages < MAX_PAGES; pages++) {
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
        const newest = ids.reduce((a, b) => (newer(a, b) >= 0 ? a : b));
        if (next && newer(newest, next) <= 0) break;
        read += ids.length;
        next = newest;
        for (const raw of page) {
          const n = MentionNotification.safeParse(raw);
          if (!n.success || n.data.status.visibility === 'direct') continue;
          const s = n.data.status;
          const text = statusText(s.content).slice(0, MAX_POST_TEXT);
          items.push({
            kind: s.in_reply_to_account_id === me.id ? 'reply' : 'mention',
            id: s.id,
            url: s.url ?? null,
            authorHandle: n.data.account.acct,
            authorId: n.data.account.id,
            text,
            postedAt: claimedTime(s.created_at, new Date().toISOString()),
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
     * Recent public statuses holding `query` as keyword posts: a #tag from its timeline
     * (GET /api/v1/timelines/tag/:tag), a term from the instance's search (GET /api/v2/search,
     * statuses; what it finds depends on the instance's search setup). The account's own and
     * direct messages are left out.
     */
    async search(account, query, limit) {
      const call = callAs(account.credentials);
      const me = { id: await ownId(account, call) };
      const n = String(Math.min(40, limit));
      const statuses = query.startsWith('#')
        ? await getDocumented(
            call,
            `/api/v1/timelines/tag/${encodeURIComponent(query.slice(1))}?limit=${n}`,
            itemsOf(FoundStatus),
          )
        : (
            await getDocumented(
              call,
              `/api/v2/search?${new URLSearchParams({ q: query, type: 'statuses', limit: n, resolve: 'false' })}`,
              z.object({ statuses: itemsOf(FoundStatus) }),
            )
          ).statuses;
      return statuses
        .filter((s) => s.account.id !== me.id && s.visibility !== 'direct')
        .map((s) => ({
          kind: 'keyword' as const,
          id: s.id,
          url: s.url ?? null,
          authorHandle: s.account.acct,
          authorId: s.account.id,
          text: statusText(s.content).slice(0, MAX_POST_TEXT),
          postedAt: claimedTime(s.created_at, new Date().toISOString()),
          answers: s.in_reply_to_id ? [s.in_reply_to_id] : [],
          replyRef: null,
        }));
    },

    /**
     * A favourite, a reblog or a follow: each the same however often it is asked (the
     * instance keeps one), so a retry changes nothing.
     */
    async act(account, req) {
      const call = callAs(account.credentials);
      const path =
        req.action === 'follow'
          ? `/api/v1/accounts/${encodeURIComponent(req.to.authorId)}/follow`
          : `/api/v1/statuses/${encodeURIComponent(req.to.id)}/${req.action === 'like' ? 'favourite' : 'reblog'}`;
      const res = await call(path, {
        method: 'POST',
        headers: { 'idempotency-key': req.idempotencyKey },
      });
      const made = documented('Mastodon', `POST ${path}`, res, z.object({ id: PlatformId }));
      return { externalId: made.id };
    },

    /**
     * A reply status, `in_reply_to_id` their status, starting with their handle (the
     * instance tells them only when it names them). The Idempotency-Key makes a retry within
     * the hour answer the status the first try created; before sending, the thread below
     * their status (GET /api/v1/statuses/:id/context) is read for a reply of the account's
     * already there, which is answered instead, so a later try sends none either.
     */
    async reply(account, req) {
      const call = callAs(account.credentials);
      const me = { id: await ownId(account, call) };
      const context = `/api/v1/statuses/${encodeURIComponent(req.to.id)}/context`;
      const below = await getDocumented(call, context, Context);
      const ours = below.descendants.find(
        (s) => s.account.id === me.id && s.in_reply_to_id === req.to.id,
      );
      if (ours) return { externalPostId: ours.id, permalinkUrl: ours.url ?? null };
      const res = await call('/api/v1/statuses', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': req.idempotencyKey },
        body: JSON.stringify({
          status: mastodonReplyText(req.text, req.to.authorHandle),
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
