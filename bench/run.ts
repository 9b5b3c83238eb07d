// `npm run bench`: every benchmark, printed as figures. Traffic goes to loopback only.
import { benchMe } from './me.ts';
import { startBenchService } from './support.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const svc = await startBenchService();
try {
  await benchMe(svc, seconds);
} finally {
  await svc.stop();
}
