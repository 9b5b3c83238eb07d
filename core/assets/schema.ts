// Asset (media library) records and listing (SPEC.md "Asset", "REST: media").
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';
import type { MediaKind } from '../kernel/platformNames.ts';
import { formatBytes } from '../kernel/sizes.ts';

export const ASSET_KINDS = ['image', 'video', 'audio'] as const;

/** Largest raw image upload (SPEC.md "Limits"). */
export const MAX_IMAGE_BYTES = 15 * 1024 * 1024;

/**
 * Largest image by pixels (50 megapixels, e.g. 8660×5773): a few KB of PNG can declare far
 * more, and every pixel costs 4 bytes once decoded. A 48 MP phone photo still fits.
 */
export const MAX_IMAGE_PIXELS = 50_000_000;

/** Mastodon takes 1,500 characters of description; the tightest of the platforms that take it. */
export const AltText = z
  .string()
  .trim()
  .min(1)
  .max(1_500)
  .describe('Alternative text for screen readers, at most 1,500 characters.');

export const Asset = z.object({
  id: z.string(),
  kind: z.enum(ASSET_KINDS),
  mime: z.string().describe('Media type probed from the bytes, not taken from the request.'),
  bytes: z.number(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  duration_s: z.number().nullable(),
  filename: z.string().nullable(),
  alt_text: z
    .string()
    .nullable()
    .describe('Alternative text, sent with the image where the platform takes it.'),
  brand_id: z.string().nullable(),
  sha256: z.string().nullable(),
  url: z.string().describe('Where the bytes are served (needs the owner’s credential).'),
  signed_url: z
    .string()
    .nullable()
    .describe('The bytes without a credential, for one hour from this response.'),
  thumbnail_url: z.string().nullable(),
  created_at: z.string(),
});
export type Asset = z.infer<typeof Asset>;

export const ListAssetsQuery = z
  .object({
    kind: z.enum(ASSET_KINDS).optional().describe('Only this kind.'),
    brand_id: IdInput.optional().describe('Only assets of this brand.'),
    q: z.string().trim().max(200).optional().describe('Filename contains this text.'),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(200)
      .default(50)
      .describe('Rows, 1-200 (default 50).'),
    cursor: z.string().max(100).optional().describe('next_cursor of the previous page.'),
  })
  .strict();
export type ListAssetsQuery = z.infer<typeof ListAssetsQuery>;

export const StorageUsage = z.object({
  used_bytes: z.number().describe('Bytes held in the media library.'),
  reserved_bytes: z
    .number()
    .describe(
      'Bytes held for unfinished chunked uploads (their size_bytes) until they finish or expire; they count against the quota.',
    ),
  quota_bytes: z.number().describe('The plan’s storage quota.'),
});

export const AssetList = z.object({
  assets: z.array(Asset),
  next_cursor: z.string().nullable().describe('Pass as cursor for the next page; null at the end.'),
  storage: StorageUsage,
});
export type AssetList = z.infer<typeof AssetList>;

export const UploadQuery = z
  .object({
    brand_id: IdInput.optional().describe('Brand to file the asset under.'),
    filename: z.string().trim().max(255).optional().describe('Original file name.'),
    alt_text: AltText.optional(),
  })
  .strict();
export type UploadQuery = z.infer<typeof UploadQuery>;

/** Largest chunked upload (SPEC.md "Limits": video via URL ingest 500 MB, the same here). */
export const MAX_CHUNKED_BYTES = 500 * 1024 * 1024;
export const MAX_PARTS = 80;

export const InitUploadInput = z
  .object({
    filename: z.string().trim().min(1).max(255).describe('Original file name.'),
    size_bytes: z
      .number()
      .int()
      .min(1)
      .max(MAX_CHUNKED_BYTES, `at most ${formatBytes(MAX_CHUNKED_BYTES)} (${MAX_CHUNKED_BYTES})`)
      .describe('Total size, at most 500 MB.'),
    brand_id: IdInput.optional().describe('Brand to file the asset under.'),
  })
  .strict();
export type InitUploadInput = z.infer<typeof InitUploadInput>;

export const UploadSession = z.object({
  upload_id: z.string().describe('URL-encode it in the part query.'),
  part_bytes: z
    .number()
    .describe('Largest chunk: split the file into chunks of at most this size.'),
  parts: z.number().describe('How many chunks that makes (what finish expects).'),
  expires_at: z.string(),
  grant: z
    .object({
      method: z.literal('PUT'),
      part_urls: z
        .array(z.string())
        .describe(
          'Chunk i goes to part_urls[i], as the raw bytes: exactly part_bytes, the last chunk the rest (the bucket refuses any other size); then call finish as usual.',
        ),
      expires_at: z.string(),
    })
    .optional()
    .describe('With bucket storage: send the chunks straight to the bucket instead.'),
});

export const PartQuery = z
  .object({
    upload_id: z.string().uuid().describe('From init.'),
    index: z.coerce
      .number()
      .int()
      .min(0)
      .max(MAX_PARTS - 1)
      .describe('Zero-based chunk index.'),
  })
  .strict();
export type PartQuery = z.infer<typeof PartQuery>;

export const PartReceipt = z.object({
  upload_id: z.string(),
  index: z.number(),
  bytes: z.number(),
});

export const FinishUploadInput = z
  .object({
    upload_id: z.string().uuid(),
    parts: z.number().int().min(1).max(MAX_PARTS).describe('Number of chunks sent (1-80).'),
  })
  .strict();
export type FinishUploadInput = z.infer<typeof FinishUploadInput>;

export const IngestInput = z
  .object({
    url: z.string().max(2_000).describe('A public, directly downloadable image or video file.'),
    brand_id: IdInput.optional().describe('Brand to file the asset under.'),
    filename: z
      .string()
      .trim()
      .max(255)
      .optional()
      .describe('Name to keep; default: from the URL.'),
    alt_text: AltText.optional().describe('Alternative text of an image.'),
  })
  .strict();
export type IngestInput = z.infer<typeof IngestInput>;

/** An asset as an attachment checks it: what it is and how big, not its bytes. */
export type AssetRef = {
  id: string;
  kind: MediaKind;
  mime: string;
  design_id: string | null;
  /** Size of the stored bytes. */
  bytes: number;
  /** Seconds, for video and audio. */
  duration_s: number | null;
  /** Pixels, for images and video. */
  width: number | null;
  height: number | null;
};
