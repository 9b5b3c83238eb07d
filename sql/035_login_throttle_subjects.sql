-- Issue 38: the login throttle counts what the account lookup finds (the account's id, or an
-- e-mail no account has as Postgres lowers it, the lookup's lower()), never a JavaScript
-- spelling of the e-mail; and what one client does no longer holds back another
-- (core/sessions/loginThrottle.ts). The records are short-lived: nothing is carried over.
--
-- Every table here is new. 012's login_attempts and login_address_emails stay as they are,
-- unused from this release on: processes of the previous release still running through a
-- rolling deploy keep signing people in with them (dropping or reshaping them would answer
-- each of those sign-ins 500). A later migration drops them.

-- Per subject and client: the strict count. A client is an address (IPv4, or an IPv6 /64) or
-- a browser holding a valid session for that account ('session:<id>').
create table login_client_attempts (
  subject text not null, -- 'account:<id>' or 'email:<lower(email)>'
  client text not null,
  attempts int not null,
  last_attempt_at timestamptz not null,
  primary key (subject, client)
);
create index login_client_attempts_last_attempt_at on login_client_attempts (last_attempt_at);

-- Per client address: the distinct subjects tried from it without success (credential
-- stuffing).
create table login_address_subjects (
  address text not null,
  subject text not null,
  added_at timestamptz not null,
  primary key (address, subject)
);
create index login_address_subjects_added_at on login_address_subjects (added_at);

-- Per subject, from every client: wrong passwords, which slow (never refuse) further attempts.
-- next_slot_at is the latest moment a held attempt was given to have its password checked:
-- held attempts on one subject take turns, each the hold after the one before.
create table login_subject_failures (
  subject text primary key,
  failures int not null,
  last_failure_at timestamptz not null,
  next_slot_at timestamptz
);
create index login_subject_failures_last_failure_at on login_subject_failures (last_failure_at);
