// The font families a layout may name, and the @fontsource package each ships in (SIL OFL
// or Apache 2.0). The renderer registers them (render/fonts.ts); the API only checks names,
// so this file loads nothing native.
export const FONT_PACKAGES = {
  Inter: 'inter',
  Roboto: 'roboto',
  Montserrat: 'montserrat',
  'Playfair Display': 'playfair-display',
  Lora: 'lora',
  Oswald: 'oswald',
  'Bebas Neue': 'bebas-neue',
  Caveat: 'caveat',
} as const;

export const FONT_NAMES = Object.keys(FONT_PACKAGES) as (keyof typeof FONT_PACKAGES)[];

export const isKnownFont = (name: string): boolean => Object.hasOwn(FONT_PACKAGES, name);
