-- What one publication attempt has done on its platform (core/posts/steps.ts): an upload's id,
-- a container's, a thread part's post id, the time it posted. A connector writes a step before
-- an irreversible call and after it, so a retry after a crash resumes or reads back instead of
-- posting again. Kept with the post; a new attempt (publication_seq) starts empty.
create table publication_steps (
  post_id bigint not null references posts (id) on delete cascade,
  publication_seq int not null,
  step text not null check (char_length(step) between 1 and 200),
  value text not null check (char_length(value) <= 10000),
  recorded_at timestamptz not null default now(),
  primary key (post_id, publication_seq, step)
);
