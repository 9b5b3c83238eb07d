// The templates concept's front door: the Canvas template catalogue (catalogue/, written in
// the vocabulary of kit.ts), its listing and thumbnails, and the operations that lay a
// template out into a design: create_design, the design edit, a post made with a layout or
// template. It builds on the designs concept's front door.
export { createDesign } from './createDesign.ts';
export {
  copySlots,
  currentSlots,
  PREMIUM_TEMPLATE_PLAN,
  type SlotSource,
  templateAllowed,
  templateFill,
  templateFor,
  templateLayout,
} from './fill.ts';
export {
  type BrandKit,
  contrastRatio,
  frameOf,
  instantiate,
  isFurnitureText,
  requiredContrast,
  type SlotInfo,
  slotsOfSpec,
  type TemplateSpec,
} from './kit.ts';
export {
  copySlotsOf,
  ListTemplatesQuery,
  listTemplates,
  NICHES,
  slotFallback,
  slotsOf,
  TEMPLATES,
  THUMBNAILS_DIR,
} from './listing.ts';
export { createNativePost, isNativePost, receiptOf } from './postWithDesign.ts';
export { editDesign } from './relayoutFromTemplate.ts';
export {
  renderTemplate,
  renderTemplateThumbnail,
  type SampleCopy,
  sampleFill,
  THUMBNAIL_WIDTH,
} from './thumbnails.ts';
