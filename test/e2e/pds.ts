// Runs a real PLC directory and PDS (@atproto/dev-env, SQLite inside) on loopback in its own
// process, so its dependencies never meet the service's. With APPVIEW_DATABASE_URL (a
// Postgres database of its own) it also runs the Bluesky AppView, its data plane and bsync,
// subscribed to the PDS's firehose, as dev-env's TestNetwork does (without the moderation
// service, which needs Redis and nothing here reads). Prints one JSON line with their
// addresses, then serves until stdin closes or SIGTERM.
import {
  mockNetworkUtilities,
  TestBsky,
  TestBsync,
  TestNetworkNoAppView,
  TestPds,
  TestPlc,
} from '@atproto/dev-env';

const appViewDb = process.env.APPVIEW_DATABASE_URL;

async function withAppView(dbUrl: string) {
  const plc = await TestPlc.create({});
  const bsyncApiKey = 'bsync-api-key';
  const bsync = await TestBsync.create({ apiKeys: [bsyncApiKey], dbUrl, dbSchema: 'bsync' });
  const pdsPort = await freePort();
  const bsky = await TestBsky.create({
    plcUrl: plc.url,
    pdsPort,
    repoProvider: `ws://localhost:${pdsPort}`,
    bsyncApiKey,
    bsyncUrl: bsync.url,
    dbPostgresUrl: dbUrl,
    dbPostgresSchema: 'appview',
  });
  bsync.ctx.dataplaneClients = [bsky.ctx.dataplane];
  const pds = await TestPds.create({
    port: pdsPort,
    didPlcUrl: plc.url,
    bskyAppViewUrl: bsky.url,
    bskyAppViewDid: bsky.ctx.cfg.serverDid,
  });
  mockNetworkUtilities(pds, bsky);
  return {
    addresses: { pds: pds.url, plc: plc.url, appview: bsky.url },
    close: async () => {
      await bsky.close();
      await bsync.close();
      await pds.close();
      await plc.close();
    },
  };
}

/** A port nobody listens on now (dev-env's own helper is not exported). */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const network = appViewDb
  ? await withAppView(appViewDb)
  : await TestNetworkNoAppView.create({}).then((n) => ({
      addresses: { pds: n.pds.url, plc: n.plc.url },
      close: () => n.close(),
    }));
console.log(JSON.stringify(network.addresses));
const stop = async () => {
  await network.close().catch(() => undefined);
  // better-sqlite3's finalizers assert during Node's own teardown; there is nothing left to
  // flush, so skip it.
  process.kill(process.pid, 'SIGKILL');
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
