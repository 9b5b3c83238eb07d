// The built-in generator (the default; no network): a source's sentences ranked by keyword
// weight and position, fitted to each platform its way (its length counted as it counts, a
// numbered thread where it has threads and the text needs one), hashtags from the top
// keywords and the brand's memory, a headline from the title. Deterministic for one input.

import { STOPWORDS } from '../brandMemory/service.ts';
import { platformFitIssues } from '../kernel/platformFit.ts';
import {
  CAPABILITIES,
  PLATFORMS,
  type Platform,
  THREAD_SEPARATOR,
  textLength,
} from '../kernel/platforms.ts';

export type GenerationSource = {
  title: string | null;
  text: string;
  lang?: string | null;
  /** The article's address: the draft links back to it. */
  url?: string | null;
};

/** What the brand's memory asks of every draft. */
export type DraftRules = {
  /** Terms no draft may contain (matched as words, ignoring case). */
  banned: readonly string[];
  /** Hashtags added to every draft, and hashtags never used. */
  always: readonly string[];
  never: readonly string[];
};

export type Draft = {
  platform: Platform;
  kind: 'text' | 'thread';
  body: string;
  hashtags: string | null;
  headline: string | null;
};

/** Platforms a text draft can go to (the others take only media posts). */
export const TEXT_PLATFORMS = PLATFORMS.filter((p) => CAPABILITIES[p].kinds.includes('text'));

/**
 * Source text the generator reads (characters): drafts are a few posts long, and reading
 * more would only hold the worker's event loop, which `npm start` shares with the API.
 */
export const MAX_GENERATOR_TEXT = 40_000;
/** A "sentence" longer than this (text without stops) is read as pieces of about PIECE. */
const LONG_SENTENCE = 280;
const PIECE = 240;

/** Thread parts a draft uses at most, whatever the platform allows. */
export const MAX_DRAFT_PARTS = 5;
/** Hashtags a draft carries from its keywords (the memory's `always` come on top). */
const KEYWORD_TAGS = 2;

const normalTag = (tag: string) => `#${tag.replace(/^#/, '')}`;
const sameTag = (a: string, b: string) => normalTag(a).toLowerCase() === normalTag(b).toLowerCase();

function segments(text: string, lang: string, granularity: 'sentence' | 'word') {
  return [...new Intl.Segmenter(lang, { granularity }).segment(text)];
}

/** The text's words as keys: lower case, word-like, not stop words. */
function wordsOf(text: string, lang: string): string[] {
  return segments(text, lang, 'word')
    .filter((s) => s.isWordLike)
    .map((s) => s.segment.toLowerCase());
}

/** Whether `text` holds `term` as a word or phrase, ignoring case. */
export function containsTerm(text: string, term: string): boolean {
  return bannedMatcher([term])(text);
}

/**
 * One test for all of `terms` (words or phrases, ignoring case), compiled once: drafts check
 * every sentence, keyword and hashtag against up to 100 banned terms.
 */
export function bannedMatcher(terms: readonly string[]): (text: string) => boolean {
  const escaped = terms
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (!escaped.length) return () => false;
  const re = new RegExp(`(^|[^\\p{L}\\p{N}_])(${escaped.join('|')})($|[^\\p{L}\\p{N}_])`, 'iu');
  return (text) => re.test(text);
}

/**
 * The brand's hashtags on a draft: the memory's `always` first, then `candidates` (at most
 * `extra` of them), none in `never`, none holding a banned term, each once; both generators
 * use it, so a model's tags follow the same rules as the built-in ones.
 */
