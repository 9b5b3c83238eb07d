// One LISTEN connection per process, shared by every waiter (render waits today, job waits
// later). A waiter holding a pooled connection for the length of its wait let one account's
// burst of slow calls take every connection of the pool; here a wait costs a Set entry.
// The connection is opened on first use, outside the pool, and opened again after it breaks.
import pg from 'pg';
import type { Pool } from './pool.ts';

/** A payload, or `undefined` when the connection broke and a notification may have been lost. */
export type NotificationHandler = (payload: string | undefined) => void;

export type Notifications = {
  /**
   * Calls `handler` with every payload sent on `channel` until the returned function is called.
   * Resolves once LISTEN is in effect: state read after it cannot miss a later notification.
   */
  subscribe(channel: string, handler: NotificationHandler): Promise<() => void>;
  /** Ends the connection; later subscriptions are refused. */
  close(): Promise<void>;
};

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

export function createNotifications(pool: Pool): Notifications {
  const handlers = new Map<string, Set<NotificationHandler>>();
  let connection:
    | Promise<{ client: pg.Client; listening: Map<string, Promise<unknown>> }>
    | undefined;
  let closed = false;

  const dispatch = (channel: string, payload: string | undefined) => {
    for (const handler of handlers.get(channel) ?? []) handler(payload);
  };

  const connect = () => {
    if (connection) return connection;
    const client = new pg.Client(pool.options);
    const listening = new Map<string, Promise<unknown>>();
    const opened = client.connect().then(() => ({ client, listening }));
    connection = opened;
    const lost = () => {
      if (connection !== opened) return;
      connection = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      // Whatever was sent while the connection was down is gone: every waiter looks again.
      for (const channel of handlers.keys()) dispatch(channel, undefined);
    };
    client.on('notification', (n) => dispatch(n.channel, n.payload));
    client.on('error', lost);
    client.on('end', lost);
    opened.catch(lost);
    return opened;
  };

  return {
    async subscribe(channel, handler) {
      if (closed) throw new Error('notifications are closed');
      if (!CHANNEL.test(channel)) throw new Error(`not a channel name: ${channel}`);
      const set = handlers.get(channel) ?? new Set();
      handlers.set(channel, set);
      set.add(handler);
      const unsubscribe = () => void set.delete(handler);
      try {
        const { client, listening } = await connect();
        // Channels stay listened to once asked for: a handful per process, and no UNLISTEN
        // can then race a subscriber arriving on the same channel.
        let listen = listening.get(channel);
        if (!listen) {
          listen = client.query(`listen ${channel}`);
          listening.set(channel, listen);
          listen.catch(() => listening.delete(channel));
        }
        await listen;
      } catch (err) {
        unsubscribe();
        throw err;
      }
      return unsubscribe;
    },
    async close() {
      closed = true;
      const open = connection;
      connection = undefined;
      handlers.clear();
      if (open) await open.then(({ client }) => client.end()).catch(() => undefined);
    },
  };
}
