// The `s3` storage driver: any S3-compatible store (AWS, MinIO, R2, ...). An object appears
// only when its upload completes, so a crash never leaves a partial object under a key.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Config } from '../config.ts';
import { assertFolder, type Storage } from './backend.ts';

export type S3Settings = NonNullable<Config['s3']>;

export function s3Client(s: S3Settings): S3Client {
  return new S3Client({
    region: s.region,
    endpoint: s.endpoint,
    forcePathStyle: s.forcePathStyle,
    credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
    // Checksums only where S3 requires them: the SDK's default streams bodies as aws-chunked
    // with checksum trailers, which many S3-compatible stores do not understand.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export function s3Storage(s: S3Settings): Storage {
  const client = s3Client(s);
  const Bucket = s.bucket;
  return {
    async put(key, source) {
      // Length unknown: lib-storage streams it as a multipart upload (or one PUT if small).
      await new Upload({ client, params: { Bucket, Key: key, Body: source } }).done();
    },
    async putFile(key, file) {
      const { size } = await stat(file);
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: key,
          Body: createReadStream(file),
          ContentLength: size,
        }),
      );
    },
    async get(key, range) {
      const res = await client.send(
        new GetObjectCommand({
          Bucket,
          Key: key,
          Range: range && `bytes=${range.start}-${range.end}`,
        }),
      );
      if (!res.Body) throw new Error(`no object ${key}`);
      return res.Body instanceof Readable
        ? res.Body
        : Readable.fromWeb(res.Body.transformToWebStream() as never);
    },
    async size(key) {
      try {
        return (await client.send(new HeadObjectCommand({ Bucket, Key: key }))).ContentLength;
      } catch (err) {
        if ((err as { name?: string }).name === 'NotFound') return undefined;
        throw err;
      }
    },
    async presignPuts(puts, expiresInS) {
      // Content-Length is then a signed header: the bucket refuses a body of any other size.
      return Promise.all(
        puts.map(({ key, bytes }) =>
          getSignedUrl(client, new PutObjectCommand({ Bucket, Key: key, ContentLength: bytes }), {
            expiresIn: expiresInS,
          }),
        ),
      );
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    async deletePrefix(prefix) {
      assertFolder(prefix);
      // Each listing page (at most 1,000 keys) is one DeleteObjects call, its limit too.
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken: token }),
        );
        const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
        if (keys.length)
          await client.send(
            new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys, Quiet: true } }),
          );
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    async folders(prefix) {
      assertFolder(prefix);
      const names: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({
            Bucket,
            Prefix: prefix,
            Delimiter: '/',
            ContinuationToken: token,
          }),
        );
        for (const p of page.CommonPrefixes ?? [])
          if (p.Prefix) names.push(p.Prefix.slice(prefix.length, -1));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return names;
    },
  };
}
