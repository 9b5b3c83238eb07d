// One LISTEN connection per process, shared by every waiter (render waits today, job waits
// later). A waiter holding a pooled connection for the length of its wait let one account's
// burst of slow calls take every connection of the pool; here a wait costs a Set entry.
// The connection is opened on first use, outside the pool, and opened again after it breaks.
import type pg from 'pg';
import { databaseClient, type Pool } from './pool.ts';

/** A payload, or `undefined` when the connection broke and a notification may have been lost. */
export type NotificationHandler = (payload: string | undefined) => void;

export type Notifications = {
  /**
   * Calls `handler` with every payload sent on `channel` until the returned function is called.
   * Resolves once LISTEN is in effect: state read after it cannot miss a later notification.
   */
  subscribe(channel: string, handler: NotificationHandler): Promise<() => void>;
  /** How many handlers listen on `channel` (for tests and diagnostics). */
  listeners(channel: string): number;
  /** Ends the connection; later subscriptions are refused. */
  close(): Promise<void>;
};

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
const RECONNECT_MS = 1_000;

export function createNotifications(pool: Pool): Notifications {
  const handlers = new Map<string, Set<NotificationHandler>>();
  let connection:
    | Promise<{ client: pg.Client; listening: Map<string, Promise<unknown>> }>
    | undefined;
  let closed = false;

  const dispatch = (channel: string, payload: string | undefined) => {
    for (const handler of handlers.get(channel) ?? []) handler(payload);
  };

  const listenOn = async (channel: string) => {
    const { client, listening } = await connect();
    // Channels stay listened to once asked for: a handful per process, and no UNLISTEN can
    // then race a subscriber arriving on the same channel.
    let listen = listening.get(channel);
    if (!listen) {
      listen = client.query(`listen ${channel}`);
      listening.set(channel, listen);
      listen.catch(() => listening.delete(channel));
    }
    await listen;
  };

  /**
   * After a drop, waiters already subscribed need the connection back without waiting for a
   * new subscriber: listen again on every channel, then wake them all to look again, since
   * whatever was sent meanwhile is gone. Retried each second while anyone listens.
   */
  const reconnect = async () => {
    if (closed || ![...handlers.values()].some((set) => set.size)) return;
    try {
      for (const channel of handlers.keys()) await listenOn(channel);
    } catch {
      setTimeout(() => void reconnect(), RECONNECT_MS).unref();
      return;
    }
    for (const channel of handlers.keys()) dispatch(channel, undefined);
  };

  const connect = () => {
    if (connection) return connection;
    // TCP keepalive, so a connection a NAT dropped silently ends instead of waiting forever.
    const client = databaseClient({
      ...pool.options,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    const listening = new Map<string, Promise<unknown>>();
    let ready = false;
    const opened = client.connect().then(() => {
      ready = true;
      return { client, listening };
    });
    connection = opened;
    const lost = () => {
      if (connection !== opened) return;
      connection = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      // A connection that never opened is retried by reconnect's own timer, not in a loop.
      if (ready) void reconnect();
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
        await listenOn(channel);
      } catch (err) {
        unsubscribe();
        throw err;
      }
      return unsubscribe;
    },
    listeners: (channel) => handlers.get(channel)?.size ?? 0,
    async close() {
      closed = true;
      const open = connection;
      connection = undefined;
      handlers.clear();
      if (open) await open.then(({ client }) => client.end()).catch(() => undefined);
    },
  };
}
