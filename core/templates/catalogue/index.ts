// The Canvas template catalogue: one file per niche, each a list of templates written in the
// vocabulary of core/templates/kit.ts. Add a niche by adding its file here.
import type { TemplateSpec } from '../kit.ts';
import { EVENT } from './event.ts';
import { FOOD } from './food.ts';
import { HIRING } from './hiring.ts';
import { LAUNCH } from './launch.ts';
import { PODCAST } from './podcast.ts';
import { PRODUCT } from './product.ts';
import { QUOTE } from './quote.ts';
import { REALESTATE } from './realestate.ts';
import { SALE } from './sale.ts';
import { STAT } from './stat.ts';
import { TESTIMONIAL } from './testimonial.ts';
import { TIP } from './tip.ts';

/** The empty template: a white page, no layers. */
const BLANK: TemplateSpec = {
  name: 'blank',
  title: 'Blank page',
  niche: 'basic',
  aspect: 'square',
  premium: false,
  tags: ['empty', 'blank'],
  palette: {
    primary: '#111111',
    secondary: '#e5e7eb',
    accent: '#2563eb',
    background: '#ffffff',
    text: '#111111',
  },
  fonts: { heading: 'Inter', body: 'Inter' },
  layout: () => [],
};

export const CATALOGUE: TemplateSpec[] = [
  BLANK,
  ...EVENT,
  ...FOOD,
  ...HIRING,
  ...LAUNCH,
  ...PODCAST,
  ...PRODUCT,
  ...QUOTE,
  ...REALESTATE,
  ...SALE,
  ...STAT,
  ...TESTIMONIAL,
  ...TIP,
];
