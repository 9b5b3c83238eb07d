-- Alternative text of an image asset, for screen readers; connectors send it with the image
-- (Bluesky's `alt`). Optional: set on upload.
alter table assets add column alt_text text;
