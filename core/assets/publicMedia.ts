// The service's PublicMedia: day-long signed addresses of assets under PUBLIC_BASE_URL, for
// the platforms that fetch media themselves (FETCHES_MEDIA), served by GET /media/platform/:id.
import { PublicationError, type PublicMedia } from '../connectors/schema.ts';
import { PLATFORM_NAMES } from '../kernel/platformNames.ts';
import { FETCHES_MEDIA } from '../kernel/platforms.ts';
import { publicBaseUnreachable } from '../outbound/publicBase.ts';
import { assetUrlKey, signPlatformMediaUrl } from './signedUrls.ts';

const names = FETCHES_MEDIA.map((p) => PLATFORM_NAMES[p]);
/** The platforms that fetch media, as a sentence names them: "Threads and Instagram". */
const fetchers =
  names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('');

/**
 * Public media addresses from PUBLIC_BASE_URL and the media-URL secret (MEDIA_URL_SECRET or
 * DATA_DIR/secrets.json: the API's, or its addresses would not verify). Without the secret
 * every address is refused with a final failure saying what to set; `unreachable` says when
 * PUBLIC_BASE_URL is a loopback, private or local address.
 */
export function publicMediaFor(settings: {
  publicBaseUrl: string;
  mediaUrlSecret: string | undefined;
}): PublicMedia {
  const base = settings.publicBaseUrl.replace(/\/+$/, '');
  const key = settings.mediaUrlSecret ? assetUrlKey(settings.mediaUrlSecret) : undefined;
  return {
    urlOf(media) {
      if (!key)
        throw new PublicationError(
          `This worker has no media-URL secret, so it cannot give ${fetchers} an address to fetch the post's media from: set MEDIA_URL_SECRET to the API's (or share its DATA_DIR).`,
          { retryable: false },
        );
      return signPlatformMediaUrl(base, key, media.id);
    },
    unreachable: publicBaseUnreachable(base),
  };
}
