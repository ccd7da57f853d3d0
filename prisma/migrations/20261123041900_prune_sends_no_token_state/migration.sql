-- Hand-written: Prisma does not model triggers, so keep this file when squashing migrations.
-- The pruner (lib/maintenance/prune.ts) deletes only rows that stopped mattering long before the
-- read cache's 900 ms lifetime: expired access tokens, grants expired or revoked long ago, and
-- private-integration tokens that stopped working 30 days ago. Its deletes need not empty every
-- instance's cache (at steady issuing that would be several times a second while it drains). Its
-- batch transactions set maintenance.prune to on (set_config, local to the transaction), and then
-- the trigger function sends nothing. Every other change notifies as before.
--
-- As in token_state_notify: no semicolon except between statements (in the U& string: \003B).

CREATE OR REPLACE FUNCTION "token_state_notify"() RETURNS trigger LANGUAGE plpgsql
  AS U&'BEGIN IF coalesce(current_setting(''maintenance.prune'', true), '''') <> ''on'' THEN PERFORM pg_notify(''token_state'', TG_TABLE_NAME)\003B END IF\003B RETURN NULL\003B END';
