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
type Tracked = FastifyRequest & { [IN_FLIGHT_SLOT]?: number };

export type InFlight = {
  add(reply: FastifyReply): void;
  /** Forgets `req`; a second call, or one for a request never added, does nothing. */
  remove(req: FastifyRequest): void;
  /** The replies of the requests still being answered (`reply.request`), in slot order. */
  entries(): FastifyReply[];
};

/** Whether `reply`'s client is gone (its connection closed): no answer can reach it. */
const abandoned = (reply: FastifyReply) => reply.request.raw.socket?.destroyed !== false;

/**
 * The app removes a request when its response ends. One that never ends for the app (its
 * client hung up: Fastify runs no hook for a client gone after sending its whole body) is
 * swept instead, once its connection has closed: when the slots would otherwise grow, and
 * before they are listed. So nothing is spent per request on it, and the slots stay within
 * the peak of requests really open.
 */
export function createInFlight(): InFlight {
  const replies: Array<FastifyReply | undefined> = [];
  const free: number[] = [];
  const remove = (req: FastifyRequest) => {
    const slot = (req as Tracked)[IN_FLIGHT_SLOT];
    if (slot === undefined || replies[slot]?.request !== req) return;
    replies[slot] = undefined;
    (req as Tracked)[IN_FLIGHT_SLOT] = undefined;
    free.push(slot);
  };
  const sweep = () => {
    for (const reply of replies) if (reply && abandoned(reply)) remove(reply.request);
  };
  return {
    add(reply) {
      if (!free.length) sweep();
      const slot = free.pop() ?? replies.length;
      replies[slot] = reply;
      (reply.request as Tracked)[IN_FLIGHT_SLOT] = slot;
    },
    remove,
    entries() {
      sweep();
      return replies.filter((reply): reply is FastifyReply => reply !== undefined);
    },
  };
}
