-- At most one test event waiting per subscription (a new test takes the place of one waiting for
-- its next attempt, and is refused while one is being sent): older waiting tests give way to the
-- newest before the rule becomes an index.
UPDATE hook_deliveries d
SET state = 'CANCELADA', leased_until = NULL
WHERE d.event_type = 'TESTE' AND d.state = 'PENDENTE'
  AND EXISTS (SELECT 1 FROM hook_deliveries n
              WHERE n.subscription_id = d.subscription_id AND n.event_type = 'TESTE'
                AND n.state = 'PENDENTE' AND n.id > d.id);

CREATE UNIQUE INDEX hook_deliveries_one_pending_test ON hook_deliveries (subscription_id)
    WHERE event_type = 'TESTE' AND state = 'PENDENTE';
