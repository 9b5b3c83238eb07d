// A stand-in for the service's public media addresses, on loopback: a PublicMedia whose URLs
// name an asset by id and a one-use-per-test token, served from storage by a small HTTP
// server, so a connector test can hand a platform stand-in addresses it then fetches. It
// records each fetch, and `refuse` makes an asset's address answer 404 (media Meta could not
// fetch). The service's own signed addresses (core/assets) are tested beside their route.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PublicMedia, PublishMedia } from '../../core/connectors/connector.ts';
import { readAll, type Storage, storageFor } from '../../core/storage/storage.ts';
import type { TestServer } from './server.ts';
import { useStarted } from './service.ts';

export type PublicMediaHost = PublicMedia & {
  /** The asset ids fetched, in order. */
  fetched: string[];
  /** The asset's address answers 404 from now on. */
  refuse(assetId: string): void;
  close(): Promise<void>;
};

export async function startPublicMediaHost(storage: Storage): Promise<PublicMediaHost> {
  const token = randomBytes(8).toString('hex');
  const known = new Map<string, PublishMedia>();
  const refused = new Set<string>();
  const fetched: string[] = [];
  const server = createServer(async (req, res) => {
    const m = /^\/public-media\/([^/?]+)\?t=([0-9a-f]+)$/.exec(req.url ?? '');
    const media = m?.[1] && m[2] === token ? known.get(m[1]) : undefined;
    if (!media?.storageKey || refused.has(media.id))
      return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    fetched.push(media.id);
    const bytes = await readAll(storage, media.storageKey);
    res.writeHead(200, { 'content-type': media.mime, 'content-length': bytes.length }).end(bytes);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    urlOf(media) {
      known.set(media.id, media);
      return `${base}/public-media/${media.id}?t=${token}`;
    },
    unreachable: null,
    fetched,
    refuse: (assetId) => refused.add(assetId),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The calling file's public media host, serving from `server`'s storage, closed after it. */
export const usePublicMediaHost = (server: TestServer): PublicMediaHost =>
  useStarted(
    () => startPublicMediaHost(storageFor(server.config)),
    (started) => started.close(),
  );
