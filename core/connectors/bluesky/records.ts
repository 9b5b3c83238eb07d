// Writing records to the account's repository on its PDS once: under a key derived from the
// request (never the clock) with `swapRecord: null`, so a retry finds its record rather than
// writing a second one. Publication (index.ts) and replies (engagement.ts) write through here,
// and resolve the handles their text mentions.
import { z } from 'zod';
import { PublicationError } from '../connector.ts';
import { CHECK_THE_ACCOUNT, documented } from '../http.ts';
import { Handle, MAX_POST_TEXT, PlatformId, plainText } from '../readings.ts';
import type { BlueskyClient, BlueskySession } from './session.ts';

export const POST = 'app.bsky.feed.post';

/** A post as a third party's: its reference, author and record, read from the AppView. */
const PostRef = z.object({ uri: PlatformId.refine((u) => u.startsWith('at://')), cid: PlatformId });
export const ThirdPartyPost = {
  uri: PostRef.shape.uri,
  cid: PostRef.shape.cid,
  author: z.object({
    did: PlatformId,
    handle: Handle,
  }),
  record: z.object({
    text: z.string().max(MAX_POST_TEXT).transform(plainText),
    createdAt: z.iso.datetime({ offset: true }).catch(''),
    reply: z.object({ root: PostRef, parent: PostRef }).optional().catch(undefined),
  }),
  indexedAt: z.iso.datetime({ offset: true }),
};

/** What a reply or a like to a third party's post needs beyond its URI. */
export const replyRefOf = (p: {
  uri: string;
  cid: string;
  record: { reply?: { root: { uri: string; cid: string } } };
}) => {
  const root = p.record.reply?.root ?? { uri: p.uri, cid: p.cid };
  return { cid: p.cid, root_uri: root.uri, root_cid: root.cid };
};

/** A record's strong reference: putRecord's and getRecord's answers, and what replies cite. */
export const StrongRef = z.object({ uri: z.string().startsWith('at://'), cid: z.string().min(1) });
export type StrongRef = z.infer<typeof StrongRef>;

const ResolvedHandle = z.object({ did: z.string().startsWith('did:') });

/** Writes one record (a post unless `collection` says) under its key, unless the key holds it already; answers its ref. */
export async function putOnce(
  client: BlueskyClient,
  session: BlueskySession,
  rkey: string,
  record: Record<string, unknown>,
  collection = POST,
): Promise<StrongRef> {
  const put = await client.call(
    'com.atproto.repo.putRecord',
    {
      method: 'POST',
      json: { repo: session.did, collection, rkey, record, swapRecord: null },
    },
    ['InvalidSwap'],
  );
  if (put.status === 200)
    return documented('Bluesky', 'com.atproto.repo.putRecord', put, StrongRef, CHECK_THE_ACCOUNT);
  // InvalidSwap: a record is already under this attempt's key; an earlier try wrote it.
  const got = await client.call('com.atproto.repo.getRecord', {
    method: 'GET',
    query: { repo: session.did, collection, rkey },
  });
  return documented('Bluesky', 'com.atproto.repo.getRecord', got, StrongRef, CHECK_THE_ACCOUNT);
}

/** A post's address on bsky.app. */
export const permalinkOf = (uri: string) => {
  const [, , did, , rkey] = uri.split('/');
  return `https://bsky.app/profile/${did}/post/${rkey}`;
};

/** Resolves a handle to its DID through the PDS; null when it does not resolve. */
export const handleResolver = (client: BlueskyClient) => async (handle: string) => {
  const nsid = 'com.atproto.identity.resolveHandle';
  let res: Awaited<ReturnType<BlueskyClient['call']>>;
  try {
    res = await client.call(nsid, { method: 'GET', query: { handle } }, [
      'HandleNotFound',
      'InvalidRequest',
    ]);
  } catch (err) {
    if (err instanceof PublicationError && err.retryable) throw err;
    return null;
  }
  if (res.status !== 200) return null;
  return documented('Bluesky', nsid, res, ResolvedHandle).did;
};
