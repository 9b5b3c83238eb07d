// The metrics concept's front door: collecting the counts of published posts (the workers'
// operations) and the insight read over them (analytics, best times).

export { collectAccountMetrics, startCollections } from './collect.ts';
export { getAnalytics, getBestTimes } from './insight.ts';
