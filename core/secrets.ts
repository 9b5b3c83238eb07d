// Secrets the service generates once and keeps in DATA_DIR (mode 0600), so a fresh
// `npm start` needs no configuration and a restart keeps sessions and the database password.
// Several processes may start at once on one DATA_DIR (`npm run api` beside `npm run worker`,
// containers sharing a volume): they must all end up with the same secrets, so the file is
// never rewritten in place by a process that has not seen the current one.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { newSigningKey } from './oauth/service.ts';

export type LocalSecrets = {
  sessionSecret: string;
  pgPassword: string;
  credentialsKey: string;
  /** Signs media addresses; its own key, so no other secret's exposure lets one forge them. */
  mediaUrlSecret: string;
  /** The OAuth server's signing keys as JSON (core/oauth/keys.ts). */
  oauthSigningKey: string;
};

const FILE = 'secrets.json';
/** A lock older than this was left by a process that died holding it. */
const STALE_LOCK_MS = 10_000;

function generate(): LocalSecrets {
  return {
    sessionSecret: randomBytes(32).toString('base64url'),
    pgPassword: randomBytes(24).toString('base64url'),
    credentialsKey: randomBytes(32).toString('base64'),
    mediaUrlSecret: randomBytes(32).toString('base64url'),
    oauthSigningKey: JSON.stringify([newSigningKey()]),
  };
}

const MEMBERS = Object.keys(generate()) as (keyof LocalSecrets)[];

const isComplete = (s: Partial<LocalSecrets> | undefined): s is LocalSecrets =>
  s !== undefined && MEMBERS.every((k) => typeof s[k] === 'string');

function readStored(file: string): Partial<LocalSecrets> | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalSecrets>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes the secrets, complete, under a private temporary name beside `file`. */
function writeTemp(file: string, secrets: LocalSecrets): string {
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return temp;
}

/**
 * First start: link() a complete temporary file to the final name. link fails with EEXIST when
 * another process got there first, and then its secrets are the ones everybody uses.
 */
function create(file: string): LocalSecrets {
  const temp = writeTemp(file, generate());
  try {
    linkSync(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(temp, { force: true });
  }
  return complete(file);
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Runs `fn` holding DATA_DIR's secrets lock (a file created exclusively). */
function withLock<T>(file: string, fn: () => T): T {
  const lock = `${file}.lock`;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) rmSync(lock, { force: true });
      else sleep(20);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * A file from an older version lacks a member added since: under the lock, read it again
 * (another process may have filled it in), add what is missing, and replace it atomically.
 */
function complete(file: string): LocalSecrets {
  const stored = readStored(file);
  if (isComplete(stored)) return stored;
  return withLock(file, () => {
    const current = readStored(file);
    if (isComplete(current)) return current;
    const merged = { ...generate(), ...current };
    renameSync(writeTemp(file, merged), file);
    return merged;
  });
}

/** Reads DATA_DIR/secrets.json, creating it (and any missing member) on first use. */
export function loadLocalSecrets(dataDir: string): LocalSecrets {
  const file = path.join(dataDir, FILE);
  const stored = readStored(file);
  if (isComplete(stored)) return stored;
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  return stored === undefined ? create(file) : complete(file);
}
