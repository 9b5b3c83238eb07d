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
 * A query parameter is taken for a credential when its name holds one of these words: a
 * signed media address's signature, and the names clients put keys, tokens, passwords, OAuth
 * codes and sessions under (`access_token`, `client_secret`, `apiKey`, `X-Api-Key`,
 * `code_verifier`, `registration_access_token`, `authorization`, `session`...), and an OAuth
 * callback's `state`. The service reads none of them from a query but that callback's `code`
 * and `state` (/connect/{platform}/callback), yet a client that sends its key as `?token=` must not find
 * it in the operator's logs; a pattern, not a list, since a name nobody listed is the one that
 * leaks. Some harmless names are cut too (`code_challenge`); the ones the service reads
 * (`limit`, `cursor`, `brand_id`, `status`...) stay readable.
 */
const SECRET_NAME =
  /token|secret|passw|pwd|key|code|auth|session|bearer|cookie|credential|signature|assertion|jwt|state/;

/**
 * A parameter's name as some parser may read it: percent-decoded (again, for a name encoded
 * twice), `+` a space, lower case, with only its letters and digits, so `Token[]`,
 * `token%00`, `%3Ftoken`, `api-key` and `refreshToken` are `token`, `token`, `token`,
 * `apikey` and `refreshtoken`.
 */
function normalisedParam(name: string): string {
  let decoded = name.replace(/\+/g, ' ');
  for (let i = 0; i < 5 && decoded.includes('%'); i++)
    decoded = decoded.replace(/%([0-9a-f]{2})/gi, (_, hex) =>
      String.fromCharCode(parseInt(hex, 16)),
    );
  return decoded.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const isSecretParam = (name: string) => {
  const normalised = normalisedParam(name);
  return normalised === 'sig' || SECRET_NAME.test(normalised);
};

/**
 * The URL as logged: a signed address with its signature cut, or a key or code sent in the
 * query with its value cut, cannot be replayed from logs. The query is split where any parser
 * might split it (`&`, `;`, a further `?`, and `#`, which a raw request may carry), so a
 * credential behind `?a=b?token=` or `?x=1;token=` is cut too.
 */
export const redactUrl = (url: string): string => {
  const at = url.search(/[?#]/);
  if (at < 0) return url;
  const parts = url.slice(at + 1).split(/([&;?#])/);
  for (let i = 0; i < parts.length; i += 2) {
    const part = parts[i] as string;
    const eq = part.indexOf('=');
    if (eq >= 0 && isSecretParam(part.slice(0, eq))) parts[i] = `${part.slice(0, eq)}=[redacted]`;
  }
  return url.slice(0, at + 1) + parts.join('');
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
