// Posting slots (CONTRACT.md: "Next free slot"): every brand posts at 09:00, 12:30 and 17:00
// in its time zone, every day, per platform. The next free slot is the earliest future slot
// that no scheduled post of that brand and platform holds.
import type { Queryable } from '../db/pool.ts';
import type { Platform } from '../platforms/capabilities.ts';

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
