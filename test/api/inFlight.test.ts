// The in-flight registry (api/inFlight.ts): what shutdown and the operator's view read, and
// that its slots stay within the peak of requests open, holding no finished one (what the
// young-generation GC promotes as requests churn is a bench figure: npm run bench, promotion).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createInFlight, IN_FLIGHT_SLOT } from '../../api/inFlight.ts';

// A request on an open connection, unless told its client is gone, and its reply.
const request = (n: number, socket = { destroyed: false }) =>
  ({ n, raw: { socket } }) as unknown as FastifyRequest;
const replyTo = (req: FastifyRequest) => ({ request: req }) as unknown as FastifyReply;
const requestsOf = (replies: FastifyReply[]) => replies.map((reply) => reply.request);

describe('in-flight registry', () => {
  it('lists what is added and not yet removed, reusing freed slots', () => {
    const inFlight = createInFlight();
    const [a, b, c, d] = [1, 2, 3, 4].map((n) => request(n)) as [
      FastifyRequest,
      ...FastifyRequest[],
    ];
    inFlight.add(replyTo(a));
    inFlight.add(replyTo(b!));
    inFlight.add(replyTo(c!));
    inFlight.remove(b!);
    inFlight.remove(b!); // twice: nothing more happens
    inFlight.remove(request(9)); // never added
    expect(requestsOf(inFlight.entries())).toEqual([a, c]);
    inFlight.add(replyTo(d!));
    expect(requestsOf(inFlight.entries())).toEqual([a, d, c]);
    inFlight.remove(a);
    inFlight.remove(c!);
    inFlight.remove(d!);
    expect(inFlight.entries()).toEqual([]);
  });

  it('sweeps a request whose client hung up, and reuses its slot', () => {
    const inFlight = createInFlight();
    const socket = { destroyed: false };
    const [gone, open] = [request(1, socket), request(2)];
    inFlight.add(replyTo(gone));
    inFlight.add(replyTo(open));
    socket.destroyed = true; // the client hung up; no hook removes the request
    expect(requestsOf(inFlight.entries())).toEqual([open]);
    const next = request(3);
    inFlight.add(replyTo(next));
    expect(requestsOf(inFlight.entries())).toEqual([next, open]);
  });

  it('keeps its slots within the peak of requests open, holding no finished one', () => {
    const inFlight = createInFlight();
    // Busy like a server: 32 requests open while 5,000 others come and go.
    const open: FastifyRequest[] = [];
    for (let i = 0; i < 5000; i++) {
      const req = request(i);
      inFlight.add(replyTo(req));
      open.push(req);
      if (open.length > 32) inFlight.remove(open.shift()!);
    }
    expect(new Set(requestsOf(inFlight.entries()))).toEqual(new Set(open));
    const slots = open.map((req) => (req as unknown as Record<symbol, number>)[IN_FLIGHT_SLOT]!);
    expect(Math.max(...slots)).toBeLessThan(33);
  });
});
