// A Meta media container's life, as Threads and Instagram document it: created from a public
// URL Meta fetches itself (or from text alone), polled until its status is FINISHED, then
// published; EXPIRED (not published within 24 h) and ERROR end it with Meta's reason. Neither
// platform takes an idempotency key, so each container is published at most once by what the
// attempt remembers: its id as soon as Meta answers the creation, the time just before the
// publish call, and the published media's id. A retry reads the container's status first: a
// container already PUBLISHED is looked for among the account's posts (the platform's
// `findPublished`) and recorded, never published again; FINISHED is published.
// Docs: developers.facebook.com/docs/threads/troubleshooting (status values, polling once a
// minute for at most 5 minutes); …/instagram-platform/instagram-graph-api/reference/ig-container.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import {
  finalFailure,
  firstBegun,
  mediaNotFetched,
  PublicationError,
  type PublicationSteps,
} from '../connector.ts';
import { CHECK_THE_ACCOUNT, documented } from '../http.ts';
import { plainText } from '../readings.ts';
import { Created, type GraphCall } from './graph.ts';
import { GraphRefusal, notReadyYet } from './graphErrors.ts';

export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'EXPIRED' | 'ERROR';

/** What a platform's containers share, and what each names its own way. */
export type ContainerPlatform = {
  /** The platform as people write it ("Threads"). */
  name: string;
  call: GraphCall;
  /** The creation edge (`/v1.0/{user}/threads`, `/{ig-user}/media`). */
  createPath: string;
  /** The publishing edge (`/v1.0/{user}/threads_publish`, `/{ig-user}/media_publish`). */
  publishPath: string;
  /** The container's path (`/v1.0/{id}`, `/{id}`). */
  containerPath(id: string): string;
  /** The fields that carry its status (`status,error_message`; `status_code,status`). */
  statusFields: string;
  /** Its status and, for ERROR, Meta's reason, from the status answer's JSON. */
  readStatus(json: unknown): { status: ContainerStatus; reason: string | undefined } | undefined;
  /** Whether an ERROR's reason says Meta could not fetch the media (a download failure). */
  fetchFailed(reason: string): boolean;
  /** How often the status is read while IN_PROGRESS, and how long one attempt waits for it. */
  poll: { intervalMs: number; boundMs: number };
  signal: AbortSignal;
};

/**
 * How long a container may stay IN_PROGRESS across the attempts of a publication: Meta
 * recommends reading its status for no more than 5 minutes.
 */
export const PROCESSING_LIMIT_MS = 5 * 60_000;
/** How soon the next attempt reads a container still IN_PROGRESS: Meta's once a minute. */
export const PROCESSING_RETRY_MS = 60_000;

const STATUSES = ['IN_PROGRESS', 'FINISHED', 'PUBLISHED', 'EXPIRED', 'ERROR'] as const;
/** A status field as Meta writes it; anything else is not a status we can act on. */
export const StatusValue = z.enum(STATUSES);

/**
 * The container's status, read once. A container Meta has published may answer as the post
 * it became, which has no status field (code 100, "Tried accessing nonexisting field"):
 * that is read as PUBLISHED, and the caller reads the post back.
 */
export async function containerStatus(
  p: ContainerPlatform,
  id: string,
): Promise<{ status: ContainerStatus; reason: string | undefined }> {
  let res: Awaited<ReturnType<GraphCall>>;
  try {
    res = await p.call('GET', p.containerPath(id), { fields: p.statusFields });
  } catch (err) {
    if (err instanceof GraphRefusal && err.code === 100 && /nonexisting field/i.test(err.message))
      return { status: 'PUBLISHED', reason: undefined };
    throw err;
  }
  const read = p.readStatus(res.json);
  if (!read)
    throw finalFailure(
      `${p.name} answered ${res.status} to GET ${p.containerPath(id)} without the container's status.`,
    );
  return read;
}

