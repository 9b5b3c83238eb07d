// What an image upload must be before it is stored: a format we keep, at most
// MAX_IMAGE_PIXELS, and whole. The header alone can lie (a 17 KB PNG declared 12000×12000
// pixels; the first bytes of a PNG give its size and no pixels), so every pixel is decoded
// once here, by sharp on libuv's threads (not the event loop), shrunk as it is read so the
// decode holds a small image, not the whole one, in memory.
import sharp from 'sharp';
import { invalid } from '../kernel/errors.ts';
import { grouped } from '../validation.ts';
import { MAX_IMAGE_PIXELS } from './schema.ts';

/** sharp's format names for the images we keep, with their media types. */
const IMAGE_FORMATS: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  avif: 'image/avif',
};

export type ImageFacts = { mime: string; width: number; height: number };

/** The image's type and size, or a 422 saying why it is refused. */
export async function checkImage(file: string, loc: (string | number)[]): Promise<ImageFacts> {
  const meta = await sharp(file)
    .metadata()
    .catch(() => undefined);
  const mime = meta?.format ? IMAGE_FORMATS[meta.format] : undefined;
  if (!meta || !mime || !meta.width || !meta.height)
    throw invalid(
      loc,
      'the bytes are not a decodable image (JPEG, PNG, WebP, GIF or AVIF)',
      'not_an_image',
    );
  const pixels = meta.width * meta.height;
  if (pixels > MAX_IMAGE_PIXELS)
    throw invalid(
      loc,
      `the image is ${meta.width}×${meta.height} (${grouped(pixels)} pixels); an image holds at most ${grouped(MAX_IMAGE_PIXELS)} pixels (50 megapixels): scale it down and upload it again`,
      'too_many_pixels',
    );
  // `failOn: 'error'` refuses truncated and corrupt pixel data, not mere warnings some
  // cameras' files raise; the shrink keeps the decoded copy small whatever the size.
  await sharp(file, { failOn: 'error', limitInputPixels: MAX_IMAGE_PIXELS })
    .resize(64, 64, { fit: 'inside' })
    .raw()
    .toBuffer()
    .catch((err: Error) => {
      throw invalid(
        loc,
        `the image cannot be decoded whole (${err.message.split('\n')[0]}): it is truncated or corrupt; upload the complete file`,
        'corrupt_image',
      );
    });
  return { mime, width: meta.width, height: meta.height };
}
