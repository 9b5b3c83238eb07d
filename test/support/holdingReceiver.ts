// A webhook receiver on loopback for the fault suite. While `holding` is on it answers
// nothing: each request stays open (the sender's worker can then be killed mid-delivery).
// Otherwise each event (told apart by its body) gets 500 on the first answered request and
// 204 after. It records every request and how it ended: answered (with the status), or cut
// (the sender went away before an answer). `answerHeld` answers the requests held so far;
// `close()` ends every open request.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HeldArrival = {
  body: string;
  at: number;
  /** When it was answered or cut (this process's clock, as `at`); undefined while open. */
  endedAt?: number;
  /** The status answered, or 'cut' (the sender closed first), or 'open' (still held). */
  outcome: number | 'cut' | 'open';
};

export type HoldingReceiver = {
  url: string;
  holding: boolean;
  arrivals: HeldArrival[];
  /** Requests held open right now. */
  held: () => number;
  /** Answers every request held open now with `status` (those carrying `body` alone, if given). */
  answerHeld: (status: number, body?: string) => void;
  /** The arrivals carrying `body`, in order. */
  of: (body: string) => HeldArrival[];
  close: () => Promise<void>;
};

export async function startHoldingReceiver(): Promise<HoldingReceiver> {
  const arrivals: HeldArrival[] = [];
  const open = new Map<HeldArrival, (status: number) => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrival: HeldArrival = {
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        outcome: 'open',
      };
      arrivals.push(arrival);
      if (receiver.holding) {
        res.on('close', () => {
          open.delete(arrival);
          if (arrival.outcome !== 'open') return;
          arrival.outcome = 'cut';
          arrival.endedAt = Date.now();
        });
        open.set(arrival, (status) => {
          arrival.outcome = status;
          arrival.endedAt = Date.now();
          res.writeHead(status).end();
        });
        return;
      }
      const answeredBefore = arrivals.some(
        (a) => a !== arrival && a.body === arrival.body && typeof a.outcome === 'number',
      );
      arrival.outcome = answeredBefore ? 204 : 500;
      arrival.endedAt = arrival.at;
      res.writeHead(arrival.outcome).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const receiver: HoldingReceiver = {
    url: `http://127.0.0.1:${port}/hook`,
    holding: false,
    arrivals,
    held: () => arrivals.filter((a) => a.outcome === 'open').length,
    answerHeld: (status, body) => {
      for (const [arrival, answer] of [...open])
        if (body === undefined || arrival.body === body) answer(status);
    },
    of: (body) => arrivals.filter((a) => a.body === body),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return receiver;
}
