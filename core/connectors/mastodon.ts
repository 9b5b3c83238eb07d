// Mastodon (any instance, through the outbound guard): media through POST /api/v2/media (202
// while processing, then polled), then POST /api/v1/statuses with an Idempotency-Key derived
// from the publication attempt, so a retried attempt cannot post twice.
// Docs: docs.joinmastodon.org/methods/media, docs.joinmastodon.org/methods/statuses.
import { setTimeout as sleep } from 'node:timers/promises';
import { type OutboundPolicy, resolveChecked, sendChecked } from '../outbound/guard.ts';
import { publishedText } from '../posts/platformFit.ts';
import type { Storage } from '../storage/storage.ts';
import { type Connector, PublicationError } from './connector.ts';

type Credentials = { instance: string; access_token: string };

function credentialsOf(c: Record<string, unknown>): Credentials {
  if (typeof c.instance !== 'string' || typeof c.access_token !== 'string')
    throw new PublicationError(
      'The Mastodon account lacks instance or access_token; reconnect it.',
      {
        retryable: false,
        reconnect: true,
      },
    );
  return { instance: c.instance.replace(/\/+$/, ''), access_token: c.access_token };
}

/** One call to the instance; maps its failures to retryable or final publication errors. */
async function call(
  policy: OutboundPolicy,
  creds: Credentials,
  path: string,
  init: { method: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<{ status: number; json: Record<string, unknown> }> {
  let res: Awaited<ReturnType<typeof sendChecked>>;
  try {
    const target = await resolveChecked(`${creds.instance}${path}`, policy);
    res = await sendChecked(target, {
      method: init.method,
      headers: { authorization: `Bearer ${creds.access_token}`, ...init.headers },
      body: init.body,
      timeoutMs: 30_000,
      maxResponseBytes: 1024 * 1024,
    });
  } catch (err) {
    throw new PublicationError(`Mastodon could not be reached: ${(err as Error).message}`, {
      retryable: true,
      cause: err,
    });
  }
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
  } catch {}
  if (res.status >= 200 && res.status < 300) return { status: res.status, json };
  const message = `Mastodon answered ${res.status}: ${String(json.error ?? 'no reason given')}`;
  throw new PublicationError(message, {
    retryable: res.status >= 500 || res.status === 429,
    reconnect: res.status === 401,
  });
}

async function uploadMedia(
  policy: OutboundPolicy,
  creds: Credentials,
  storage: Storage,
  media: { mime: string; storageKey: string | null },
) {
  if (!media.storageKey)
    throw new PublicationError('An attached asset has no stored bytes.', { retryable: false });
  const chunks: Buffer[] = [];
  for await (const chunk of await storage.get(media.storageKey)) chunks.push(chunk as Buffer);
  const form = new FormData();
  form.append('file', new Blob([Buffer.concat(chunks)], { type: media.mime }), 'upload');
  const encoded = new Request('http://form.invalid', { method: 'POST', body: form });
  const body = Buffer.from(await encoded.arrayBuffer());
  const uploaded = await call(policy, creds, '/api/v2/media', {
    method: 'POST',
    headers: { 'content-type': encoded.headers.get('content-type')! },
    body,
  });
  const id = String(uploaded.json.id);
  // 202: still processing; the attachment is usable once it has a url.
  for (let i = 0; uploaded.status === 202 && i < 60; i++) {
    const polled = await call(policy, creds, `/api/v1/media/${encodeURIComponent(id)}`, {
      method: 'GET',
    });
    if (polled.status === 200 && polled.json.url) return id;
    await sleep(500);
  }
  if (uploaded.status === 202)
    throw new PublicationError('Mastodon is still processing the media.', { retryable: true });
  return id;
}

export function mastodonConnector(deps: { outbound: OutboundPolicy; storage: Storage }): Connector {
  return {
    async publish(req) {
      const creds = credentialsOf(req.account.credentials);
      const mediaIds: string[] = [];
      for (const media of req.post.media)
        mediaIds.push(await uploadMedia(deps.outbound, creds, deps.storage, media));
      const { json } = await call(deps.outbound, creds, '/api/v1/statuses', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': req.idempotencyKey },
        body: JSON.stringify({
          status: publishedText(req.post.body, req.post.hashtags),
          ...(mediaIds.length ? { media_ids: mediaIds } : {}),
        }),
      });
      return {
        externalPostId: String(json.id),
        permalinkUrl: typeof json.url === 'string' ? json.url : null,
      };
    },
  };
}

/** Checks the token with the instance; answers the handle, `@user@instance`. */
export async function verifyMastodon(policy: OutboundPolicy, credentials: Record<string, unknown>) {
  const creds = credentialsOf(credentials);
  const { json } = await call(policy, creds, '/api/v1/accounts/verify_credentials', {
    method: 'GET',
  });
  return `@${String(json.acct ?? json.username)}@${new URL(creds.instance).host}`;
}
