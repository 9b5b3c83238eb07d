// Image assets for tests: a plain PNG of one colour, uploaded through POST /v1/assets/upload
// with the key of the account that will own it.
import sharp from 'sharp';

type Size = { width: number; height: number };

export const solidPng = (size: Size, background: string | { r: number; g: number; b: number }) =>
  sharp({ create: { ...size, channels: 3, background } })
    .png()
    .toBuffer();

/** Uploads PNG bytes as an image asset of the key's account; the asset as answered. */
export async function uploadImage(
  server: { baseUrl: string },
  key: string,
  png: Buffer,
): Promise<{ id: string; signed_url: string }> {
  const res = await fetch(`${server.baseUrl}/v1/assets/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' },
    body: new Uint8Array(png),
  });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status}`);
  return (await res.json()) as { id: string; signed_url: string };
}

/** Uploads a plain PNG of one colour as an image asset of the key's account; its id. */
export async function uploadPng(
  server: { baseUrl: string },
  key: string,
  size: Size,
  background: string,
): Promise<string> {
  return (await uploadImage(server, key, await solidPng(size, background))).id;
}
