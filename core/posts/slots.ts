// Posting slots (CONTRACT.md: "Next free slot"): every brand posts at 09:00, 12:30 and 17:00
// in its time zone, every day, per platform. The next free slot is the earliest future slot
// that no scheduled post of that brand and platform holds.
import type { Queryable } from '../db/pool.ts';
import type { Platform } from '../kernel/platforms.ts';

export const DEFAULT_SLOTS = ['09:00', '12:30', '17:00'];

/** How far ahead to look for a free slot. */
const HORIZON_DAYS = 366;

/**
 * Serializes scheduling for one brand and platform until the transaction ends, so two
 * concurrent calls can never pick the same free slot.
 */
export async function lockSlots(db: Queryable, brandId: string, platform: Platform) {
  await db.query('select pg_advisory_xact_lock($1::int, hashtext($2))', [
    Number(BigInt(brandId) % 2_147_483_647n),
    platform,
  ]);
}

/** The next free slot as an ISO time (null when every slot of the horizon is held). */
export async function nextFreeSlot(
  db: Queryable,
  brandId: string,
  platform: Platform,
): Promise<string | null> {
  const { rows } = await db.query<{ at: string }>(
    `select to_json(s.at) #>> '{}' as at from (
       select ((d::date + t) at time zone b.timezone) as at
       from brands b,
            generate_series((now() at time zone b.timezone)::date,
                            (now() at time zone b.timezone)::date + $4::int, '1 day') d,
            unnest($3::time[]) t
       where b.id = $1
     ) s
     where s.at > now()
       and not exists (select 1 from posts p
                       where p.brand_id = $1 and p.platform = $2 and p.status = 'scheduled'
                         and p.scheduled_for = s.at)
     order by s.at limit 1`,
    [brandId, platform, DEFAULT_SLOTS, HORIZON_DAYS],
  );
  return rows[0]?.at ?? null;
}

/** The Monday after today in the brand's time zone (a week from today on a Monday). */
export async function nextMonday(db: Queryable, brandId: string): Promise<string> {
  const { rows } = await db.query<{ day: string }>(
    `select to_char((now() at time zone timezone)::date
                    + (8 - extract(isodow from (now() at time zone timezone))::int),
                    'YYYY-MM-DD') as day
     from brands where id = $1`,
    [brandId],
  );
  return rows[0]!.day;
}

/**
 * The first `perDay` slots of each of the 7 days from `startDate` (the brand's time zone)
 * that are still ahead and that no scheduled post, and no draft suggested there, of that
 * brand and platform holds; as ISO times, by day.
 */
export async function freeSlotsOfWeek(
  db: Queryable,
  brandId: string,
  platform: Platform,
  startDate: string,
  perDay: number,
): Promise<string[][]> {
  const { rows } = await db.query<{ day: number; at: string }>(
    `select s.day, to_json(s.at) #>> '{}' as at from (
       select d.n as day, (($4::date + d.n + t) at time zone b.timezone) as at
       from brands b, generate_series(0, 6) d(n), unnest($3::time[]) t
       where b.id = $1
     ) s
     where s.at > now()
       and not exists (select 1 from posts p
                       where p.brand_id = $1 and p.platform = $2
                         and ((p.status = 'scheduled' and p.scheduled_for = s.at)
                              or (p.status = 'draft' and p.suggested_for = s.at)))
     order by s.at`,
    [brandId, platform, DEFAULT_SLOTS, startDate],
  );
  const days: string[][] = Array.from({ length: 7 }, () => []);
  for (const r of rows) if (days[r.day]!.length < perDay) days[r.day]!.push(r.at);
  return days;
}
