// The request log: one line per request, written when the response is done (method, redacted
// URL, status, time), instead of Fastify's two; "incoming request" is written at debug level.
// A request's child logger (its reqId bound) is only made when something logs for it: most
// requests never do, and making one for each cost as much as a log line.
import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

export class AccessLog extends LogController {
  /** At debug level only (LOG_LEVEL=debug): what arrived, before it is answered. */
  override incomingRequest(request: FastifyRequest) {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const line = {
      reqId: request.id,
      // The logger's own `req` serializer (core/logger.ts) writes it, redacted, once.
      req: request,
      res: { statusCode: reply.statusCode },
      responseTime: reply.elapsedTime,
    };
    // The server's logger with the reqId in the line: the same line as the request's own
    // logger writes, without making that child for a request that logged nothing else.
    const log = request.server.log;
    if (error) log.error({ ...line, err: error }, 'request errored');
    else log.info(line, 'request completed');
  }
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/** Fastify's childLoggerFactory: a child made on first use (the same lines, the same reqId). */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  opts: ChildLoggerOptions,
): FastifyBaseLogger {
  let child: FastifyBaseLogger | undefined;
  const real = () => {
    child ??= logger.child(bindings, opts);
    return child;
  };
  const lazy = {
    get level() {
      return child?.level ?? logger.level;
    },
    set level(level: string) {
      real().level = level;
    },
    child: (b: Bindings, o?: ChildLoggerOptions) => real().child(b, o),
    silent: () => {},
  } as Record<string, unknown>;
  // pino's; Fastify's silent logger has none (and writes nothing anyway).
  const enabled = (logger as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled;
  for (const level of LEVELS)
    lazy[level] = (...args: unknown[]) => {
      // Below the level nothing is written: no child is made for it either.
      if (enabled && !enabled.call(logger, level)) return;
      (real()[level] as (...a: unknown[]) => void)(...args);
    };
  return lazy as unknown as FastifyBaseLogger;
}
