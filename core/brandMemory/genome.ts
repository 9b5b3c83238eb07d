// The brand genome (POST /v1/brand-memory/genome): paid in credits, taken when the job is
// queued (402 and nothing queued without them) and given back if it fails. The job, in the
// `generate` pool, fetches the brand's page through the outbound guard, up to 10 of its
// stylesheets and up to 3 of its images (logo, og:image, icon); it weighs the colours the CSS
// declares (custom properties included) and the images' dominant colours, reads the fonts
// (font-family, @font-face, font links), and the voice of the page's readable text (tone
// words, key terms, reading level); it writes `visual` and/or `voice` as one memory version.
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { spendCredits } from '../accounts/service.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { Job } from '../jobs/schema.ts';
import { type FinishInside, JobFailure, type ProgressReport, startJob } from '../jobs/service.ts';
import { enqueueGenome, type GENOME_RUNS, type GenomePayload } from '../jobs/tasks.ts';
import { DomainError, invalid } from '../kernel/errors.ts';
import { formatBytes } from '../kernel/sizes.ts';
import { getFollowing, type OutboundPolicy, OutboundRefused } from '../outbound/guard.ts';
import {
  decodePage,
  extractOffThread,
  networkReason,
  readCapped,
  SourceRefused,
} from '../sources/service.ts';
import { getBrandMemory, type MemoryCaller, recordInferred } from './memory.ts';
import type { MemoryDoc } from './schema.ts';
import { STOPWORDS } from './text.ts';

export type GenomeRun = (typeof GENOME_RUNS)[number];
/** What a run costs: each part one credit. */
export const GENOME_CREDITS: Record<GenomeRun, number> = { visual: 1, voice: 1, all: 2 };

const MAX_PAGE_BYTES = 5 * 1024 * 1024;
const MAX_CSS_BYTES = 1024 * 1024;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const MAX_STYLESHEETS = 10;
const MAX_IMAGES = 3;
const FETCH_TIMEOUT_MS = 15_000;

export type GenomeInput = { url?: string; run: GenomeRun; brand_id?: string };

/** Takes the credits and queues the job; answers job_id, status and the credits charged. */
export async function startGenome(pool: Pool, caller: MemoryCaller, input: GenomeInput) {
  // One read of the memory (it checks the brand is the caller's): its site, and what a person
  // stated (confidence 1, which an empty section never has).
  const memory = await getBrandMemory(pool, caller, input.brand_id);
  const url = input.url ?? memory.doc.links?.site ?? undefined;
  if (!url) throw invalid(['url'], "give url, or set the brand memory's site (/links/site) first");
  const parts = input.run === 'all' ? (['visual', 'voice'] as const) : [input.run];
  const stated = parts.filter((s) => memory.confidence.sections[s] === 1);
  if (stated.length === parts.length)
    throw invalid(
      ['run'],
      `${stated.join(' and ')} ${stated.length > 1 ? 'were' : 'was'} stated by a person, and the genome does not overwrite that: nothing would change (remove the section to let the genome fill it)`,
    );
  const credits = GENOME_CREDITS[input.run];
  const job: Job = await withTransaction(pool, async (tx) => {
    const left = await spendCredits(tx, caller.accountId, credits);
    if (left === undefined)
      throw new DomainError(
        'insufficient_credits',
        `The genome (${input.run}) costs ${credits} credits and this account has fewer; the operator adds credits (npm run admin -- account credits).`,
        { credits },
      );
    const started = await startJob(
      tx,
      {
        accountId: caller.accountId,
        kind: 'genome',
        subject: `genome:${memory.brand_id}:${randomUUID()}`,
        credits,
      },
      (db, jobId) =>
        enqueueGenome(db, {
          job_id: jobId,
          account_id: caller.accountId,
          brand_id: memory.brand_id,
          url,
          run: input.run,
        }),
    );
    return started.job;
  });
  return { job_id: job.job_id, status: job.status, credits };
}

/** GETs `url` through the guard: its body (at most `max` bytes) and content type. */
async function fetchGuarded(url: string, policy: OutboundPolicy, max: number, accept: string) {
  const { response } = await getFollowing(url, policy, {
    maxRedirects: 3,
    timeoutMs: FETCH_TIMEOUT_MS,
    headers: { accept },
  });
  if (response.statusCode !== 200) {
    response.resume();
    throw new OutboundRefused(`${url} answered HTTP ${response.statusCode}`);
  }
  const body = await readCapped(
    response,
    max,
    () => new OutboundRefused(`${url} is larger than ${formatBytes(max)}`),
  );
  return { body, type: String(response.headers['content-type'] ?? '') };
}

