// JSON logs (pino) with secrets redacted wherever they appear.
import pino, { type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.key',
  '*.secret',
  '*.token',
  '*.authorization',
];

/** Query parameters that are credentials: a signed media address's signature. */
const SECRET_QUERY = /([?&]sig=)[^&#]*/gi;

/** The URL as logged: a signed address with its signature cut cannot be replayed from logs. */
export const redactUrl = (url: string): string => url.replace(SECRET_QUERY, '$1[redacted]');

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
    destination,
  );
}

export type { Logger };
