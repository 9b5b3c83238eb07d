// A TCP proxy on loopback between a process under test and the run's Postgres: an outage of
// one client's database, which the server the other tests share never sees. `refuse` ends
// every connection through it and ends each new one at once; `silent` carries nothing either
// way, new connections included (a host that stopped answering, without a refusal or reset);
// `pass` carries again (connections that went silent are ended then: their bytes are lost).
import net from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'silent';

export type DbProxy = {
  /** `databaseUrl` with the proxy's address. */
  url: string;
  set: (mode: ProxyMode) => void;
  close: () => Promise<void>;
};

export async function startDbProxy(databaseUrl: string): Promise<DbProxy> {
  const target = new URL(databaseUrl);
  let mode: ProxyMode = 'pass';
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket; silenced: boolean }>();
  const server = net.createServer((client) => {
    if (mode === 'refuse') return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair = { client, upstream, silenced: mode === 'silent' };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('close', end);
      socket.on('error', end);
    }
    client.on('data', (d) => {
      if (mode === 'pass' && !pair.silenced) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (mode === 'pass' && !pair.silenced) client.write(d);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const endAll = () => {
    for (const p of [...pairs]) {
      p.client.destroy();
      p.upstream.destroy();
    }
  };
  return {
    url: url.toString(),
    set: (next) => {
      if (next === 'refuse') endAll();
      if (next === 'silent') for (const p of pairs) p.silenced = true;
      if (next === 'pass') for (const p of [...pairs]) if (p.silenced) p.client.destroy();
      mode = next;
    },
    close: async () => {
      endAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
