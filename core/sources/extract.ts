// A web page's article as text: fetched through the outbound guard (HTML only, at most 5 MB,
// at most 3 checked redirects, its charset honoured) and extracted with Mozilla's Readability
// over linkedom's DOM, never by hand-written scraping. What cannot be read is a SourceRefused
// whose message says why.
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { formatBytes } from '../kernel/sizes.ts';
import { getFollowing, type OutboundPolicy, OutboundRefused } from '../outbound/guard.ts';

export const MAX_HTML_BYTES = 5 * 1024 * 1024;
/** Text kept of a source (characters). */
export const MAX_SOURCE_TEXT = 200_000;
const MAX_REDIRECTS = 3;
const FETCH_TIMEOUT_MS = 20_000;
/** A page whose parse takes longer is given up (its thread ended). */
const EXTRACT_TIMEOUT_MS = 30_000;

export class SourceRefused extends Error {}

export type Extracted = {
  title: string | null;
  text: string;
  siteName: string | null;
  lang: string | null;
  contentHash: string;
};

/** Why a connection failed, in words that name no address (no port-scan oracle). */
export function networkReason(err: unknown): string {
  const text = `${(err as { code?: string }).code ?? ''} ${(err as Error).message ?? ''}`;
  if (/timed out|ETIMEDOUT|abort/i.test(text)) return 'it timed out';
  if (/ECONNREFUSED/.test(text)) return 'the connection was refused';
  if (/ECONNRESET|socket hang up/i.test(text)) return 'the connection was cut';
  if (/ENOTFOUND|EAI_AGAIN/.test(text)) return 'the host does not resolve';
  if (/certificate|TLS|SSL/i.test(text)) return 'its TLS certificate was refused';
  return 'a network error';
}

export const contentHash = (text: string) => createHash('sha256').update(text).digest('hex');

/** The charset a response declares (header first, then the page's meta), else UTF-8. */
function charsetOf(contentType: string, head: Buffer): string {
  const fromHeader = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  const fromMeta = /<meta[^>]+charset=["']?([\w-]+)/i.exec(head.toString('latin1'))?.[1];
  const name = (fromHeader ?? fromMeta ?? 'utf-8').toLowerCase();
  try {
    new TextDecoder(name);
    return name;
  } catch {
    return 'utf-8';
  }
}

/** A page's bytes as text, in the charset it declares (header, then meta), else UTF-8. */
export const decodePage = (bytes: Buffer, contentType: string) =>
  new TextDecoder(charsetOf(contentType, bytes.subarray(0, 2048))).decode(bytes);

/** A response's whole body, but no more than `max` bytes: past that, `tooLarge()` is thrown. */
export async function readCapped(
  response: AsyncIterable<unknown> & { destroy(): void },
  max: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > max) {
      response.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Text Postgres can store: a page's NUL characters and lone surrogates are dropped. */
const storable = (t: string | undefined) => t?.replaceAll('\u0000', '').toWellFormed();

/** The article of an HTML document: its title, its blocks of text, site name and language. */
export function extractArticle(html: string): Omit<Extracted, 'contentHash'> | undefined {
  const { document } = parseHTML(html);
  const lang = document.documentElement?.getAttribute('lang') || null;
  const article = new Readability(document as unknown as Document).parse();
  if (!article?.content) return undefined;
  // Blocks joined by blank lines: textContent would run a heading into its paragraph.
  const { document: body } = parseHTML(`<html><body>${article.content}</body></html>`);
  const blocks = [...body.querySelectorAll('h1,h2,h3,h4,h5,h6,p,li,blockquote,pre,td')]
    .filter((el) => !el.querySelector('p,li,blockquote,pre'))
    .map((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  const text = (blocks.length ? blocks.join('\n\n') : (article.textContent ?? '').trim()).slice(
    0,
    MAX_SOURCE_TEXT,
  );
  if (!text) return undefined;
  return {
    title: storable(article.title?.trim().slice(0, 500)) || null,
    text: storable(text) ?? '',
    siteName: storable(article.siteName?.trim().slice(0, 200)) || null,
    lang: storable((article.lang || lang)?.slice(0, 35)) || null,
  };
}

/**
 * extractArticle in a worker thread of its own, with a time and heap limit: a large page
 * holds a thread for a second or more, never the caller's event loop.
 */
export function extractOffThread(html: string): Promise<ReturnType<typeof extractArticle>> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(new URL('./extractThread.ts', import.meta.url), {
      workerData: html,
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    const timer = setTimeout(() => {
      void thread.terminate();
      reject(new SourceRefused(`the page took longer than ${EXTRACT_TIMEOUT_MS / 1000} s to read`));
    }, EXTRACT_TIMEOUT_MS);
    thread.once('message', (article: ReturnType<typeof extractArticle> | null) => {
      clearTimeout(timer);
      resolve(article ?? undefined);
      void thread.terminate();
    });
    // A page the parser cannot take (bytes that are no HTML, a heap past the limit) is one
    // the user must replace, not one to fetch again.
    thread.once('error', () => {
      clearTimeout(timer);
      reject(new SourceRefused('the page could not be read as HTML'));
    });
  });
}

/** Fetches `url` and extracts its article; SourceRefused says why it cannot. */
export async function fetchArticle(url: string, policy: OutboundPolicy): Promise<Extracted> {
  let fetched: Awaited<ReturnType<typeof getFollowing>>;
  try {
    fetched = await getFollowing(url, policy, {
      maxRedirects: MAX_REDIRECTS,
      timeoutMs: FETCH_TIMEOUT_MS,
      headers: { accept: 'text/html, application/xhtml+xml' },
    });
  } catch (err) {
    throw new SourceRefused(
      err instanceof OutboundRefused
        ? `the URL cannot be fetched: ${err.message}`
        : `the URL could not be fetched (${networkReason(err)})`,
    );
  }
  const { response } = fetched;
  const status = response.statusCode ?? 0;
  const type = String(response.headers['content-type'] ?? '');
  if (status !== 200) {
    response.resume();
    throw new SourceRefused(`the URL answered HTTP ${status}; give a public page`);
  }
  if (!/^\s*(text\/html|application\/xhtml\+xml)/i.test(type)) {
    response.resume();
    throw new SourceRefused(
      `the URL is not an HTML page (it is ${type.split(';')[0] || 'of no stated type'}); give an article's address, or its text`,
    );
  }
  let bytes: Buffer;
  try {
    bytes = await readCapped(
      response,
      MAX_HTML_BYTES,
      () => new SourceRefused(`the page is larger than ${formatBytes(MAX_HTML_BYTES)}`),
    );
  } catch (err) {
    if (err instanceof SourceRefused) throw err;
    throw new SourceRefused(`the page could not be read to its end (${networkReason(err)})`);
  }
  const html = decodePage(bytes, type);
  const article = await extractOffThread(html);
  if (!article)
    throw new SourceRefused('the page has no readable article text; give its text instead');
  return { ...article, contentHash: contentHash(article.text) };
}
