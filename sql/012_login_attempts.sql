-- Login throttling records each attempt before the password is checked, so that parallel
-- attempts queue on one row and cannot all pass (core/sessions/loginThrottle.ts). Per e-mail:
-- attempts in the current window. Per client address: the distinct e-mails tried from it
-- without success (credential stuffing), rather than one counter every failure bumps.
drop table login_failures;

create table login_attempts (
  email text primary key, -- lower-cased
  attempts int not null,
  last_attempt_at timestamptz not null
);

create table login_address_emails (
  address text not null, -- an IPv4 address, or an IPv6 /64
  email text not null,
  added_at timestamptz not null,
  primary key (address, email)
);
create index login_address_emails_added_at on login_address_emails (added_at);
create index login_attempts_last_attempt_at on login_attempts (last_attempt_at);
