// Images for Bluesky: a blob of at most 1,000,000 bytes (app.bsky.embed.images lexicon,
// `maxSize`), with its aspect ratio. A larger image is re-encoded as JPEG with sharp, lowering
// the quality and then the size until it fits. The same input always gives the same bytes, so
// a retried upload yields the same blob.
import sharp from 'sharp';

export const BLUESKY_IMAGE_MAX_BYTES = 1_000_000;
const PASSTHROUGH = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);

export type FittedImage = { bytes: Buffer; mime: string; width: number; height: number };

export async function fitImage(
  input: Buffer,
  mime: string,
  maxBytes = BLUESKY_IMAGE_MAX_BYTES,
): Promise<FittedImage> {
  const meta = await sharp(input).metadata();
  // EXIF orientations 5-8 turn the picture a quarter: width and height swap on screen.
  const turned = (meta.orientation ?? 1) >= 5;
  const width = (turned ? meta.height : meta.width) ?? 1;
  const height = (turned ? meta.width : meta.height) ?? 1;
  if (input.length <= maxBytes && PASSTHROUGH.has(mime))
    return { bytes: input, mime, width, height };

  let edge = Math.min(2000, Math.max(width, height));
  for (;;) {
    for (const quality of [85, 75, 65, 55]) {
      const { data, info } = await sharp(input)
        .rotate()
        .resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality, mozjpeg: true })
        .toBuffer({ resolveWithObject: true });
      if (data.length <= maxBytes)
        return { bytes: data, mime: 'image/jpeg', width: info.width, height: info.height };
    }
    edge = Math.floor(edge * 0.75);
  }
}
