// The transport for clients that accept only JSON (SPEC.md's own example): the SDK's
// Streamable HTTP transport would answer them 406, and its stream machinery costs 40% of a
// small call (measured). This one hands the already-parsed JSON-RPC message(s) to the SDK
// server and collects the responses; the server does all the protocol work.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from '@modelcontextprotocol/sdk/types.js';

export type JsonExchange =
  | { status: 200; body: JSONRPCMessage | JSONRPCMessage[] }
  | { status: 202 }
  | { status: 400; body: JSONRPCMessage };

const invalidRequest = (message: string): JsonExchange => ({
  status: 400,
  body: { jsonrpc: '2.0', id: null, error: { code: -32600, message } } as unknown as JSONRPCMessage,
});

class OneExchangeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly waiting = new Map<string | number, (m: JSONRPCMessage) => void>();

  async start() {}
  async close() {
    this.onclose?.();
  }
  async send(message: JSONRPCMessage) {
    // Only responses go back; server-to-client requests and notifications need a stream.
    if ('id' in message && ('result' in message || 'error' in message))
      this.waiting.get(message.id as string | number)?.(message);
  }
  /** Delivers one message; resolves with its response (requests) or at once (others). */
  deliver(message: JSONRPCMessage): Promise<JSONRPCMessage | undefined> {
    if (!isJSONRPCRequest(message)) {
      this.onmessage?.(message);
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      this.waiting.set(message.id, resolve);
      this.onmessage?.(message);
    });
  }
}

/** Runs one POST body (a message or a batch) through a connected-on-demand server. */
export async function exchangeJson(
  body: unknown,
  connect: (transport: Transport) => Promise<() => Promise<void>>,
): Promise<JsonExchange> {
  const items = Array.isArray(body) ? body : [body];
  if (!items.length) return invalidRequest('Invalid Request: empty batch');
  const messages: JSONRPCMessage[] = [];
  for (const item of items) {
    const parsed = JSONRPCMessageSchema.safeParse(item);
    if (!parsed.success) return invalidRequest('Invalid Request: not a JSON-RPC 2.0 message');
    messages.push(parsed.data);
  }
  const transport = new OneExchangeTransport();
  const close = await connect(transport);
  try {
    const responses = (await Promise.all(messages.map((m) => transport.deliver(m)))).filter(
      (m): m is JSONRPCMessage => m !== undefined,
    );
    if (!responses.length) return { status: 202 };
    return { status: 200, body: Array.isArray(body) ? responses : responses[0]! };
  } finally {
    // The SDK forgets a handled request's abort controller a few ticks after sending its
    // response; closing before that aborts each one, which cost 4% of a call (profiled).
    await new Promise((resolve) => setImmediate(resolve));
    await close();
  }
}
