// The throughput bench's load generator, a process of its own so its CPU is counted apart:
// autocannon against one URL (32 connections unless told), then one JSON line with the
// result and this process's CPU time. Arguments: a JSON object {url, seconds, connections,
// method, headers, body}.
import autocannon from 'autocannon';

const opts = JSON.parse(process.argv[2]!) as {
  url: string;
  seconds: number;
  connections?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
};
const before = process.cpuUsage();
const result = await autocannon({
  url: opts.url,
  method: (opts.method ?? 'GET') as 'GET',
  headers: opts.headers,
  body: opts.body,
  connections: opts.connections ?? 32,
  duration: opts.seconds,
});
const cpu = process.cpuUsage(before);
console.log(
  JSON.stringify({
    requests: result.requests.total,
    rps: result.requests.average,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuMicros: cpu.user + cpu.system,
  }),
);
