-- Issue 21: posts of third parties that mention a brand's connected account or
-- answer one of its posts (or hold a keyword the brand watches), collected every 5 minutes per
-- account (core/engagement/), as reply suggestions and engagement inbox items. Their text, handle and address are the third party's: kept as given, answered
-- under `untrusted`. A reply is sent at most once a suggestion: its job and outcome are kept
-- on the row.
create table inbound_items (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint not null references brands (id) on delete cascade,
  connected_account_id bigint not null references connected_accounts (id) on delete cascade,
  platform text not null,
  kind text not null check (kind in ('mention', 'reply', 'keyword')),
  -- Their post on the platform (a status id, an at:// URI) and what a reply to it needs
  -- beyond that (Bluesky: its cid and its thread's root).
  external_id text not null check (char_length(external_id) between 1 and 200),
  reply_ref jsonb,
  url text check (char_length(url) <= 2000),
  author_handle text not null check (char_length(author_handle) between 1 and 500),
  author_id text not null check (char_length(author_id) between 1 and 200),
  text text not null check (char_length(text) <= 10000),
  posted_at timestamptz not null,
  -- Our post it answers, when it answers one of ours (history outlives the post).
  post_id bigint references posts (id) on delete set null,
  received_at timestamptz not null default now(),
  status text not null default 'open'
    check (status in ('open', 'drafted', 'replied', 'dismissed')),
  -- Drafted replies, newest last: [{text, created_at}].
  drafts jsonb not null default '[]' check (jsonb_typeof(drafts) = 'array'),
  -- The reply asked for (post_reply): its text, when it was asked, its job and outcome.
  reply_text text check (char_length(reply_text) <= 10000),
  reply_requested_at timestamptz,
  reply_job_id bigint,
  reply_external_id text check (char_length(reply_external_id) <= 500),
  reply_url text check (char_length(reply_url) <= 2000),
  replied_at timestamptz,
  unique (connected_account_id, external_id),
  check ((status = 'replied') = (reply_external_id is not null))
);
create index inbound_items_brand_idx on inbound_items (brand_id, id desc);
create index inbound_items_pending_idx on inbound_items (brand_id, id desc)
  where status in ('open', 'drafted');
create index inbound_items_post_idx on inbound_items (post_id) where post_id is not null;

-- Where each account's reading of mentions stopped (a notification id, a time).
create table inbound_cursors (
  connected_account_id bigint primary key
    references connected_accounts (id) on delete cascade,
  cursor text not null check (char_length(cursor) between 1 and 200),
  read_at timestamptz not null default now()
);

-- Our posts by their platform id (a reply or a mention names the post it answers).
create index posts_external_idx on posts (brand_id, platform, external_post_id)
  where external_post_id is not null;

-- The engagement inbox: actions the brand's rules propose on inbound items, one of each kind
-- an item, each executed at most once when approved (its job: an `engagement_action` job, or
-- for a reply the item's one `reply` job).
create table engagement_actions (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint not null references brands (id) on delete cascade,
  item_id bigint not null references inbound_items (id) on delete cascade,
  action text not null check (action in ('like', 'repost', 'reply', 'follow')),
  draft text check (char_length(draft) <= 3000),
  status text not null default 'proposed' check (status in ('proposed', 'approved', 'dismissed')),
  job_id bigint,
  created_at timestamptz not null default now(),
  decided_at timestamptz,
  unique (item_id, action)
);
create index engagement_actions_brand_idx on engagement_actions (brand_id, status, id desc);

-- Agent tasks (item 4, preview feature agent_tasks): a fixed plan of steps over the service's
-- own operations, run as one `agent_task` job of the generate pool; each step is logged here
-- as it ends, with what it made.
create table agent_tasks (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint not null references brands (id) on delete cascade,
  kind text not null check (kind in ('draft_week', 'reply_sweep', 'trend_brief')),
  goal text not null check (char_length(goal) between 1 and 1000),
  job_id bigint,
  steps jsonb not null default '[]' check (jsonb_typeof(steps) = 'array'),
  outputs jsonb not null default '{}' check (jsonb_typeof(outputs) = 'object'),
  created_at timestamptz not null default now()
);
create index agent_tasks_account_idx on agent_tasks (account_id, id desc);

alter table jobs drop constraint jobs_kind_check;
alter table jobs add constraint jobs_kind_check
  check (kind in ('video_export', 'video_preview', 'generation', 'draft_week', 'history_import',
                  'genome', 'drawing_export', 'drawing_save', 'reply', 'reply_drafts',
                  'engagement_action', 'agent_task'));
