-- Platform credentials of a connected account, sealed with AES-256-GCM (core/connections/
-- credentials.ts); the key lives in DATA_DIR or CREDENTIALS_KEY, never in the database.
alter table connected_accounts add column credentials bytea;
