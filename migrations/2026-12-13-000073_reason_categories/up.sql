-- A decision's reason in two layers (decision 283; LGPD arts. 6, III and 11): the back office's
-- refusal or cancellation keeps its words for the customer, the back office and the export, and
-- the category a seller reads instead, one of a closed list.
ALTER TABLE proposal_events ADD COLUMN reason_category text
    CONSTRAINT proposal_events_reason_category CHECK (reason_category IN
        ('saude', 'documentacao', 'risco_financeiro', 'declaracao_inexata', 'a_pedido', 'outros'));
ALTER TABLE proposal_operations ADD COLUMN reason_category text
    CONSTRAINT proposal_operations_reason_category CHECK (reason_category IN
        ('saude', 'documentacao', 'risco_financeiro', 'declaracao_inexata', 'a_pedido', 'outros'));

-- The decisions already recorded were the back office's words too: a refusal is only ever the
-- back office's; a cancellation is when its author signs in to the back office alone. One
-- recorded with the customer's request under a protocol was at the customer's request. A
-- category chosen before a rollback comes back as it was.
UPDATE proposal_events e
SET reason_category = CASE
        WHEN e.to_status = 'CANCELADO' AND EXISTS (
            SELECT 1 FROM customer_requests r
            WHERE r.proposal_id = e.proposal_id AND r.tipo = 'cancelamento' AND r.solicitado_por = e.changed_by)
        THEN 'a_pedido'
        ELSE 'outros'
    END
WHERE e.kind = 'ALTERAÇÃO_STATUS'
  AND (e.to_status = 'REPROVADO'
       OR (e.to_status = 'CANCELADO'
           AND EXISTS (SELECT 1 FROM users u JOIN user_applications a ON a.user_id = u.id
                       WHERE u.email = e.changed_by AND a.application = 'BACKOFFICE')
           AND NOT EXISTS (SELECT 1 FROM users u JOIN user_applications a ON a.user_id = u.id
                           WHERE u.email = e.changed_by AND a.application <> 'BACKOFFICE')));
DO $$
BEGIN
    IF to_regclass('__reason_categories_before_rollback') IS NOT NULL THEN
        UPDATE proposal_events e SET reason_category = k.reason_category
        FROM __reason_categories_before_rollback k WHERE k.event_id = e.id;
        UPDATE proposal_operations o SET reason_category = k.reason_category
        FROM __reason_categories_before_rollback k WHERE k.operation_id = o.id;
        DROP TABLE __reason_categories_before_rollback;
    END IF;
END $$;

-- Their history entries carry the category beside the words, as the new ones do (the history's
-- append-only trigger is set aside for this one change, within this transaction).
ALTER TABLE proposal_history DISABLE TRIGGER proposal_history_append_only;
UPDATE proposal_history h
SET changes = h.changes || jsonb_build_object('categoria_motivo', jsonb_build_object('from', NULL, 'to', e.reason_category))
FROM proposal_events e
WHERE e.reason_category IS NOT NULL
  AND h.proposal_id = e.proposal_id AND h.action = 'status' AND h.at = e.changed_at
  AND h.changed_by = e.changed_by AND h.changes -> 'status' ->> 'to' = e.to_status;
ALTER TABLE proposal_history ENABLE TRIGGER proposal_history_append_only;
