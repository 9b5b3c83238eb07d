// What each platform can carry (CONTRACT.md: "Platforms"). A post is checked against this
// table when it is created or edited, so a post its platform would refuse never reaches the
// publication queue. Figures are the platforms' documented limits for ordinary accounts.
import { createRequire } from 'node:module';
import type { parseTweet } from 'twitter-text';
import { type Kind, PLATFORMS, type Platform } from './platformNames.ts';

export { KINDS, type Kind, type MediaKind, PLATFORMS, type Platform } from './platformNames.ts';

export type Capabilities = {
  /** Longest published text (body plus hashtags). */
  maxText: number;
  /**
   * How text length is counted: Bluesky counts graphemes, X weighs characters (its own
   * twitter-text library: a URL counts 23, an emoji or a CJK character 2), Threads counts
   * characters but each emoji as its UTF-8 bytes, the others count characters.
   */
  countBy: 'grapheme' | 'x-weighted' | 'emoji-bytes' | 'character';
  kinds: readonly Kind[];
  /** Most images on an `image` post. */
  maxImages: number;
  /** Most items on a `carousel` post (0: no carousels). */
  maxCarouselItems: number;
  /** Most parts of a `thread` (0: no threads). */
  maxThreadParts: number;
  /** A carousel of images only (LinkedIn's multi-image post); else images or videos. */
  carouselImagesOnly?: boolean;
  /** Each image must have fewer pixels than this, where the platform says so. */
  imagePixelsBelow?: number;
  /** Sizes and durations of attachments, where the platform documents them. */
  mediaLimits?: MediaLimits;
  /** Most `#hashtags` in the published text (body and hashtags), where the platform caps them. */
  maxHashtags?: number;
  /**
   * The widest range of an image's width to height that a feed post takes (a story is shown
   * full screen and is not held to it), with the range as the platform writes it.
   */
  imageAspect?: { min: number; max: number; said: string };
};

export type MediaLimits = {
  /** Largest still image (a GIF is counted apart). */
  imageBytes: number;
  gifBytes: number;
  videoBytes: number;
  /** Shortest and longest video, in seconds. */
  videoSeconds: readonly [min: number, max: number];
  /** A GIF is a post's only attachment, as a video is. */
  gifAlone: boolean;
};

const MB = 1024 * 1024;

export const CAPABILITIES: Record<Platform, Capabilities> = {
  // docs.bsky.app: app.bsky.feed.post text maxGraphemes 300; embed.images max 4.
  bluesky: {
    maxText: 300,
    countBy: 'grapheme',
    kinds: ['text', 'image', 'video', 'thread'],
    maxImages: 4,
    maxCarouselItems: 0,
    maxThreadParts: 25,
  },
  // docs.joinmastodon.org: default instance limits, 500 characters and 4 attachments (each
  // instance publishes its own in /api/v2/instance; the connector refines this).
  mastodon: {
    maxText: 500,
    countBy: 'character',
    kinds: ['text', 'image', 'video', 'thread'],
    maxImages: 4,
    maxCarouselItems: 0,
    maxThreadParts: 25,
  },
  // developer.x.com: 280 weighted characters for standard accounts ("counting characters");
  // 4 images, or 1 GIF, or 1 video; images up to 5 MB, GIFs 15 MB, video 512 MB and 0.5 to
  // 140 s (x-api/media/quickstart/best-practices).
  x: {
    maxText: 280,
    countBy: 'x-weighted',
    kinds: ['text', 'image', 'video', 'thread'],
    maxImages: 4,
    maxCarouselItems: 0,
    maxThreadParts: 25,
    mediaLimits: {
      imageBytes: 5 * MB,
      gifBytes: 15 * MB,
      videoBytes: 512 * MB,
      videoSeconds: [0.5, 140],
      gifAlone: true,
    },
  },
  // learn.microsoft.com (Posts API, MultiImage API, Images API): commentary up to 3,000
  // characters; one image, or a multi-image post of 2-20 images (an `image` post with several,
  // or a `carousel`: images only); images of fewer than 36,152,320 pixels.
  linkedin: {
    maxText: 3000,
    countBy: 'character',
    kinds: ['text', 'image', 'video', 'carousel'],
    maxImages: 20,
    maxCarouselItems: 20,
    maxThreadParts: 0,
    carouselImagesOnly: true,
    imagePixelsBelow: 36_152_320,
  },
  // developers.facebook.com (Threads API, Posts): 500 characters, emoji counted as their
  // UTF-8 bytes; one image or video, or a carousel of 2-20. Images JPEG/PNG up to 8 MB,
  // video up to 1 GB and 5 minutes (Meta's media specifications, as third parties quote them).
  threads: {
    maxText: 500,
    countBy: 'emoji-bytes',
    kinds: ['text', 'image', 'video', 'carousel', 'thread'],
    maxImages: 1,
    maxCarouselItems: 20,
    maxThreadParts: 25,
    mediaLimits: {
      imageBytes: 8 * MB,
      gifBytes: 8 * MB,
      videoBytes: 1024 * MB,
      videoSeconds: [0, 300],
      gifAlone: false,
    },
  },
  // developers.facebook.com (Instagram Platform, content publishing and IG User Media):
  // captions 2,200 characters with at most 30 hashtags; no text-only post; one image, a
  // carousel of 2-10, a reel (a single video is published as one); JPEG images up to 8 MB of
  // aspect 4:5 to 1.91:1; reels up to 1 GB lasting 3 s to 15 minutes.
  instagram: {
    maxText: 2200,
    countBy: 'character',
    kinds: ['image', 'video', 'carousel', 'story', 'reel'],
    maxImages: 1,
    maxCarouselItems: 10,
    maxThreadParts: 0,
    maxHashtags: 30,
    imageAspect: { min: 4 / 5, max: 1.91, said: '4:5 to 1.91:1' },
    mediaLimits: {
      imageBytes: 8 * MB,
      gifBytes: 8 * MB,
      videoBytes: 1024 * MB,
      videoSeconds: [3, 900],
      gifAlone: false,
    },
  },
  // developers.facebook.com (Pages API): 63,206 characters; one photo, or several (up to 10,
  // as publishing tools document it) as unpublished photos attached to one post, images only;
  // one video. Page stories and reels (their own APIs) are not published by this version.
  facebook: {
    maxText: 63206,
    countBy: 'character',
    kinds: ['text', 'image', 'video', 'carousel'],
    maxImages: 10,
    maxCarouselItems: 10,
    maxThreadParts: 0,
    carouselImagesOnly: true,
  },
  // developers.tiktok.com (Content Posting API): captions 2,200; photo posts up to 35 images.
  tiktok: {
    maxText: 2200,
    countBy: 'character',
    kinds: ['video', 'carousel'],
    maxImages: 0,
    maxCarouselItems: 35,
    maxThreadParts: 0,
  },
  // developers.google.com (YouTube Data API): descriptions 5,000; Shorts as `reel`.
  youtube: {
    maxText: 5000,
    countBy: 'character',
    kinds: ['video', 'reel'],
    maxImages: 0,
    maxCarouselItems: 0,
    maxThreadParts: 0,
  },
  // developers.pinterest.com: pin descriptions 500; carousel pins 2-5 images.
  pinterest: {
    maxText: 500,
    countBy: 'character',
    kinds: ['image', 'video', 'carousel'],
    maxImages: 1,
    maxCarouselItems: 5,
    maxThreadParts: 0,
  },
};

