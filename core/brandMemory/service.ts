// Brand memory's front door: reading a brand's memory and patching it (./memory.ts), the
// sections inferred from its posts (the genome) and from its imported history.

export type { GenomeDeps } from './genome.ts';
export { runGenome, startGenome } from './genome.ts';
export type { HistoryDeps } from './historyImport.ts';
export { runHistoryImport, startHistoryImport } from './historyImport.ts';
export {
  brandKitOf,
  engagementRulesOf,
  getBrandMemory,
  type MemoryCaller,
  patchBrandMemory,
  recordInferred,
  voiceOf,
} from './memory.ts';

/** Words too common to say anything about a text: the generator's keywords skip them too. */
export { STOPWORDS } from './text.ts';
