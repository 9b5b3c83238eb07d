// Checks a post against its platform's capabilities and infers its kind when omitted. Every
// refusal says what the platform allows, so the caller knows what to change.
import type { ValidationIssue } from './errors.ts';
import {
  CAPABILITIES,
  type Kind,
  LENGTH_UNIT,
  type MediaKind,
  type Platform,
  splitThread,
  textLength,
} from './platforms.ts';
import { formatBytes } from './sizes.ts';

export type PostShape = {
  platform: Platform;
  kind: Kind;
  body: string;
  hashtags: string | null;
  /** Kinds of the attached assets, in order. */
  media: MediaKind[];
  /** What is known of each attached asset, in order, for the platforms' size limits. */
  facts?: MediaFacts[];
};

/** An attachment as the size and duration limits read it; null where it is not known. */
export type MediaFacts = {
  id: string | null;
  kind: MediaKind;
  mime: string;
  bytes: number | null;
  durationS: number | null;
  /** Width × height of an image, where known. */
  pixels: number | null;
  /** An image's width and height in pixels, where known (its aspect ratio). */
  width?: number | null;
  height?: number | null;
};

/** The text the platform receives: the body, then the hashtags on their own paragraph. */
export const publishedText = (body: string, hashtags: string | null) =>
  hashtags ? `${body}\n\n${hashtags}` : body;

/** The texts the platform receives, one per record: a thread's parts, hashtags on the last. */
export function publishedParts(kind: Kind, body: string, hashtags: string | null): string[] {
  if (kind !== 'thread') return [publishedText(body, hashtags)];
  const parts = splitThread(body);
  if (parts.length) parts[parts.length - 1] = publishedText(parts.at(-1)!, hashtags);
  return parts;
}

/** The kind a post gets when none is given: from its media, `text` without any. */
export function inferKind(platform: Platform, media: MediaKind[]): Kind {
  if (media.length === 0) return 'text';
  const caps = CAPABILITIES[platform];
  if (media.length === 1) return media[0] === 'video' ? 'video' : 'image';
  if (media.every((m) => m === 'image') && media.length <= caps.maxImages) return 'image';
  return 'carousel';
}

const issue = (field: string, msg: string): ValidationIssue => ({
  loc: ['body', field],
  msg,
  type: 'platform_capability',
});

function mediaIssues(p: PostShape): ValidationIssue[] {
  const caps = CAPABILITIES[p.platform];
  const n = p.media.length;
  const images = p.media.filter((m) => m === 'image').length;
  const videos = p.media.filter((m) => m === 'video').length;
  const need = (msg: string) => [issue('asset_ids', `a ${p.kind} post on ${p.platform} ${msg}`)];
  switch (p.kind) {
    case 'text':
    case 'thread':
      return n ? need('carries no media; use kind "image", "video" or "carousel"') : [];
    case 'image':
      if (n < 1 || videos) return need('needs 1 or more images and no video');
      if (images > caps.maxImages)
        return need(`carries at most ${caps.maxImages} image(s); use kind "carousel" for more`);
      return [];
    case 'video':
    case 'reel':
      return n === 1 && videos === 1 ? [] : need('needs exactly one video');
    case 'story':
      return n === 1 ? [] : need('needs exactly one image or video');
    case 'carousel':
      if (caps.carouselImagesOnly && (n < 2 || n > caps.maxCarouselItems || videos))
        return need(`needs 2 to ${caps.maxCarouselItems} images and no video; it has ${n} item(s)`);
      if (n < 2 || n > caps.maxCarouselItems)
        return need(`needs 2 to ${caps.maxCarouselItems} images or videos; it has ${n}`);
      return [];
  }
}

function pixelIssues(p: PostShape): ValidationIssue[] {
  const below = CAPABILITIES[p.platform].imagePixelsBelow;
  if (!below || !p.facts) return [];
  return p.media.flatMap((kind, i) => {
    const pixels = p.facts?.[i]?.pixels;
    if (kind !== 'image' || !pixels || pixels < below) return [];
    return [
      {
        loc: ['body', 'asset_ids', i],
        msg: `${p.platform} takes images of fewer than ${below.toLocaleString('en')} pixels; this one has ${pixels.toLocaleString('en')}`,
        type: 'platform_capability',
      },
    ];
  });
}

/** Images outside the aspect ratios the platform's feed takes, each named with its own. */
function aspectIssues(p: PostShape): ValidationIssue[] {
  const aspect = CAPABILITIES[p.platform].imageAspect;
  if (!aspect || !p.facts || p.kind === 'story') return [];
  return p.facts.flatMap((f, i) => {
    if (f.kind !== 'image' || !f.width || !f.height) return [];
    const ratio = f.width / f.height;
    // Meta compares ratios as written (1.91:1), so a hair past them from rounding is taken.
    if (ratio >= aspect.min - 0.005 && ratio <= aspect.max + 0.005) return [];
    return [
      {
        loc: ['body', 'asset_ids', i],
        msg: `${p.platform} takes images of aspect ratio ${aspect.said} (width to height); ${f.id ? `asset ${f.id}` : `attachment ${i + 1}`} is ${f.width}×${f.height} (${(Math.round(ratio * 100) / 100).toString()}:1): crop it to fit`,
        type: 'platform_capability',
      },
    ];
  });
}

