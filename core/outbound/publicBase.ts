// Whether a platform on the internet could reach PUBLIC_BASE_URL, judged from the address
// alone (no lookup): platforms that fetch media (Threads, Instagram) fetch it there.
import { isPublicAddress } from './addresses.ts';

/** Names that only resolve on this machine or a private network. */
const PRIVATE_NAME = /(^|\.)(localhost|local|internal)$/;

/** What kind of address `host` is, when it is one the internet cannot reach; else null. */
function privateKind(host: string): string | null {
  const name = host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (PRIVATE_NAME.test(name)) return `${name} is a name for this machine or a private network`;
  // A name that is not an IP literal may be public: the platforms resolve it themselves.
  if (!/^[\d.]+$/.test(name) && !name.includes(':')) return null;
  return isPublicAddress(name) ? null : `${name} is a loopback, private or reserved address`;
}

/**
 * Why a platform on the internet cannot fetch from `publicBaseUrl`, as a sentence naming
 * PUBLIC_BASE_URL; null when it looks reachable (a public address or a name).
 */
export function publicBaseUnreachable(publicBaseUrl: string): string | null {
  let host: string;
  try {
    host = new URL(publicBaseUrl).hostname;
  } catch {
    return `PUBLIC_BASE_URL (${publicBaseUrl}) is not an address: set it to the service's public address.`;
  }
  const kind = privateKind(host);
  return kind
    ? `PUBLIC_BASE_URL (${publicBaseUrl}) is not reachable from the internet (${kind}), so platforms on the internet cannot fetch media from it: set PUBLIC_BASE_URL to the service's public address.`
    : null;
}