/**
 * The platforms this version publishes to: those with a connector (core/connectors/builtin.ts,
 * kept equal by a test). A post for another is saved and scheduled, and fails when it is due,
 * so its answer and the platform's state say so.
 */
export const PUBLISHING_PLATFORMS = [
  'bluesky',
  'mastodon',
  'x',
  'linkedin',
  'threads',
  'instagram',
  'facebook',
] as const satisfies readonly Platform[];

/**
 * The platforms this version publishes to that fetch a post's media themselves from an address
 * under PUBLIC_BASE_URL (PublicMedia), so that address must be reachable from the internet for
 * them (Pinterest will, once published to).
 */
export const FETCHES_MEDIA = [
  'threads',
  'instagram',
] as const satisfies readonly (typeof PUBLISHING_PLATFORMS)[number][];

/** Whether a post for `platform` can be published by this version. */
export const publishes = (platform: Platform): boolean =>
  (PUBLISHING_PLATFORMS as readonly Platform[]).includes(platform);

// Both counters load on first use: the segmenter's ICU data and twitter-text's URL and emoji
// tables cost a process that never checks a post (the operator CLI) about 0.2 s at start.
let graphemes: Intl.Segmenter | undefined;
let weighX: typeof parseTweet | undefined;
const require = createRequire(import.meta.url);

/** Characters past which X's weighting is not computed (see textLength). */
const X_PARSE_LIMIT = 4_000;

const utf8 = new TextEncoder();
/** An emoji: a pictograph (with its modifiers and joins), a flag, or a keycap. */
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/** Text length the way the platform counts it. */
export function textLength(text: string, countBy: Capabilities['countBy']): number {
  if (countBy === 'character') return [...text].length;
  if (countBy === 'emoji-bytes') {
    // Threads: "emojis are counted as the number of UTF-8 bytes" (of the whole emoji, its
    // joiners and variation selectors included); every other character counts 1.
    graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
    let n = 0;
    for (const { segment } of graphemes.segment(text))
      n += EMOJI.test(segment) ? utf8.encode(segment).length : [...segment].length;
    return n;
  }
  if (countBy === 'x-weighted') {
    // twitter-text's parse grows with the square of some texts' length (seconds for a 70 KB
    // run of "a-b."), on the caller's event loop: a text this long is far past X's 280 in any
    // case, and counted by its characters.
    if (text.length > X_PARSE_LIMIT) return [...text].length;
    // The one module that counts (the package's index loads autolinking and the rest too).
    weighX ??= require('twitter-text/dist/parseTweet.js') as typeof parseTweet;
    return weighX(text).weightedLength;
  }
  graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  let n = 0;
  for (const _ of graphemes.segment(text)) n++;
  return n;
}

/** A text's length on each platform, counted its way, beside its limit (the composer's counters). */
export function measureText(text: string) {
  return Object.fromEntries(
    PLATFORMS.map((p) => {
      const c = CAPABILITIES[p];
      return [
        p,
        { length: textLength(text, c.countBy), max: c.maxText, unit: LENGTH_UNIT[c.countBy].unit },
      ];
    }),
  ) as Record<Platform, { length: number; max: number; unit: string }>;
}

/** The unit of `textLength`, and how it counts when that is not obvious, for messages. */
export const LENGTH_UNIT: Record<Capabilities['countBy'], { unit: string; note?: string }> = {
  grapheme: { unit: 'graphemes' },
  'x-weighted': {
    unit: 'weighted characters',
    note: 'a URL counts 23, an emoji or a CJK character 2',
  },
  'emoji-bytes': { unit: 'characters', note: 'an emoji counts as its UTF-8 bytes, most of them 4' },
  character: { unit: 'characters' },
};

/** A line holding only `---` separates the parts of a `thread` post. */
/** The line between a thread's parts in a post body. */
export const THREAD_SEPARATOR = '---';

export const splitThread = (body: string): string[] =>
  body
    .split(/^\s*---\s*$/m)
    .map((part) => part.trim())
    .filter(Boolean);