export function brandHashtags(
  candidates: readonly string[],
  rules: DraftRules,
  extra = Number.POSITIVE_INFINITY,
): string | null {
  // A hashtag runs words together (#CheapBread): any banned term inside it counts.
  const terms = rules.banned.map((t) => t.toLowerCase().replace(/[^\p{L}\p{N}_]/gu, ''));
  const banned = (word: string) => terms.some((t) => t && word.toLowerCase().includes(t));
  const tags: string[] = [];
  let added = 0;
  const add = (raw: string, counted: boolean) => {
    const word = raw.replace(/^#/, '').replace(/[^\p{L}\p{N}_]/gu, '');
    if (!word || rules.never.some((n) => sameTag(n, word)) || banned(word)) return;
    if (tags.some((t) => sameTag(t, word))) return;
    if (counted && added >= extra) return;
    tags.push(normalTag(word));
    if (counted) added++;
  };
  for (const tag of rules.always) add(tag, false);
  for (const tag of candidates) add(tag, true);
  return tags.length ? tags.join(' ') : null;
}

type Ranked = { text: string; index: number; score: number };

/** A sentence, or a long run of text without stops cut at words into pieces of about PIECE. */
function piecesOf(sentence: string): string[] {
  if (sentence.length <= LONG_SENTENCE) return [sentence];
  const pieces: string[] = [];
  let current = '';
  for (const word of sentence.split(' ')) {
    if (current && current.length + word.length + 1 > PIECE) {
      pieces.push(current);
      current = '';
    }
    current = current ? `${current} ${word}` : word.slice(0, PIECE);
  }
  if (current) pieces.push(current);
  return pieces;
}

/** The source's paragraphs and sentences (a paragraph without a stop is one), scored. */
function rankSentences(source: GenerationSource, rules: DraftRules, lang: string) {
  const text = source.text.slice(0, MAX_GENERATOR_TEXT);
  const banned = bannedMatcher(rules.banned);
  const sentences = text
    .split(/\n\s*\n/)
    .flatMap((paragraph) => segments(paragraph, lang, 'sentence'))
    .map((s) => s.segment.replace(/\s+/g, ' ').trim())
    .flatMap(piecesOf)
    .filter((s) => [...s].length >= 12);
  // A source of one short line is still something to say.
  if (!sentences.length && text.trim()) sentences.push(text.replace(/\s+/g, ' ').trim());
  const weight = new Map<string, number>();
  for (const w of wordsOf(`${source.title ?? ''} ${text}`, lang))
    if ([...w].length >= 4 && !STOPWORDS.has(w) && !/^\d+$/.test(w))
      weight.set(w, (weight.get(w) ?? 0) + 1);
  const ranked: Ranked[] = sentences
    .map((text, index) => {
      const words = wordsOf(text, lang);
      const sum = words.reduce((n, w) => n + (weight.get(w) ?? 0), 0);
      // Keyword density, and a lead for the opening sentences (articles say it first).
      const score = sum / Math.sqrt(words.length + 1) + 3 / (1 + index);
      return { text, index, score };
    })
    .filter((s) => !banned(s.text));
  // Only the top few become hashtags: rank them, and test only those for banned terms.
  const keywords = [...weight.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 20)
    .map(([w]) => w)
    .filter((w) => /^[\p{L}\p{N}_]+$/u.test(w) && !banned(w));
  return { ranked, keywords };
}

/**
 * `text` cut at a word, with "…", to the longest that `fits` (at most `max` units as the
 * platform counts them): a binary search over the word count, so a long text costs a few
 * measurements, not one a word.
 */
function cutToFit(text: string, max: number, fits: (t: string) => boolean): string {
  if (fits(text)) return text;
  const words = text.split(' ');
  const cut = (n: number) =>
    `${words
      .slice(0, n)
      .join(' ')
      .replace(/[,;:.!?-]+$/, '')}…`;
  let lo = 0;
  let hi = words.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(cut(mid))) lo = mid;
    else hi = mid - 1;
  }
  if (lo > 0) return cut(lo);
  // One word longer than the post (text without spaces): cut it by characters the same way.
  const chars = [...text];
  const head = (n: number) => `${chars.slice(0, n).join('')}…`;
  lo = 0;
  hi = Math.min(chars.length, max);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(head(mid))) lo = mid;
    else hi = mid - 1;
  }
  return head(Math.max(1, lo));
}

