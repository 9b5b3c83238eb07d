-- Issue 18, item 1: a render that succeeds can still leave text out of its frame (text that
-- does not fit even at its smallest size). The render of `rendered_version` records what, so
-- every answer about the design can report it beside render_error.
alter table designs add column render_warnings jsonb not null default '[]'
  check (jsonb_typeof(render_warnings) = 'array');
