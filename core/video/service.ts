// The video concept's front door: video templates and use_video_template, exporting a video
// design (its job and the worker's composition), and previews (a video design's poster frames;
// a Canvas design's page by way of designs' previewPage). A video design's timeline is one of
// the designs concept's two layout kinds; this concept builds on its front door.
export {
  type ExportRequest,
  type ExportResult,
  exportVideo,
  MAX_MEDIA_BYTES,
  type VideoExportDeps,
} from './export.ts';
export { type JobAddresses, jobView } from './jobView.ts';
export { POSTER_WIDTH, posterFrames } from './posterFrames.ts';
export {
  PREVIEW_WAIT_S,
  previewDesign,
  previewVideo,
  readSignedVideoFrame,
} from './previews.ts';
export { startVideoExport } from './startExport.ts';
export { useVideoTemplate, videoKind } from './useVideoTemplate.ts';
export {
  fillVideoTemplate,
  listVideoTemplates,
  mediaSlotsOf,
  textSlotsOf,
  VIDEO_TEMPLATES,
  type VideoTemplate,
  videoTemplateAllowed,
  videoTemplateFor,
} from './videoTemplates.ts';
