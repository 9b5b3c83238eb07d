// A local S3-compatible server on loopback (s3rver) for the `s3` storage driver's tests.
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { beforeAll } from 'vitest';

export type LocalS3 = { env: Record<string, string>; close: () => Promise<void> };

export async function startLocalS3(bucket = 'media'): Promise<LocalS3> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'sps-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const address = (await server.run()) as AddressInfo;
  return {
    env: {
      STORAGE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${address.port}`,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    close: async () => {
      // The SDK keeps connections alive; close would wait for them.
      (
        server as unknown as { httpServer?: { closeAllConnections(): void } }
      ).httpServer?.closeAllConnections();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * The env of a storage driver for a describe block: none for fs; for s3, a local S3 started in
 * a beforeAll and closed after the block. Call it before useService, which reads the env.
 */
export function useStorageEnv(driver: 'fs' | 's3'): { env: Record<string, string> } {
  const storage = { env: {} };
  beforeAll(async () => {
    if (driver !== 's3') return;
    const s3 = await startLocalS3();
    storage.env = s3.env;
    return () => s3.close();
  });
  return storage;
}

/**
 * Whether S3 would accept a request to a presigned address with these headers: the query
 * signature (SigV4) recomputed as S3 does, from the headers the address signed. s3rver does
 * not check V4 signatures, so tests about what a presigned address allows ask this instead.
 */
export function presignedAccepts(
  address: string,
  headers: Record<string, string>,
  method = 'PUT',
  secret = 'S3RVER',
): boolean {
  const url = new URL(address);
  const q = url.searchParams;
  const signedHeaders = q.get('X-Amz-SignedHeaders')!.split(';');
  const all: Record<string, string> = { host: url.host, ...lowerKeys(headers) };
  const enc = (s: string) =>
    encodeURIComponent(s).replace(
      /[!'()*]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    );
  const query = [...q.entries()]
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonical = [
    method,
    url.pathname,
    query,
    ...signedHeaders.map((h) => `${h}:${(all[h] ?? '').trim()}`),
    '',
    signedHeaders.join(';'),
    q.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
  ].join('\n');
  const [, date, region, service] = q.get('X-Amz-Credential')!.split('/') as string[];
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = [
    'AWS4-HMAC-SHA256',
    q.get('X-Amz-Date'),
    scope,
    createHash('sha256').update(canonical).digest('hex'),
  ].join('\n');
  let key: Buffer = Buffer.from(`AWS4${secret}`);
  for (const part of [date!, region!, service!, 'aws4_request'])
    key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(toSign).digest('hex') === q.get('X-Amz-Signature');
}

const lowerKeys = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
