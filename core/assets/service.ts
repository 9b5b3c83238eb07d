// The assets concept's front door: the media library (./library.ts), chunked uploads, assets
// made from bytes or a URL, the storage quota, signed media URLs and rendered pages.

export { cleanupExpiredUploads, finishUpload, initUpload, putPart } from './chunked.ts';
export { ingestFromUrl } from './ingest.ts';
export {
  type AssetRow,
  assetBrand,
  assetContentUrl,
  deleteAsset,
  fileWithinQuota,
  firstPagesOf,
  handOverPagesShownBy,
  listAssets,
  type MediaDeps,
  type Owner,
  ownedAssets,
  pagesOfDesign,
  readAsset,
  readPlatformMedia,
  readSignedAsset,
  readThumbnail,
  storageKeyOfAsset,
  storageUseOf,
  storedMedia,
  storedVisuals,
  THUMBNAIL_ATTEMPTS,
  toAsset,
  uploadImage,
} from './library.ts';
export { fileDesignPages } from './pages.ts';
export { publicMediaFor } from './publicMedia.ts';
export { assertStorageLeft, fileMadeAsset } from './quota.ts';
export {
  assetUrlKey,
  drawingExportSubject,
  PUBLIC_MEDIA_TTL_S,
  platformMediaSubject,
  signAssetUrl,
  signDrawingExportUrl,
  signPlatformMediaUrl,
  signVideoFrameUrl,
  verifySignedSubject,
  videoFrameSubject,
} from './signedUrls.ts';
export { spoolToTemp } from './spool.ts';
