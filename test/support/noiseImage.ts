// A PNG of random pixels: it does not compress, so its size is about width × height × 3.
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';

export const noisePng = (width: number, height: number) =>
  sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