const attr = (tag: string, name: string) =>
  new RegExp(`\\b${name}\\s*=\\s*["']([^"']+)["']`, 'i').exec(tag)?.[1];

/** Tags this long are not a page's own markup: passed over. */
const MAX_TAG = 2000;

/**
 * The `<name ...>` tags of a page, each at most MAX_TAG long: found with indexOf, each search
 * starting past the last tag, so a hostile page costs linear time (regexes over it did not).
 */
function tagsNamed(html: string, lower: string, name: string): string[] {
  const tags: string[] = [];
  for (let at = lower.indexOf(`<${name}`); at !== -1; ) {
    const end = lower.indexOf('>', at);
    if (end === -1) break;
    if (end - at <= MAX_TAG && /[\s/>]/.test(lower[at + name.length + 1] ?? '>'))
      tags.push(html.slice(at, end + 1));
    at = lower.indexOf(`<${name}`, end + 1);
  }
  return tags;
}

/** What stands between each `open` and the next `close` (the inline CSS), in linear time. */
function between(html: string, lower: string, open: string, close: string): string[] {
  const found: string[] = [];
  for (let at = lower.indexOf(open); at !== -1; ) {
    const start = open.endsWith('"') ? at + open.length : lower.indexOf('>', at) + 1;
    if (start === 0) break;
    const end = lower.indexOf(close, start);
    if (end === -1) break;
    found.push(html.slice(start, end));
    at = lower.indexOf(open, end + close.length);
  }
  return found;
}

