// Measures what a young-generation GC promotes: for benches that a structure kept across
// requests does not keep finished ones alive (see api/inFlight.ts for why that matters).
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options: { type: 'minor' | 'major' }) => void;

/** Node's gc(), exposed for this process on first use. */
function gcFunction(): Gc {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as Gc;
}

const oldSpaceUsed = () =>
  getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;

/**
 * Bytes the old generation grew by over `work` and two young-generation GCs after it, once a
 * full GC has put everything made so far (the structure under test included) in the old
 * generation.
 */
export function promotedBy(work: () => void): number {
  const gc = gcFunction();
  gc({ type: 'major' });
  const before = oldSpaceUsed();
  work();
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  return oldSpaceUsed() - before;
}
