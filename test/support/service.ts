// The service a test file (or describe block) runs against: a listening server, a worker beside
// it if asked, an account and a key; one close stops all of it, worker first. useServer is the
// server alone; startService and startWorkerBeside are the same pieces for one test's body.
//
// Why beforeAll/afterAll helpers (useServer, useService) rather than vitest's test.extend
// fixtures: the tests share one server per file and reach it from module-level helpers
// (`create`, `gql`, `stored`, ...) through closures. test.extend hands fixtures to each test's
// function only, so every such helper would have to take them as arguments; an object filled
// in by a beforeAll keeps the helpers as they are and a file's setup to a line or three.
import { beforeAll } from 'vitest';
import type { Plan, Scope } from '../../core/kernel/plans.ts';
import { createLogger } from '../../core/logger.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { type Storage, storageFor } from '../../core/storage/storage.ts';
import { startWorker, type WorkerDeps, type WorkerRunner } from '../../workers/index.ts';
import {
  makeAccount,
  makeKey,
  type ServerOptions,
  startServer,
  type TestAccount,
  type TestServer,
} from './server.ts';

/** Env that lets the service's outbound requests reach test servers on loopback over http. */
export const LOOPBACK_OUTBOUND = { OUTBOUND_ALLOWLIST: '127.0.0.0/8', OUTBOUND_ALLOW_HTTP: 'true' };

// The types a test file declares its share of the service with.
export type { TestAccount, TestServer };

export type TestWorkerOptions = Partial<Omit<WorkerDeps, 'pool' | 'storage'>> & {
  /** The server's storage: expired uploads are cleaned, and designs render (a render pool). */
  storage?: boolean;
};

/**
 * A worker beside `server`, as the worker role runs beside the API: the same database, outbound
 * policy and (with `storage`) storage; two jobs at a time and a silent log unless `opts` say
 * otherwise. Its `stop()` stops all it started.
 */
export function startWorkerBeside(
  server: TestServer,
  opts: TestWorkerOptions = {},
): Promise<WorkerRunner> {
  const { storage, ...deps } = opts;
  return startWorker({
    concurrency: 2,
    log: createLogger('silent'),
    outbound: outboundPolicy(server.config),
    ...deps,
    pool: server.pool,
    storage: storage ? storageFor(server.config) : undefined,
  });
}

export type ServiceOptions = ServerOptions & {
  /** An account on this plan (plus unless given) with a key of these scopes (read, publish). */
  account?: { plan?: Plan; scopes?: Scope[] };
  /** A worker beside the server; none when omitted. */
  worker?: TestWorkerOptions;
};

export type Service = {
  server: TestServer;
  /** The server's storage, seen from the test. */
  storage: Storage;
  /** The account and its key: only with `account` in the options. */
  acct: TestAccount;
  key: string;
  worker?: WorkerRunner;
  /** Stops the worker, then the server, dropping its database and data directory. */
  close: () => Promise<void>;
};

export async function startService(opts: ServiceOptions = {}): Promise<Service> {
  const { account, worker: workerOpts, ...serverOpts } = opts;
  const server = await startServer(serverOpts);
  let worker: WorkerRunner | undefined;
  const close = async () => {
    await worker?.stop();
    await server.close();
  };
  try {
    worker = workerOpts && (await startWorkerBeside(server, workerOpts));
    const acct = account && (await makeAccount(server.pool, account.plan));
    const key =
      acct && (await makeKey(server.pool, acct.accountId, account.scopes ?? ['read', 'publish']));
    return {
      server,
      storage: storageFor(server.config),
      acct: acct as TestAccount,
      key: key as string,
      worker,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Registers a beforeAll in the calling file or describe block that starts something, and its
 * close after that block's afterAll hooks. The object answered is filled in by that beforeAll,
 * so tests and hooks use it as it is; only code run at collection (the top of a file) must not
 * read it. `opts` may be a function, read in the beforeAll, for options that need something
 * started in an earlier beforeAll (a fake platform's URL, a local S3's env). Something the
 * service uses is best started in a beforeAll registered before this one that returns its
 * close: vitest runs those returned closes in reverse, so it then outlives the service.
 */
function filledInBeforeAll<O, T extends { close: () => Promise<void> }>(
  start: (opts: O) => Promise<T>,
  opts: O | (() => O),
): T {
  const filled = {} as T;
  beforeAll(async () => {
    Object.assign(filled, await start(typeof opts === 'function' ? (opts as () => O)() : opts));
    return () => filled.close();
  });
  return filled;
}

/**
 * What `start` makes, started in a beforeAll registered in the calling file or describe block
 * and closed after its tests. The object answered stands for it: every property read or
 * written goes to the started thing itself (a stand-in whose settings a test changes), so,
 * like filledInBeforeAll's, it is used by tests and hooks, never at collection.
 */
export function useStarted<T extends object>(
  start: () => Promise<T>,
  close?: (started: T) => Promise<void>,
): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
    return close ? () => close(started!) : undefined;
  });
  const target = () => {
    if (!started) throw new Error('Used before its beforeAll started it.');
    return started;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(target(), key),
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(target(), key),
  });
}

/** A server alone for the calling file or describe block (see filledInBeforeAll). */
export const useServer = (opts: ServerOptions | (() => ServerOptions) = {}): TestServer =>
  filledInBeforeAll(startServer, opts);

/** The service for the calling file or describe block (see filledInBeforeAll). */
export const useService = (opts: ServiceOptions | (() => ServiceOptions) = {}): Service =>
  filledInBeforeAll(startService, opts);
