// The connectors shipped with the service. Bluesky comes next.
import type { OutboundPolicy } from '../outbound/guard.ts';
import type { Storage } from '../storage/storage.ts';
import type { Connectors } from './connector.ts';
import { mastodonConnector } from './mastodon.ts';

export const builtinConnectors = (deps: {
  outbound: OutboundPolicy;
  storage?: Storage;
}): Connectors =>
  deps.storage
    ? { mastodon: mastodonConnector({ outbound: deps.outbound, storage: deps.storage }) }
    : {};