/**
 * The id of the container remembered under `step`, or of one made now with `params` and
 * remembered before anything else happens (an orphan container, made but unremembered, is
 * never published: Meta lets it expire).
 */
export async function containerOnce(
  p: ContainerPlatform,
  steps: PublicationSteps,
  step: string,
  params: Record<string, string>,
): Promise<string> {
  const known = await steps.recall(step);
  if (known) return known;
  let res: Awaited<ReturnType<GraphCall>>;
  try {
    res = await p.call('POST', p.createPath, params);
  } catch (err) {
    throw fetchRefusal(p, err) ?? err;
  }
  const { id } = documented(p.name, `POST ${p.createPath}`, res, Created);
  await steps.remember(step, id);
  return (await steps.recall(step)) ?? id;
}

/**
 * A creation Meta refused because it could not download the media (Instagram documents
 * subcode 2207052, "Media download has failed"), as the failure that names PUBLIC_BASE_URL.
 */
function fetchRefusal(p: ContainerPlatform, err: unknown): PublicationError | undefined {
  if (!(err instanceof PublicationError) || err.retryable || err.reconnect) return undefined;
  return /download|fetch/i.test(err.message) ? mediaNotFetched(p.name, err.message) : undefined;
}

/**
 * Waits, within this attempt's bound, until each container is FINISHED (or already
 * PUBLISHED, which the caller reads back); ERROR and EXPIRED fail with Meta's reason, and a
 * container still IN_PROGRESS when the bound is spent is read again by the next attempt, a
 * minute later, until PROCESSING_LIMIT_MS after the first reading (remembered under `step`).
 */
export async function awaitContainers(
  p: ContainerPlatform,
  steps: PublicationSteps,
  step: string,
  ids: string[],
): Promise<Map<string, 'FINISHED' | 'PUBLISHED'>> {
  const since = await firstBegun(steps, step);
  const ready = new Map<string, 'FINISHED' | 'PUBLISHED'>();
  const started = Date.now();
  for (;;) {
    for (const id of ids) {
      if (ready.has(id)) continue;
      const { status, reason } = await containerStatus(p, id);
      if (status === 'FINISHED' || status === 'PUBLISHED') ready.set(id, status);
      else if (status === 'ERROR') throw failedContainer(p, reason);
      else if (status === 'EXPIRED')
        throw finalFailure(
          `${p.name} let the post's media container expire (it was not published within 24 hours); schedule the post again.`,
        );
    }
    if (ready.size === ids.length) return ready;
    if (Date.now() - since >= PROCESSING_LIMIT_MS)
      throw finalFailure(
        `${p.name} was still processing the post's media ${Math.round(PROCESSING_LIMIT_MS / 60_000)} minutes after it was sent; check the media (format, size, duration) and schedule the post again.`,
      );
    if (Date.now() - started + p.poll.intervalMs > p.poll.boundMs)
      throw new PublicationError(
        `${p.name} is still processing the post's media; the next attempt checks again in a minute.`,
        { retryable: true, retryAfterMs: PROCESSING_RETRY_MS },
      );
    await sleep(p.poll.intervalMs, undefined, { signal: p.signal });
  }
}

/**
 * A carousel's container, made once: a container per item (`is_carousel_item`, remembered
 * under `prefix.child.N`), all of them read until finished, then the CAROUSEL container with
 * them and `params` (the text), remembered under `step`.
 */
export async function carouselOnce(
  p: ContainerPlatform,
  steps: PublicationSteps,
  prefix: string,
  step: string,
  items: Record<string, string>[],
  params: Record<string, string>,
): Promise<string> {
  const children: string[] = [];
  for (const [i, item] of items.entries())
    children.push(
      await containerOnce(p, steps, `${prefix}.child.${i}`, { ...item, is_carousel_item: 'true' }),
    );
  await awaitContainers(p, steps, `${prefix}.children.polling`, children);
  return containerOnce(p, steps, step, {
    media_type: 'CAROUSEL',
    children: children.join(','),
    ...params,
  });
}

