// The connectors shipped with the service: Bluesky, Mastodon, X, LinkedIn, Threads, Instagram
// and Facebook Pages. They read the bytes of attached assets from storage, so a worker without
// storage has none.

import type { OutboundPolicy } from '../outbound/guard.ts';
import { type OAuthPlatform, type PlatformApp, platformApps } from '../platformApps.ts';
import type { Storage } from '../storage/storage.ts';
import { blueskyConnector } from './bluesky/index.ts';
import type { Connectors, PublicMedia } from './connector.ts';
import { facebookConnector } from './facebook/index.ts';
import { instagramConnector } from './instagram/index.ts';
import { linkedinConnector } from './linkedin/index.ts';
import { mastodonConnector } from './mastodon.ts';
import { threadsConnector } from './threads/index.ts';
import { xConnector } from './x/index.ts';

export type ConnectorDeps = {
  outbound: OutboundPolicy;
  storage?: Storage;
  /** Per platform request; 30 s when omitted. */
  requestTimeoutMs?: number;
  /** The Bluesky AppView read for counts (BLUESKY_APPVIEW_URL); without it, none are read. */
  blueskyAppView?: string;
  /** The OAuth platforms' addresses (`*_API_URL`); the documented defaults when omitted. */
  platformApps?: Record<OAuthPlatform, PlatformApp>;
  /** Signed public addresses of media, for the platforms that fetch it; without it they cannot publish media. */
  publicMedia?: PublicMedia;
};

export function builtinConnectors({ storage, ...rest }: ConnectorDeps): Connectors {
  if (!storage) return {};
  const apps = rest.platformApps ?? platformApps({});
  return {
    bluesky: blueskyConnector({ ...rest, storage, appView: rest.blueskyAppView }),
    mastodon: mastodonConnector({ ...rest, storage }),
    x: xConnector({ ...rest, storage, apiUrl: apps.x.apiUrl }),
    linkedin: linkedinConnector({
      ...rest,
      storage,
      apiUrl: apps.linkedin.apiUrl,
      oauthUrl: apps.linkedin.oauthUrl,
    }),
    threads: threadsConnector({ ...rest, apiUrl: apps.threads.apiUrl }),
    instagram: instagramConnector({ ...rest, apiUrl: apps.instagram.apiUrl }),
    facebook: facebookConnector({
      ...rest,
      storage,
      apiUrl: apps.facebook.apiUrl,
      videoUrl: apps.facebook.videoUrl,
      appId: apps.facebook.clientId,
    }),
  };
}
