// A loopback TCP relay in front of a test database that the test can cut at a chosen query:
// when a client sends a statement containing `marker` (its SQL or a prepared statement's
// name), that statement is never delivered, every connection through the relay is dropped
// and new ones are refused until `restore()`. A service pointed at it authenticates first
// and loses its database inside the operation, as when Postgres goes away mid-request.
import { createServer, type Server, Socket } from 'node:net';

export type CuttableDatabase = {
  /** The database's URL through the relay. */
  url: string;
  /** Cut everything when a client next sends `marker` (until then, relay as usual). */
  cutAt: (marker: string) => void;
  /** Whether the relay has cut (and refuses connections). */
  readonly cut: boolean;
  /** Accept connections again. */
  restore: () => Promise<void>;
  close: () => Promise<void>;
};

export async function cuttableDatabase(databaseUrl: string): Promise<CuttableDatabase> {
  const target = new URL(databaseUrl);
  const pairs = new Set<[Socket, Socket]>();
  let marker: string | undefined;
  let cut = false;
  let port = 0;
  let server: Server;

  const dropAll = () => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };

  const relay = (client: Socket) => {
    const upstream = new Socket();
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    // The marker may arrive split across two chunks: the tail of the last one is kept.
    let tail = '';
    client.on('data', (chunk: Buffer) => {
      const seen = tail + chunk.toString('latin1');
      if (marker && seen.includes(marker)) {
        marker = undefined;
        cut = true;
        server.close();
        dropAll();
        return;
      }
      tail = seen.slice(-(marker?.length ?? 1));
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    for (const s of pair) {
      s.on('error', end);
      s.on('close', end);
    }
    upstream.connect(Number(target.port), target.hostname);
  };

  const listen = async () => {
    server = createServer(relay);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  };
  await listen();
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  return {
    url: url.toString(),
    cutAt: (m) => {
      marker = m;
    },
    get cut() {
      return cut;
    },
    restore: async () => {
      if (!cut) return;
      cut = false;
      await listen();
    },
    close: async () => {
      dropAll();
      if (!cut) await new Promise((r) => server.close(r));
    },
  };
}
