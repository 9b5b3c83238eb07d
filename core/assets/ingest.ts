// URL ingest (POST /v1/assets): downloads a public image or video through the outbound guard,
// following at most three redirects, each checked, and files it like an upload. A page, a
// login wall, anything not media, or a private address is refused with a 422 that says why.
import type http from 'node:http';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { requireOwnedBrand } from '../brands/service.ts';
import { invalid } from '../kernel/errors.ts';
import { STORAGE_QUOTA_BYTES } from '../kernel/plans.ts';
import { formatBytes } from '../kernel/sizes.ts';
import { getFollowing, OutboundRefused } from '../outbound/guard.ts';
import { fileMediaFile } from './chunked.ts';
import { storageUse } from './db.ts';
import { assetBrand, type MediaDeps, type Owner, uploadImage } from './library.ts';
import { quotaExceeded } from './quota.ts';
import { type Asset, type IngestInput, MAX_CHUNKED_BYTES } from './schema.ts';
import { spoolToTemp, tooLarge } from './spool.ts';

const MAX_REDIRECTS = 3;
/** A 500 MB video on a slow link still finishes; the guard's timeout covers the whole body. */
const INGEST_TIMEOUT_MS = 10 * 60_000;

function filenameOf(url: URL): string | null {
  const base = path.posix.basename(decodeURIComponent(url.pathname));
  return base && base !== '/' ? base.slice(0, 255) : null;
}

/**
 * The response's body as the upload reads it. The remote server breaking the download off (a
 * reset, the guard's timeout) is the URL's failure, a 422 like one that cannot be fetched, not
 * a socket error (ECONNRESET) the service would answer as its own 500. The file being
 * refused, or failing to be written, stops the download quietly.
 */
function downloadOf(response: http.IncomingMessage, loc: string[]): Readable {
  const body = new PassThrough();
  response.on('error', (err) => {
    const why = err.name === 'AbortError' ? 'it took too long' : err.message;
    body.destroy(invalid(loc, `cannot ingest this URL: the download broke off (${why})`));
  });
  body.on('close', () => response.destroy());
  return response.pipe(body);
}

export async function ingestFromUrl(
  deps: MediaDeps,
  owner: Owner,
  input: IngestInput,
): Promise<Asset> {
  if (input.brand_id) await requireOwnedBrand(deps.pool, owner.accountId, input.brand_id);
  const loc = ['body', 'url'];
  let fetched: Awaited<ReturnType<typeof getFollowing>>;
  try {
    fetched = await getFollowing(input.url, deps.outbound, {
      maxRedirects: MAX_REDIRECTS,
      timeoutMs: INGEST_TIMEOUT_MS,
      headers: { accept: 'image/*, video/*, audio/*' },
    });
  } catch (err) {
    const why =
      err instanceof OutboundRefused
        ? err.message
        : `it could not be fetched (${(err as Error).message})`;
    throw invalid(loc, `cannot ingest this URL: ${why}`);
  }
  const { response, url } = fetched;
  const status = response.statusCode ?? 0;
  if (status !== 200) {
    response.resume();
    throw invalid(
      loc,
      `the URL answered HTTP ${status}; ingest needs a public, downloadable file (not a page behind a login)`,
    );
  }
  const type = String(response.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  const length = response.headers['content-length'];
  const contentLength = length === undefined ? undefined : Number(length);
  const filename = input.filename ?? filenameOf(url);

  if (type.startsWith('image/'))
    return uploadImage(deps, owner, {
      body: downloadOf(response, loc),
      contentType: type,
      contentLength,
      brand_id: input.brand_id,
      filename: filename ?? undefined,
      alt_text: input.alt_text,
    });

  if (type.startsWith('video/') || type.startsWith('audio/')) {
    const message = `A media file from a URL holds at most ${formatBytes(MAX_CHUNKED_BYTES)}.`;
    if (contentLength !== undefined && contentLength > MAX_CHUNKED_BYTES) {
      response.destroy();
      throw tooLarge(message);
    }
    // Nothing past the account's room (beside what it uses and has reserved) is downloaded:
    // the spool stops there (filing the asset checks the quota again, exactly, in its
    // transaction).
    const quota = STORAGE_QUOTA_BYTES[owner.plan];
    const { used, reserved } = await storageUse(deps.pool, owner.accountId);
    const room = quota - used - reserved;
    const full = () =>
      quotaExceeded(deps.pool, owner.accountId, {
        lead: `Storage quota of ${formatBytes(quota)} would be exceeded by this file`,
      });
    if (room <= 0 || (contentLength !== undefined && contentLength > room)) {
      response.destroy();
      throw await full();
    }
    const limit = Math.min(MAX_CHUNKED_BYTES, room);
    // Worded before the download, as the spool's refusal is made synchronously.
    const refusal = limit < MAX_CHUNKED_BYTES ? await full() : undefined;
    const spooled = await spoolToTemp(
      downloadOf(response, loc),
      limit,
      refusal ? () => refusal : message,
      deps.tempDir,
    );
    return fileMediaFile(deps, owner, spooled, {
      brandId: assetBrand(owner, input.brand_id),
      filename,
      loc,
    });
  }

  response.destroy();
  throw invalid(
    loc,
    `the URL serves ${type || 'no content type'}, not an image or video file; link the file itself, not a page that shows it`,
    'not_media',
  );
}
