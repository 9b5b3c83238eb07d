// A local S3-compatible server on loopback (s3rver) for the `s3` storage driver's tests.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

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
