-- Worker liveness (the connectors issue): each worker process heartbeats the ids it locks jobs
-- under; a sweeper releases the jobs of ids whose heartbeat stopped, instead of Graphile
-- Worker's four-hour lock expiry.
create unlogged table worker_heartbeats (
  worker_id text primary key,
  pid int not null,
  host text not null,
  last_seen_at timestamptz not null default now()
);
