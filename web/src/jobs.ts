// The account's newest jobs, read again while one of them is unfinished: 2 s after a job starts
// or ends, then less often up to every 10 s (web/src/pacing.ts), since every read counts
// against the account's request budget. The jobs page and every progress bar share this query.
import { useQuery } from '@tanstack/react-query';
import { call, type Job } from './api.ts';
import { type JobsWatch, nextJobsRead } from './pacing.ts';
import { useSession } from './session.ts';

export const JOBS_KEY = ['jobs'];

/** The unfinished jobs last seen, shared by every user of the one jobs query. */
let watch: JobsWatch | undefined;

export function useJobs() {
  const session = useSession();
  return useQuery({
    queryKey: JOBS_KEY,
    queryFn: () => call<{ jobs: Job[] }>('GET', '/app/api/jobs'),
    enabled: !!session.data,
    refetchInterval: (q) => {
      const next = nextJobsRead(watch, q.state.data?.jobs ?? [], q.state.dataUpdateCount);
      watch = next.watch;
      return next.wait;
    },
  });
}
