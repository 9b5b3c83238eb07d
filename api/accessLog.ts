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
import pino, { type Bindings, type ChildLoggerOptions } from 'pino';
import { serializeRequest } from '../core/logger.ts';

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
    // The server's logger with the reqId in the line: the same line as the request's own
    // logger writes, without making that child for a request that logged nothing else.
    const log = request.server.log;
    if (!error && writeCompletedLine(log, request, reply)) return;
    const line = {
      reqId: request.id,
      // The logger's own `req` serializer (core/logger.ts) writes it, redacted, once.
      req: request,
      res: { statusCode: reply.statusCode },
      responseTime: reply.elapsedTime,
    };
    if (error) log.error({ ...line, err: error }, 'request errored');
    else log.info(line, 'request completed');
  }
}

const INFO = 30;
// msgPrefixSym is missing from pino's typings.
const sym = pino.symbols as typeof pino.symbols & { msgPrefixSym: symbol };
type Internals = Record<symbol, unknown> & { levelVal?: number };
type Destination = { write(line: string): unknown };

/** No `res` serializer, or one that keeps `{ statusCode }` as it is (Fastify adds such a one). */
const resKeptAsIs = (serialize: unknown) =>
  typeof serialize !== 'function' ||
  JSON.stringify(serialize({ statusCode: 201 })) === '{"statusCode":201}';

const handWritable = new WeakMap<object, boolean>();

/**
 * Whether a line built by hand and written to this logger's destination is the very line
 * pino would write for the access fields: a pino logger with the default level label, time,
 * message key and line end, our request serializer, and nothing that rewrites or reroutes a
 * line (formatters, mixin, message prefix, a nested key, redaction or other serializers of
 * these fields, a stream-write hook, a multistream). Decided once per logger.
 */
function writesLikePino(log: Internals): boolean {
  let ok = handWritable.get(log);
  if (ok !== undefined) return ok;
  const stream = log[sym.streamSym] as Record<string | symbol, unknown> | undefined;
  const formatters = log[sym.formattersSym] as { log?: unknown } | undefined;
  const hooks = log[sym.hooksSym] as { streamWrite?: unknown } | undefined;
  const stringifiers = (log[sym.stringifiersSym] ?? {}) as Record<string, unknown>;
  const serializers = (log[sym.serializersSym] ?? {}) as Record<string, unknown>;
  ok =
    typeof stream?.write === 'function' &&
    !stream[sym.needsMetadataGsym] &&
    (log[sym.lsCacheSym] as Record<number, string> | undefined)?.[INFO] === `{"level":${INFO}` &&
    log[sym.timeSym] === pino.stdTimeFunctions.epochTime &&
    log[sym.messageKeySym] === 'msg' &&
    log[sym.endSym] === '}\n' &&
    !log[sym.nestedKeySym] &&
    !log[sym.mixinSym] &&
    log[sym.msgPrefixSym] === undefined &&
    !formatters?.log &&
    !hooks?.streamWrite &&
    ['reqId', 'req', 'res', 'responseTime', 'msg'].every((k) => !stringifiers[k]) &&
    serializers.req === serializeRequest &&
    resKeptAsIs(serializers.res) &&
    ['reqId', 'responseTime', 'msg'].every((k) => !serializers[k]) &&
    typeof log[sym.chindingsSym] === 'string';
  handWritable.set(log, ok);
  return ok;
}

/**
 * Writes the "request completed" line straight to a pino logger's destination: the very
 * line `log.info({ reqId, req, res, responseTime }, 'request completed')` writes (same
 * fields, order, serializer), built in one pass. Going through pino cost about a third of
 * the node CPU between our /v1/me and a bare route's (pino walks each key for serializers
 * and stringifiers). False, with nothing written, for any logger set up otherwise
 * (writesLikePino): it gets log.info.
 */
function writeCompletedLine(
  log: FastifyBaseLogger,
  request: FastifyRequest,
  reply: FastifyReply,
): boolean {
  const internals = log as unknown as Internals;
  if (!writesLikePino(internals)) return false;
  if (internals.levelVal! > INFO) return true; // below the level: nothing to write
  (internals[sym.streamSym] as Destination).write(
    `{"level":${INFO},"time":${Date.now()}${internals[sym.chindingsSym]},"reqId":${JSON.stringify(request.id)},"req":${JSON.stringify(serializeRequest(request))},"res":{"statusCode":${reply.statusCode}},"responseTime":${reply.elapsedTime},"msg":"request completed"}\n`,
  );
  return true;
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogFn = (...args: unknown[]) => void;

/**
 * A request's logger, made on every request: its child (the reqId bound) only on first use.
 * A class, so that making one is a single small object rather than a closure per level.
 */
class LazyChild {
  #child: FastifyBaseLogger | undefined;
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #opts: ChildLoggerOptions;
  constructor(parent: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#opts = opts;
  }
  #real(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#opts);
    return this.#child;
  }
  #log(level: Level, args: unknown[]) {
    // Below the level nothing is written: no child is made for it either. (pino has
    // isLevelEnabled; Fastify's silent logger has none, and writes nothing anyway.)
    const enabled = (this.#parent as { isLevelEnabled?: (level: string) => boolean })
      .isLevelEnabled;
    if (enabled && !enabled.call(this.#parent, level)) return;
    (this.#real()[level] as LogFn)(...args);
  }
  get level() {
    return this.#child?.level ?? this.#parent.level;
  }
  set level(level: string) {
    this.#real().level = level;
  }
  child(bindings: Bindings, opts?: ChildLoggerOptions) {
    return this.#real().child(bindings, opts);
  }
  silent() {}
  fatal(...args: unknown[]) {
    this.#log('fatal', args);
  }
  error(...args: unknown[]) {
    this.#log('error', args);
  }
  warn(...args: unknown[]) {
    this.#log('warn', args);
  }
  info(...args: unknown[]) {
    this.#log('info', args);
  }
  debug(...args: unknown[]) {
    this.#log('debug', args);
  }
  trace(...args: unknown[]) {
    this.#log('trace', args);
  }
}

type MakeChild = (bindings: Bindings, opts?: ChildLoggerOptions) => FastifyBaseLogger;

/** `log` itself, except for how it makes children (derived as pino derives a child). */
const withChildren = (log: FastifyBaseLogger, child: MakeChild): FastifyBaseLogger =>
  Object.create(log, { child: { value: child } });

/** `log` itself, except that its children are made on first use (LazyChild). */
const withLazyChildren = (log: FastifyBaseLogger): FastifyBaseLogger =>
  withChildren(
    log,
    (bindings, opts) => new LazyChild(log, bindings, opts ?? {}) as unknown as FastifyBaseLogger,
  );

/**
 * The logger to hand Fastify. Fastify makes the app's logger from it once (a child with its
 * serializers), then a child of that for each request through its default factory: the app's
 * logger is a real child whose own children are made on first use, so a request that logs
 * nothing makes none. Not a childLoggerFactory: Fastify checks each logger a factory of ours
 * returns for its seven methods, about 8k instructions a request (callgrind), and skips that
 * only for its default factory. Derived as pino derives a child (Object.create), so every
 * field and symbol of the real logger reads through (a level set on the app's logger at run
 * time stays there: request loggers keep the level it was made with).
 */
export const forFastify = (log: FastifyBaseLogger): FastifyBaseLogger =>
  withChildren(log, (bindings, opts) => withLazyChildren(log.child(bindings, opts)));
