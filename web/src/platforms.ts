// The platforms the pages offer to write for (a subset of core/kernel/platforms.ts, which
// the page does not import: it carries the platforms' text counting, measured on the server).
export const PLATFORMS = ['bluesky', 'mastodon', 'x', 'linkedin', 'threads', 'facebook'] as const;
