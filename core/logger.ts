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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, base: { pid: process.pid }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    destination,
  );
}

export type { Logger };
