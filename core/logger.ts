// JSON logs (pino), credentials kept out: by serializers and by redacting exact paths.
import pino, { type Logger } from 'pino';

// Redaction by exact paths: pino checks each path on the lines that hold its first key, so
// a request's access line costs nothing here (wildcard paths walked every line, and cost
// more than the rest of writing it, measured by bench/throughput.ts). What each covers: an error's own fields (pino's err serializer copies
// them). A request and a response are only ever logged through serializers that keep no
// headers (serializeRequest below; Fastify's res: the status code), so no path under them can
// hold a credential (test/api/requestLogs.test.ts).
export const REDACT_PATHS = [
  'err.password',
  'err.key',
  'err.secret',
  'err.token',
  'err.authorization',
];

/**
 * Query parameters that are credentials: a signed media address's signature, and the names
 * clients put keys, tokens and OAuth codes under (the service reads none of them from a query,
 * but a client that sends its key as `?token=` must not find it in the operator's logs).
 */
const SECRET_PARAMS = new Set([
  'sig',
  'token',
  'access_token',
  'refresh_token',
  'key',
  'api_key',
  'code',
]);

const decodedKey = (key: string) => {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return key.toLowerCase();
  }
};

/**
 * The URL as logged: a signed address with its signature cut, or a key or code sent in the
 * query with its value cut, cannot be replayed from logs.
 * Keys are compared decoded, as the query parser reads them (`%73ig` is `sig`).
 */
export const redactUrl = (url: string): string => {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const [query, fragment] = url.slice(at + 1).split(/#(.*)/s, 2) as [string, string?];
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    return SECRET_PARAMS.has(decodedKey(key)) ? `${key}=[redacted]` : part;
  });
  return `${url.slice(0, at)}?${parts.join('&')}${fragment !== undefined ? `#${fragment}` : ''}`;
};

type LoggedRequest = {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
};

/** Fastify's request serializer, with the URL redacted. */
export const serializeRequest = (req: LoggedRequest) => ({
  method: req.method,
  url: redactUrl(req.url),
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { req: serializeRequest },
    },
    destination ?? bufferedStdout(),
  );
}

/**
 * Standard output, written 64 KB at a time (at most 200 ms late) rather than a write call per
 * line; flushed as the process exits (a crash included), so only a SIGKILL loses lines. A
 * write call costs about the same whatever its size up to there: appending to a file took
 * 1.7 µs of CPU a line in 4 KB writes and 0.2 µs in 64 KB ones.
 *
 * Lines are gathered here and handed to sonic-boom (which writes them, retrying a full pipe)
 * a batch at a time. Left to buffer them itself, sonic-boom measures the UTF-8 length of its
 * whole pending buffer on every line, flattening it first: about 10,000 instructions a line
 * (callgrind), the largest part of an access line's cost.
 */
const BATCH_CHARS = 64 * 1024;

function bufferedStdout(): pino.DestinationStream {
  const out = pino.destination({ dest: 1, sync: true });
  let batch = '';
  const flush = () => {
    if (!batch) return;
    const lines = batch;
    batch = '';
    out.write(lines);
  };
  setInterval(flush, 200).unref();
  process.once('exit', flush);
  return {
    write(line: string) {
      batch += line;
      if (batch.length >= BATCH_CHARS) flush();
    },
    // For logger.flush() (pino calls the stream's), and anyone holding the stream.
    flush(done?: (err?: Error) => void) {
      flush();
      out.flush(done);
    },
    flushSync() {
      flush();
      out.flushSync();
    },
  } as pino.DestinationStream;
}

export type { Logger };