/** One platform's draft of `source` under the brand's `rules`. */
export function offlineDraft(
  source: GenerationSource,
  platform: Platform,
  rules: DraftRules,
): Draft {
  const caps = CAPABILITIES[platform];
  const lang = source.lang || 'en';
  const { ranked, keywords } = rankSentences(source, rules, lang);
  const hashtags = brandHashtags(keywords, rules, KEYWORD_TAGS);
  const title = source.title?.replace(/\s+/g, ' ').trim() || null;
  const headline =
    title && !bannedMatcher(rules.banned)(title) ? [...title].slice(0, 120).join('') : null;
  const length = (t: string) => textLength(t, caps.countBy);
  // The last (or only) post ends with the link to the article, then the hashtags.
  const link = source.url ? `\n\n${source.url}` : '';
  const tail = `${link}${hashtags ? `\n\n${hashtags}` : ''}`;
  const fitsWithTags = (t: string) => length(t + tail) <= caps.maxText;
  const fitsAlone = (t: string) => length(t) <= caps.maxText;
  const linked = (t: string) => (link && length(t + tail) <= caps.maxText ? t + link : t);

  // The best sentences, in the order the source has them.
  const best = [...ranked].sort((a, b) => b.score - a.score || a.index - b.index);
  const inOrder = (picked: Ranked[]) => [...picked].sort((a, b) => a.index - b.index);
  const lead = headline && !best.some((s) => s.text.startsWith(headline)) ? `${headline}\n\n` : '';
  if (!best.length) {
    const body = linked(cutToFit(headline ?? 'New post', caps.maxText, fitsWithTags));
    return finish({ platform, kind: 'text', body, hashtags, headline });
  }

  // One post: as many of the best sentences as fit beside the hashtags.
  const single: Ranked[] = [];
  for (const s of best) {
    const candidate =
      lead +
      inOrder([...single, s])
        .map((x) => x.text)
        .join(' ');
    if (fitsWithTags(candidate)) single.push(s);
  }
  const threadable = caps.maxThreadParts >= 2;
  const wantsThread = threadable && single.length < Math.min(3, best.length);
  if (!wantsThread) {
    const body = single.length
      ? lead +
        inOrder(single)
          .map((x) => x.text)
          .join(' ')
      : cutToFit(lead + best[0]!.text, caps.maxText, fitsWithTags);
    return finish({ platform, kind: 'text', body: linked(body), hashtags, headline });
  }

  // A thread: numbered parts of whole sentences, the hashtags on the last part.
  const partsMax = Math.min(caps.maxThreadParts, MAX_DRAFT_PARTS);
  const chosen = inOrder(best.slice(0, partsMax * 3));
  const numbered = (n: number, of: number, t: string) => `${n}/${of} ${t}`;
  const pack = (of: number) => {
    const parts: string[] = [];
    // The headline opens the first part on a line of its own (unless the text starts with it).
    let current = headline && !chosen[0]?.text.startsWith(headline) ? headline : '';
    for (const s of chosen) {
      const after = current === headline && !parts.length ? '\n\n' : ' ';
      const next = current ? `${current}${after}${s.text}` : s.text;
      if (fitsAlone(numbered(parts.length + 1, of, next)) || !current) {
        current = fitsAlone(numbered(parts.length + 1, of, next))
          ? next
          : cutToFit(next, caps.maxText - 6, (t) => fitsAlone(numbered(parts.length + 1, of, t)));
        continue;
      }
      parts.push(current);
      if (parts.length === of) return parts;
      current = s.text;
    }
    if (current && parts.length < of) parts.push(current);
    return parts;
  };
  let parts = pack(partsMax);
  parts = pack(Math.max(2, parts.length));
  if (parts.length < 2) {
    const body = linked(cutToFit(parts[0] ?? best[0]!.text, caps.maxText, fitsWithTags));
    return finish({ platform, kind: 'text', body, hashtags, headline });
  }
  const of = parts.length;
  const texts = parts.map((p, i) => {
    const last = i === of - 1;
    return cutToFit(p, caps.maxText, (t) =>
      (last ? fitsWithTags : fitsAlone)(numbered(i + 1, of, t)),
    );
  });
  const body = texts
    .map((t, i) => numbered(i + 1, of, i === of - 1 ? linked(t) : t))
    .join(`\n${THREAD_SEPARATOR}\n`);
  return finish({ platform, kind: 'thread', body, hashtags, headline });
}

/** Why the draft's platform would refuse it as a text post (none: it takes it). */
export const draftIssues = (d: Pick<Draft, 'platform' | 'kind' | 'body' | 'hashtags'>) =>
  platformFitIssues({
    platform: d.platform,
    kind: d.kind,
    body: d.body,
    hashtags: d.hashtags,
    media: [],
  });

/** A draft the platform would refuse is cut back to one post that fits: never refused. */
function finish(draft: Draft): Draft {
  const takes = (d: Draft) => draftIssues(d).length === 0;
  if (takes(draft)) return draft;
  const caps = CAPABILITIES[draft.platform];
  const tail = draft.hashtags ? `\n\n${draft.hashtags}` : '';
  const first = draft.body.split(`\n${THREAD_SEPARATOR}\n`)[0]!.replace(/^\d+\/\d+ /, '');
  const body = cutToFit(
    first,
    caps.maxText,
    (t) => textLength(t + tail, caps.countBy) <= caps.maxText,
  );
  const single: Draft = { ...draft, kind: 'text', body };
  return takes(single) ? single : { ...single, hashtags: null };
}
