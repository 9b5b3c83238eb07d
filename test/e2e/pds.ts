// Runs a real PLC directory and PDS (@atproto/dev-env, SQLite inside) on loopback in its own
// process, so its dependencies never meet the service's. Prints one JSON line with their
// addresses, then serves until stdin closes or SIGTERM.
import { TestNetworkNoAppView } from '@atproto/dev-env';

const network = await TestNetworkNoAppView.create({});
console.log(JSON.stringify({ pds: network.pds.url, plc: network.plc.url }));
const stop = async () => {
  await network.close();
  // better-sqlite3's finalizers assert during Node's own teardown; there is nothing left to
  // flush, so skip it.
  process.kill(process.pid, 'SIGKILL');
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
