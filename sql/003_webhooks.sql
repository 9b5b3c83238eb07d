-- Webhook endpoints, one delivery per event and endpoint, and one row per attempt
-- (SPEC.md "Events", CONTRACT.md "Dashboard session routes").

create table webhook_endpoints (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  url text not null,
  events text[] not null,
  -- Kept as given: HMAC signing needs the secret itself. Shown once, never logged.
  secret text not null,
  created_at timestamptz not null default now()
);
create index webhook_endpoints_account_idx on webhook_endpoints (account_id);

create table webhook_deliveries (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  -- Deleting an endpoint deletes its deliveries: their pending attempts find nothing to send.
  endpoint_id bigint not null references webhook_endpoints (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts int not null default 0,
  replay_of bigint references webhook_deliveries (id) on delete set null,
  created_at timestamptz not null default now()
);
create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, id desc);

create table webhook_attempts (
  id bigint generated always as identity primary key,
  delivery_id bigint not null references webhook_deliveries (id) on delete cascade,
  attempt int not null,
  attempted_at timestamptz not null,
  duration_ms int not null,
  status_code int,
  error text
);
create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, id desc);

-- Fans one event out to every endpoint of its account subscribed to its type, as one
-- delivery each with its first attempt queued at once. Called by whoever writes the event,
-- in the same statement or transaction, so an event and its deliveries commit together. It
-- takes the event's account and type as arguments: a statement that inserts the event in a
-- CTE cannot read that row back.
create function enqueue_event_deliveries(p_event_id bigint, p_account_id bigint, p_type text)
returns int language sql volatile as $$
  with d as (
    insert into webhook_deliveries (account_id, endpoint_id, event_id)
    select p_account_id, w.id, p_event_id
    from webhook_endpoints w
    where w.account_id = p_account_id and p_type = any (w.events)
    returning id
  )
  select count(graphile_worker.add_job('deliver_webhook',
           json_build_object('delivery_id', d.id::text, 'attempt', 1),
           job_key := 'deliver_webhook:' || d.id, max_attempts := 1))::int
  from d
$$;
