// The account's newest jobs, read again every second while one of them is unfinished: the
// jobs page and every progress bar share this one query.
import { useQuery } from '@tanstack/react-query';
import { call, type Job } from './api.ts';
import { useSession } from './session.ts';

export const JOBS_KEY = ['jobs'];
export const unfinished = (j: Job) => j.status === 'queued' || j.status === 'running';

export function useJobs() {
  const session = useSession();
  return useQuery({
    queryKey: JOBS_KEY,
    queryFn: () => call<{ jobs: Job[] }>('GET', '/app/api/jobs'),
    enabled: !!session.data,
    refetchInterval: (q) => (q.state.data?.jobs.some(unfinished) ? 1000 : false),
  });
}
