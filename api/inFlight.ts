// The requests being answered, for shutdown (api/app.ts tells each to hang up) and for the
// operator's view of open work (bin/start.ts).
//
// Not a Map or Set, on purpose. V8 compacts a Map whose entries keep being added and deleted
// into a new table, and the obsolete table keeps pointing at its successor and at the entries
// it held. Once one table has reached the old generation (any full GC under load puts it
// there), every later table and every request and reply it ever held look alive to each
// young-generation GC and are copied out to the old generation: measured on this service, each
// scavenge went from about 2 ms to 15 ms, 10 MB a second was promoted, and a third of the
// processes started ran `GET /v1/me` with 30% more CPU per request for as long as they ran.
// A fixed array of slots with a free list has no such chain: a finished request's slot is
// cleared, and nothing points from old to young once it is.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Where a request keeps its slot; the app declares it on every request (decorateRequest). */
export const IN_FLIGHT_SLOT = Symbol('inFlightSlot');
const SLOT = IN_FLIGHT_SLOT;
type Tracked = FastifyRequest & { [SLOT]?: number };

export type InFlight = {
  add(req: FastifyRequest, reply: FastifyReply): void;
  /** Forgets `req`; a second call, or one for a request never added, does nothing. */
  remove(req: FastifyRequest): void;
  /** The requests still being answered, with their replies, in slot order. */
  entries(): Array<[FastifyRequest, FastifyReply]>;
};

/** Whether `req`'s client is gone (its connection closed): no answer can reach it. */
const abandoned = (req: FastifyRequest) => req.raw.socket?.destroyed !== false;

/**
 * The app removes a request when its response ends. One that never ends for the app (its
 * client hung up: Fastify runs no hook for a client gone after sending its whole body) is
 * swept instead, once its connection has closed: when the slots would otherwise grow, and
 * before they are listed. So nothing is spent per request on it, and the slots stay within
 * the peak of requests really open.
 */
export function createInFlight(): InFlight {
  const requests: Array<FastifyRequest | undefined> = [];
  const replies: Array<FastifyReply | undefined> = [];
  const free: number[] = [];
  const remove = (req: FastifyRequest) => {
    const slot = (req as Tracked)[SLOT];
    if (slot === undefined || requests[slot] !== req) return;
    requests[slot] = undefined;
    replies[slot] = undefined;
    (req as Tracked)[SLOT] = undefined;
    free.push(slot);
  };
  const sweep = () => {
    for (const req of requests) if (req && abandoned(req)) remove(req);
  };
  return {
    add(req, reply) {
      if (!free.length) sweep();
      const slot = free.pop() ?? requests.length;
      requests[slot] = req;
      replies[slot] = reply;
      (req as Tracked)[SLOT] = slot;
    },
    remove,
    entries() {
      sweep();
      const out: Array<[FastifyRequest, FastifyReply]> = [];
      for (let i = 0; i < requests.length; i++)
        if (requests[i]) out.push([requests[i]!, replies[i]!]);
      return out;
    },
  };
}
