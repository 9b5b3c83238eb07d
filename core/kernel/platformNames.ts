// The platforms and post kinds by name: plain data with no imports, so the dashboard's types
// (built without Node's) can take them from here through core's schemas.
export const PLATFORMS = [
  'bluesky',
  'mastodon',
  'x',
  'linkedin',
  'threads',
  'instagram',
  'facebook',
  'tiktok',
  'youtube',
  'pinterest',
] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Each platform as its users write it: every user-facing text names a platform so. */
export const PLATFORM_NAMES: Record<Platform, string> = {
  bluesky: 'Bluesky',
  mastodon: 'Mastodon',
  x: 'X',
  linkedin: 'LinkedIn',
  threads: 'Threads',
  instagram: 'Instagram',
  facebook: 'Facebook',
  tiktok: 'TikTok',
  youtube: 'YouTube',
  pinterest: 'Pinterest',
};

export const KINDS = ['text', 'image', 'video', 'carousel', 'story', 'reel', 'thread'] as const;
export type Kind = (typeof KINDS)[number];

/** What an uploaded medium is, by its type. */
export type MediaKind = 'image' | 'video' | 'audio';
