// Secrets the service generates once and keeps in DATA_DIR (mode 0600), so a fresh
// `npm start` needs no configuration and a restart keeps sessions and the database password.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type LocalSecrets = {
  sessionSecret: string;
  pgPassword: string;
  credentialsKey: string;
};

const FILE = 'secrets.json';

function generate(): LocalSecrets {
  return {
    sessionSecret: randomBytes(32).toString('base64url'),
    pgPassword: randomBytes(24).toString('base64url'),
    credentialsKey: randomBytes(32).toString('base64'),
  };
}

/** Reads DATA_DIR/secrets.json, creating it (and any missing member) on first use. */
export function loadLocalSecrets(dataDir: string): LocalSecrets {
  const file = path.join(dataDir, FILE);
  let stored: Partial<LocalSecrets> = {};
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalSecrets>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const merged = { ...generate(), ...stored };
  if (Object.keys(generate()).some((k) => !(k in stored))) {
    mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    // 'wx' would race with a concurrent first start; a rewrite with identical keys is harmless
    // because the merged object keeps whatever was already stored.
    writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o600 });
  }
  return merged;
}