function failedContainer(p: ContainerPlatform, reason: string | undefined): PublicationError {
  const said = reason ? plainText(reason).slice(0, 300) : 'no reason given';
  if (reason && p.fetchFailed(reason)) return mediaNotFetched(p.name, said);
  return finalFailure(`${p.name} could not prepare the post's media: ${said}.`);
}

/** The steps one published container keeps, under its prefix. */
const publishing = (prefix: string) => `${prefix}.publishing`;
const published = (prefix: string) => `${prefix}.media`;

/** The media id publishOnce remembered under `prefix`, if the container was published. */
export const publishedMedia = (steps: PublicationSteps, prefix: string) =>
  steps.recall(published(prefix));

/**
 * Publishes the FINISHED container `id` once and answers the media's id: the one remembered
 * under `prefix`, or the one Meta answers now (remembered at once), or, when an earlier try
 * reached the publish call and the container is PUBLISHED (or this try's answer cannot be
 * read), the post `findPublished` finds among the account's since then. A container that is
 * PUBLISHED but not found fails: the post is there, and recording another id would be a lie.
 * One that says PUBLISHED before this publication ever called publish is published as if
 * FINISHED: nothing older than the attempt is recorded as its post.
 */
export async function publishOnce(
  p: ContainerPlatform,
  steps: PublicationSteps,
  prefix: string,
  id: string,
  state: 'FINISHED' | 'PUBLISHED',
  findPublished: (sinceMs: number) => Promise<string | undefined>,
): Promise<string> {
  const known = await steps.recall(published(prefix));
  if (known) return known;
  const triedAt = await steps.recall(publishing(prefix));
  const readBack = async (since: number) => {
    const found = await findPublished(since);
    if (!found)
      throw finalFailure(
        `${p.name} has published the post's container ${id}, but the post was not found among the account's recent posts; ${CHECK_THE_ACCOUNT}`,
      );
    await steps.remember(published(prefix), found);
    return found;
  };
  // A container says it is published (or answers as a post) after this publication reached
  // the publish call: read that post back. Before it never did, the container is not ours to
  // record: publishing it is asked, and Meta refuses one published already.
  if (state === 'PUBLISHED' && triedAt) return readBack(Date.parse(triedAt));

  const since = await firstBegun(steps, publishing(prefix));
  let res: Awaited<ReturnType<GraphCall>> | undefined;
  try {
    res = await p.call('POST', p.publishPath, { creation_id: id });
    const media = Created.safeParse(res.json);
    if (media.success) {
      await steps.remember(published(prefix), media.data.id);
      return (await steps.recall(published(prefix))) ?? media.data.id;
    }
  } catch (err) {
    // Meta refused the publish for good, or throttled it: it published nothing.
    if (err instanceof PublicationError && err.status !== undefined && err.status < 500) {
      if (notReadyYet(err)) throw notReady(p, err);
      throw err;
    }
    // No answer, or a 5xx: the container may have been published all the same.
    const after = await containerStatus(p, id).catch(() => undefined);
    if (after?.status === 'PUBLISHED') return readBack(since);
    throw err;
  }
  // A 2xx answer without the media's id: the container's status says what happened.
  const after = await containerStatus(p, id).catch(() => undefined);
  if (after?.status === 'PUBLISHED') return readBack(since);
  throw finalFailure(
    `${p.name} answered ${res.status} to POST ${p.publishPath} without the published media's id` +
      `${after ? ` (the container is ${after.status})` : ''}; ${CHECK_THE_ACCOUNT}`,
  );
}

const notReady = (p: ContainerPlatform, err: PublicationError) =>
  new PublicationError(
    `${p.name} did not find the finished container yet (${err.message}); the next attempt tries again.`,
    { retryable: true, retryAfterMs: PROCESSING_RETRY_MS, cause: err },
  );
