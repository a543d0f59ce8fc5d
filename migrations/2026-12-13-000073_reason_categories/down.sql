-- The categories are kept aside so that the way up again restores the ones the back office chose.
CREATE TABLE __reason_categories_before_rollback (
    event_id bigint,
    operation_id uuid,
    reason_category text NOT NULL
);
INSERT INTO __reason_categories_before_rollback (event_id, reason_category)
SELECT id, reason_category FROM proposal_events WHERE reason_category IS NOT NULL;
INSERT INTO __reason_categories_before_rollback (operation_id, reason_category)
SELECT id, reason_category FROM proposal_operations WHERE reason_category IS NOT NULL;

ALTER TABLE proposal_history DISABLE TRIGGER proposal_history_append_only;
UPDATE proposal_history SET changes = changes - 'categoria_motivo' WHERE changes ? 'categoria_motivo';
ALTER TABLE proposal_history ENABLE TRIGGER proposal_history_append_only;

ALTER TABLE proposal_operations DROP COLUMN reason_category;
ALTER TABLE proposal_events DROP COLUMN reason_category;