/** The stylesheets, images and inline CSS a page names. */
export function pageParts(html: string, base: string) {
  const abs = (href: string | undefined) => {
    if (!href) return undefined;
    try {
      const u = new URL(href, base);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : undefined;
    } catch {
      return undefined;
    }
  };
  const lower = html.toLowerCase();
  const links = tagsNamed(html, lower, 'link');
  const stylesheets = links
    .filter((l) => /\brel\s*=\s*["']?stylesheet/i.test(l))
    .map((l) => abs(attr(l, 'href')))
    .filter((u): u is string => !!u);
  const icon = links
    .filter((l) => /\brel\s*=\s*["'][^"']*icon/i.test(l))
    .map((l) => abs(attr(l, 'href')))[0];
  const metas = tagsNamed(html, lower, 'meta');
  const ogImage = abs(
    metas.map((m) => (/og:image["']/i.test(m) ? attr(m, 'content') : undefined)).find(Boolean),
  );
  const logo = abs(
    tagsNamed(html, lower, 'img')
      .find((t) => /logo/i.test(t))
      ?.match(/\bsrc\s*=\s*["']([^"']+)["']/i)?.[1],
  );
  const inline = [
    ...between(html, lower, '<style', '</style>'),
    ...between(html, lower, 'style="', '"'),
  ].join('\n');
  const images = [logo, ogImage, icon].filter((u): u is string => !!u);
  // Fonts a page loads from a font service name their families in the address.
  const fontFamilies = links
    .map((l) => attr(l, 'href'))
    .filter((h): h is string => !!h && /fonts\.(googleapis\.com|bunny\.net)\/css/i.test(h))
    .flatMap((h) =>
      [...h.matchAll(/family=([^&:]{1,100})/gi)].map((m) => m[1]!.replace(/\+/g, ' ')),
    )
    .map((f) => {
      try {
        return decodeURIComponent(f).trim();
      } catch {
        return '';
      }
    })
    .filter(Boolean);
  return {
    fontFamilies,
    stylesheets: [...new Set(stylesheets)].slice(0, MAX_STYLESHEETS),
    images: [...new Set(images)].slice(0, MAX_IMAGES),
    logo,
    inline,
  };
}

type Rgb = [number, number, number];
const hex = ([r, g, b]: Rgb) =>
  `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
function parseColor(raw: string): Rgb | undefined {
  const h = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(raw.trim())?.[1];
  if (h) {
    const full = h.length === 3 ? [...h].map((c) => c + c).join('') : h;
    return [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16)) as Rgb;
  }
  const rgb = /^rgba?\(\s*(\d{1,3})[\s,]+(\d{1,3})[\s,]+(\d{1,3})/i.exec(raw.trim());
  if (rgb) return [1, 2, 3].map((i) => Math.min(255, Number(rgb[i]))) as Rgb;
  return undefined;
}
const distance = (a: Rgb, b: Rgb) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
/** Colours this close are one colour told two ways (an image's quantised dominant, say). */
const SAME_COLOR = 32;
const lightness = ([r, g, b]: Rgb) => (Math.max(r, g, b) + Math.min(r, g, b)) / 510;
const saturation = ([r, g, b]: Rgb) => {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  return max === 0 ? 0 : (max - min) / max;
};

/** The colours CSS declares, weighted by how often; fonts by how often they are named. */
export function cssFindings(css: string) {
  const colors = new Map<string, number>();
  const fonts = new Map<string, number>();
  const add = (into: Map<string, number>, key: string, w = 1) =>
    into.set(key, (into.get(key) ?? 0) + w);
  // Declaration by declaration (split at ; { }), each short: linear whatever the sheet holds.
  for (const declaration of css.split(/[;{}]/)) {
    if (declaration.length > 1000) continue;
    const colon = declaration.indexOf(':');
    if (colon === -1) continue;
    const prop = declaration.slice(0, colon).trim().toLowerCase();
    const value = declaration.slice(colon + 1);
    if (/^(--[\w-]{1,100}|(background-)?color|background|border-color|fill|stroke)$/.test(prop))
      for (const token of value.match(/#[0-9a-f]{3,6}\b|rgba?\([^)]{0,60}\)/gi) ?? []) {
        const c = parseColor(token);
        if (c) add(colors, hex(c), prop.startsWith('--') ? 2 : 1);
      }
    else if (prop === 'font-family') {
      const first = value
        .split(',')[0]!
        .trim()
        .replace(/^["']|["']$/g, '')
        .trim();
      if (
        first &&
        !/^(inherit|initial|sans-serif|serif|monospace|system-ui|-apple-system)$/i.test(first)
      )
        add(fonts, first.slice(0, 60));
    }
  }
  return { colors, fonts };
}

/** Colours with roles: the most used saturated ones lead, light and dark neutrals frame. */
export function colorRoles(
  weights: Map<string, number>,
): NonNullable<MemoryDoc['visual']>['colors'] {
  const ranked = [...weights.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const rgb = (h: string) => parseColor(h)!;
  const vivid = ranked.filter(
    ([h]) => saturation(rgb(h)) > 0.25 && lightness(rgb(h)) > 0.12 && lightness(rgb(h)) < 0.92,
  );
  const light = ranked.find(([h]) => saturation(rgb(h)) <= 0.25 && lightness(rgb(h)) >= 0.85);
  const dark = ranked.find(([h]) => saturation(rgb(h)) <= 0.35 && lightness(rgb(h)) <= 0.25);
  const roles = ['primary', 'secondary', 'accent'] as const;
  return [
    ...vivid.slice(0, 3).map(([h], i) => ({ hex: h, role: roles[i]! })),
    ...(light ? [{ hex: light[0], role: 'background' as const }] : []),
    ...(dark ? [{ hex: dark[0], role: 'text' as const }] : []),
  ];
}

/** Tone words, key terms and a reading level from the page's readable text. */
export function voiceFindings(text: string): { tone: string[]; terms: string[]; grade: number } {
  const sentences = [...new Intl.Segmenter('en', { granularity: 'sentence' }).segment(text)]
    .map((s) => s.segment.trim())
    .filter(Boolean);
  const words = [...new Intl.Segmenter('en', { granularity: 'word' }).segment(text)]
    .filter((w) => w.isWordLike)
    .map((w) => w.segment.toLowerCase());
  const n = Math.max(1, words.length);
  const per = (re: RegExp) => words.filter((w) => re.test(w)).length / n;
  const perSentence = words.length / Math.max(1, sentences.length);
  const exclaims = sentences.filter((s) => s.endsWith('!')).length / Math.max(1, sentences.length);
  const tone: string[] = [];
  if (per(/^(you|your|yours)$/) > 0.015) tone.push('direct');
  if (per(/^(we|our|us)$/) > 0.015) tone.push('warm');
  if (exclaims > 0.1) tone.push('energetic');
  tone.push(perSentence <= 14 ? 'concise' : perSentence >= 24 ? 'detailed' : 'clear');
  const counts = new Map<string, number>();
  for (const w of words)
    if ([...w].length >= 4 && !STOPWORDS.has(w) && !/^\d+$/.test(w))
      counts.set(w, (counts.get(w) ?? 0) + 1);
  const terms = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 10)
    .map(([w]) => w);
  // Reading level: words a sentence and letters a word (a rough grade, 1 to 16).
  const letters = words.reduce((sum, w) => sum + [...w].length, 0) / n;
  const grade = Math.max(1, Math.min(16, Math.round(0.39 * perSentence + 2.5 * letters - 8)));
  return { tone, terms, grade };
}

export type GenomeDeps = { pool: Pool; outbound: OutboundPolicy };

export async function runGenome(
  deps: GenomeDeps,
  job: GenomePayload,
  report: ProgressReport,
  finish: FinishInside,
) {
  const failed = (err: unknown): never => {
    throw new JobFailure(
      `Cannot read the brand's page: ${err instanceof OutboundRefused ? err.message : networkReason(err)}.`,
    );
  };
  await report(0.05, 'fetching_page');
  const page = await fetchGuarded(job.url, deps.outbound, MAX_PAGE_BYTES, 'text/html').catch(
    failed,
  );
  if (!/text\/html|xhtml/i.test(page.type))
    throw new JobFailure(
      `${job.url} is not an HTML page (it is ${page.type || 'of no stated type'}).`,
    );
  const html = decodePage(page.body, page.type);
  const parts = pageParts(html, job.url);
  const found: { visual?: MemoryDoc['visual']; voice?: MemoryDoc['voice'] } = {};
  let reading: { terms: string[]; grade: number } | undefined;
  const read = { stylesheets: 0, images: 0 };

  if (job.run !== 'voice') {
    await report(0.2, 'reading_styles');
    let css = parts.inline;
    for (const href of parts.stylesheets) {
      const sheet = await fetchGuarded(href, deps.outbound, MAX_CSS_BYTES, 'text/css').catch(
        () => undefined,
      );
      if (sheet) {
        css += `\n${sheet.body.toString('utf8')}`;
        read.stylesheets++;
      }
    }
    const { colors, fonts } = cssFindings(css);
    for (const family of parts.fontFamilies)
      fonts.set(family.slice(0, 60), (fonts.get(family.slice(0, 60)) ?? 0) + 1);
    await report(0.5, 'reading_images');
    for (const src of parts.images) {
      const image = await fetchGuarded(src, deps.outbound, MAX_IMAGE_BYTES, 'image/*').catch(
        () => undefined,
      );
      if (!image) continue;
      // Raster images only: sharp draws an SVG's filters with no time limit (a 267-byte blur
      // can run for minutes), and a logo's colour is in its PNG or JPEG as well.
      const format = await sharp(image.body, { limitInputPixels: 50_000_000 })
        .metadata()
        .then((m) => m.format)
        .catch(() => undefined);
      if (!format || !['png', 'jpeg', 'webp', 'gif'].includes(format)) continue;
      const stats = await sharp(image.body, { limitInputPixels: 50_000_000 })
        .stats()
        .catch(() => undefined);
      if (!stats) continue;
      read.images++;
      const { r, g, b } = stats.dominant;
      // An image's dominant colour counts like a custom property naming it, as the CSS
      // colour it is close to when there is one (sharp quantises what it finds).
      const near = [...colors.keys()].find((h) => distance(parseColor(h)!, [r, g, b]) < SAME_COLOR);
      const key = near ?? hex([r, g, b]);
      colors.set(key, (colors.get(key) ?? 0) + 2);
    }
    found.visual = {
      colors: colorRoles(colors),
      fonts: [...fonts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([f]) => f),
    };
  }
  if (job.run !== 'visual') {
    await report(0.7, 'reading_text');
    const article = await extractOffThread(html).catch((err: unknown) => {
      if (err instanceof SourceRefused) throw new JobFailure(`${job.url}: ${err.message}.`);
      throw err;
    });
    if (!article && job.run === 'voice')
      throw new JobFailure(`${job.url} has no readable text to learn a voice from.`);
    if (article) {
      const { tone, ...rest } = voiceFindings(article.text);
      found.voice = { tone };
      reading = rest;
    }
  }
  await report(0.9, 'saving');
  // What a page shows is a guess at the brand: below a person's word, above nothing.
  const confidence = 0.6;
  return withTransaction(deps.pool, async (tx) => {
    const { version, kept, written } = await recordInferred(
      tx,
      job.account_id,
      job.brand_id,
      found,
      confidence,
    );
    // Nothing learnt and nothing kept: the run failed, and its credits go back.
    if (!written.length && !kept.length)
      throw new JobFailure(
        `Nothing could be read from ${job.url}: no colours, fonts or text; its credits were given back.`,
      );
    const result = {
      run: job.run,
      read,
      colors: found.visual?.colors ?? [],
      fonts: found.visual?.fonts ?? [],
      tone: found.voice?.tone ?? [],
      key_terms: reading?.terms ?? [],
      reading_grade: reading?.grade ?? null,
      // Sections a person stated are theirs: the genome does not overwrite them.
      kept_as_stated: kept,
      version,
    };
    await finish(tx, result);
    return result;
  });
}
