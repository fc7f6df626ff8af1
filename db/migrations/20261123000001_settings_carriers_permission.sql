-- migrate:up
-- `settings.carriers` (shop set-up: connecting and disconnecting carriers) is new; shops' Owner roles
-- were given every permission when created, so they get this one too.
UPDATE roles SET permissions = array_append(permissions, 'settings.carriers')
WHERE name = 'Owner' AND NOT ('settings.carriers' = ANY (permissions));

-- migrate:down
UPDATE roles SET permissions = array_remove(permissions, 'settings.carriers');
