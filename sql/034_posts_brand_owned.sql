-- Issue 24: a post's brand is its account's, kept by the database rather than by each statement
-- that writes a post. The composite foreign key replaces posts_brand_id_fkey: the check it makes
-- on insert is the one the old key made (one brands row, locked FOR KEY SHARE), so the create
-- statement no longer looks the brand up itself (measured: about 20 µs of Postgres a post).
-- Brands never move between accounts, so the key never re-keys.
alter table brands add constraint brands_id_account_key unique (id, account_id);

-- The listing index leads with both key columns, so a brand's delete cascades by index. A brand
-- has one account, so within a brand it orders rows exactly as (brand_id, status, id) did, and
-- the listing (brand, account and status given) reads it the same way.
drop index posts_listing_idx;
create index posts_listing_idx on posts (brand_id, account_id, status, id desc);

alter table posts
  add constraint posts_brand_owned foreign key (brand_id, account_id)
    references brands (id, account_id) on delete cascade;
alter table posts drop constraint posts_brand_id_fkey;
