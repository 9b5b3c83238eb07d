// How the pages write sizes and our own addresses.

/** Bytes as KB, MB or GB. */
export const byteSize = (bytes: number) =>
  bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(1)} GB`
    : bytes >= 1024 ** 2
      ? `${(bytes / 1024 ** 2).toFixed(bytes < 10 * 1024 ** 2 ? 1 : 0)} MB`
      : `${Math.ceil(bytes / 1024)} KB`;

/** An address of ours as a path: signed addresses name PUBLIC_BASE_URL, the page its origin. */
export const sameOriginPath = (url: string) => {
  const u = new URL(url, window.location.origin);
  return `${u.pathname}${u.search}`;
};

/** A platform's address for a post, when it is a web address (nothing else becomes a link). */
export const webLink = (url: string | null) => (url && /^https?:\/\//i.test(url) ? url : null);
