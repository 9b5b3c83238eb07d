-- Native Canvas designs (the Canvas issue): a layout owned per brand, shared by the posts
-- linked to it. `layout_version` counts saved layouts (optimistic concurrency); the render
-- job records which version its pages show, or why it could not render.
create table designs (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint not null references brands (id) on delete cascade,
  template text not null default 'blank',
  layout jsonb not null,
  layout_version int not null default 1,
  rendered_version int,
  render_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index designs_account_idx on designs (account_id, id desc);

alter table posts add column design_id bigint references designs (id) on delete set null;
create index posts_design_idx on posts (design_id) where design_id is not null;

-- A rendered page is an image asset of its design; a new render replaces them.
alter table assets add column design_id bigint references designs (id) on delete cascade;
create index assets_design_idx on assets (design_id) where design_id is not null;
