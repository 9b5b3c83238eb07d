// The Canvas tests' service: a render worker beside the server, so designs render for real,
// through the job path, into the server's storage; and an account with a key that may post and
// upload. Plus uploadPng, an image asset to lay out.
import sharp from 'sharp';
import type { Scope } from '../../core/accounts/plans.ts';
import type { RenderPoolOptions } from '../../render/renderPool.ts';
import { type Service, useService } from './service.ts';

export const DESIGN_SCOPES: Scope[] = ['read', 'publish', 'media'];

/** useService with a render worker and an account whose key has DESIGN_SCOPES. */
export const useDesignService = (opts: { render?: RenderPoolOptions } = {}): Service =>
  useService({
    account: { scopes: DESIGN_SCOPES },
    worker: { storage: true, render: opts.render },
  });

/** Uploads a plain PNG of one colour as an image asset of the key's account; its id. */
export async function uploadPng(
  server: { baseUrl: string },
  key: string,
  size: { width: number; height: number },
  background: string,
): Promise<string> {
  const png = await sharp({ create: { ...size, channels: 3, background } })
    .png()
    .toBuffer();
  const res = await fetch(`${server.baseUrl}/v1/assets/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' },
    body: new Uint8Array(png),
  });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status}`);
  return ((await res.json()) as { id: string }).id;
}
