// `npm ci`'s prepare step: builds the dashboard (web/) into web/dist with Vite. An install
// without the dev dependencies (npm ci --omit=dev, the Docker image's) has no Vite: it says
// so and goes on, for the dashboard is built where the dev dependencies are (see Dockerfile).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
if (!existsSync(vite)) {
  console.log('web/: Vite is not installed (no dev dependencies); the dashboard is not built.');
  process.exit(0);
}
const built = spawnSync(
  process.execPath,
  [vite, 'build', '--config', path.join(root, 'web', 'vite.config.ts'), '--logLevel', 'warn'],
  { cwd: root, stdio: 'inherit' },
);
process.exit(built.status ?? 1);
