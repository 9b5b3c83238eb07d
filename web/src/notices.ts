// Notices that outlive the page that raised them: the composer's warnings after a save that
// moves on to the board or the calendar. The shell shows them until dismissed.
import { useSyncExternalStore } from 'react';

let notices: readonly string[] = [];
const listeners = new Set<() => void>();
const changed = (next: readonly string[]) => {
  notices = next;
  for (const l of listeners) l();
};

export const raiseNotices = (texts: readonly string[]) => {
  if (texts.length) changed([...notices, ...texts]);
};
export const dismissNotices = () => changed([]);

export const useNotices = () =>
  useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => notices,
  );
