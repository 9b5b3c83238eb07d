// What both side-by-side benches (bench/throughput.ts across processes, bench/me.ts and
// bench/posts.ts in the bench's process) measure and how they judge it: the service beside
// the one-statement bare routes (bench/bareRoutes.ts) at two figures that mean different
// things, each with its own target.

import os from 'node:os';

export type Side = 'bare' | 'service';

/** The machine's 1, 5 and 15 minute load averages, as `uptime` gives them. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

/** The two figures, by the connections the load generator keeps open. */
export const FIGURES = [
  {
    connections: 1,
    name: 'one connection',
    meaning:
      'per-request overhead: one request in flight at a time, so the service shares no statement',
  },
  {
    connections: 32,
    name: '32 connections',
    meaning:
      'throughput: the service shares statements between requests (core/db/batch.ts); the bare routes cannot, one statement a request',
  },
] as const;

export type Connections = (typeof FIGURES)[number]['connections'];

/** The targets: the service's requests a second over the bare route's, at least. */
export const TARGETS: Record<'GET /v1/me' | 'POST /v1/posts', Record<Connections, number>> = {
  'GET /v1/me': { 1: 0.85, 32: 1.0 },
  'POST /v1/posts': { 1: 0.7, 32: 1.0 },
};
export type Route = keyof typeof TARGETS;

export const figureName = (connections: Connections) =>
  FIGURES.find((f) => f.connections === connections)!.name;

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * `runs` runs of both sides, each side measured for `seconds` a run in four slices of a
 * quarter, in mirrored order (bare, service, service, bare, twice; the next run starts with
 * the service): whichever went second after a switch measured slower on this machine, and a
 * burst of other work on the machine (it is shared) falls on both sides nearly alike when
 * the slices are short. `combine` makes a side's slices one; `report` sees each run. The ratio
 * of each run, in order.
 */
export async function mirroredRuns<M extends { rps: number }>(
  runs: number,
  seconds: number,
  measure: (side: Side, seconds: number) => Promise<M>,
  combine: (ms: M[]) => M,
  report: (run: number, bare: M, service: M) => void,
): Promise<number[]> {
  const ratios: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const abba: Side[] =
      run % 2 ? ['bare', 'service', 'service', 'bare'] : ['service', 'bare', 'bare', 'service'];
    const got: Record<Side, M[]> = { bare: [], service: [] };
    for (const side of [...abba, ...abba]) got[side].push(await measure(side, seconds / 4));
    const bare = combine(got.bare);
    const service = combine(got.service);
    ratios.push(service.rps / bare.rps);
    report(run, bare, service);
  }
  return ratios;
}

export type Verdict = {
  route: Route;
  connections: Connections;
  ratios: number[];
  median: number;
  target: number;
  met: boolean;
};

export const verdict = (route: Route, connections: Connections, ratios: number[]): Verdict => {
  const target = TARGETS[route][connections];
  const m = median(ratios);
  return { route, connections, ratios, median: m, target, met: m >= target };
};

/** The verdicts as lines saying plainly which target is met and which is not. */
export function verdictLines(verdicts: Verdict[]): string[] {
  const lines = FIGURES.flatMap((f) => [
    `  ${f.name}: ${f.meaning}`,
    ...verdicts
      .filter((v) => v.connections === f.connections)
      .map(
        (v) =>
          `    ${v.route.padEnd(15)} median ${v.median.toFixed(2)}x the bare route (runs ${v.ratios.map((r) => r.toFixed(2)).join(', ')}), target >= ${v.target.toFixed(2)}: ${v.met ? 'met' : 'NOT MET'}`,
      ),
  ]);
  const missed = verdicts.filter((v) => !v.met);
  lines.push(
    missed.length
      ? `  ${missed.length} of ${verdicts.length} targets NOT MET: ${missed.map((v) => `${v.route} at ${figureName(v.connections)}`).join('; ')}`
      : `  all ${verdicts.length} targets met`,
  );
  return lines;
}