/** A `#tag` as platforms link it: after a start, a space or punctuation, never inside a word. */
const HASHTAG = /(?<![\p{L}\p{N}_&#])#[\p{L}\p{N}_]*\p{L}[\p{L}\p{N}_]*/gu;

/** Hashtags past the platform's cap, counted in the text it receives. */
function hashtagIssues(p: PostShape): ValidationIssue[] {
  const max = CAPABILITIES[p.platform].maxHashtags;
  if (max === undefined) return [];
  const count = publishedText(p.body, p.hashtags).match(HASHTAG)?.length ?? 0;
  if (count <= max) return [];
  return [
    issue(
      p.hashtags && (p.body.match(HASHTAG)?.length ?? 0) <= max ? 'hashtags' : 'body',
      `${p.platform} allows at most ${max} hashtags in a post (body and hashtags together); this post has ${count}`,
    ),
  ];
}

/** Attachments past the platform's documented sizes and durations, each named. */
function mediaLimitIssues(p: PostShape): ValidationIssue[] {
  const limits = CAPABILITIES[p.platform].mediaLimits;
  if (!limits || !p.facts?.length) return [];
  const out: ValidationIssue[] = [];
  const isGif = (f: MediaFacts) => f.mime.toLowerCase() === 'image/gif';
  if (limits.gifAlone && p.facts.length > 1 && p.facts.some(isGif))
    out.push(
      issue(
        'asset_ids',
        `a GIF goes alone on ${p.platform}: 1 GIF, 1 video or up to ${CAPABILITIES[p.platform].maxImages} images`,
      ),
    );
  for (const [i, f] of p.facts.entries()) {
    const name = f.id ? `asset ${f.id}` : `attachment ${i + 1}`;
    const what = f.kind === 'video' ? 'a video' : isGif(f) ? 'a GIF' : 'an image';
    const max =
      f.kind === 'video' ? limits.videoBytes : isGif(f) ? limits.gifBytes : limits.imageBytes;
    // "5 MB" past a limit of 5 MB would read as within it.
    const size = (b: number) =>
      formatBytes(b) === formatBytes(max) ? `more than ${formatBytes(max)}` : formatBytes(b);
    if (f.bytes !== null && f.bytes > max)
      out.push(
        issue(
          'asset_ids',
          `${what} on ${p.platform} is at most ${formatBytes(max)}; ${name} has ${size(f.bytes)}`,
        ),
      );
    const [min, longest] = limits.videoSeconds;
    if (f.kind === 'video' && f.durationS !== null && (f.durationS < min || f.durationS > longest))
      out.push(
        issue(
          'asset_ids',
          `a video on ${p.platform} lasts ${min} to ${longest} s; ${name} lasts ${Math.round(f.durationS * 10) / 10} s`,
        ),
      );
  }
  return out;
}

function textIssues(p: PostShape): ValidationIssue[] {
  const caps = CAPABILITIES[p.platform];
  const { unit, note } = LENGTH_UNIT[caps.countBy];
  if (p.kind === 'thread') {
    const parts = publishedParts(p.kind, p.body, p.hashtags);
    if (parts.length < 2 || parts.length > caps.maxThreadParts)
      return [
        issue(
          'body',
          `a thread on ${p.platform} needs 2 to ${caps.maxThreadParts} parts separated by lines holding only "---"; it has ${parts.length}`,
        ),
      ];
    const long = parts.findIndex((part) => textLength(part, caps.countBy) > caps.maxText);
    if (long === -1) return [];
    return [
      issue(
        'body',
        `part ${long + 1} of the thread is ${textLength(parts[long]!, caps.countBy)} ${unit}; ${p.platform} allows ${caps.maxText}${note ? ` (${note})` : ''}`,
      ),
    ];
  }
  if (!p.body.trim() && p.media.length === 0)
    return [issue('body', 'a post without media needs some text')];
  const length = textLength(publishedText(p.body, p.hashtags), caps.countBy);
  if (length <= caps.maxText) return [];
  return [
    issue(
      'body',
      `${p.platform} allows ${caps.maxText} ${unit} (body and hashtags together${note ? `; ${note}` : ''}); this post has ${length}`,
    ),
  ];
}

/** Why the platform cannot carry this post; empty when it can. */
export function platformFitIssues(p: PostShape): ValidationIssue[] {
  const caps = CAPABILITIES[p.platform];
  if (!caps.kinds.includes(p.kind))
    return [issue('kind', `${p.platform} takes kind ${caps.kinds.join(', ')}; not "${p.kind}"`)];
  return [
    ...mediaIssues(p),
    ...pixelIssues(p),
    ...aspectIssues(p),
    ...mediaLimitIssues(p),
    ...textIssues(p),
    ...hashtagIssues(p),
  ];
}
