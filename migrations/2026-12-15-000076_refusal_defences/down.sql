-- The defences are the only copy left of what they keep: set aside, for the way up again, loose
-- from the proposals (a rollback further down may drop them).
ALTER TABLE refusal_defences DROP CONSTRAINT refusal_defences_id_proposta_fkey;
ALTER TABLE refusal_defences RENAME TO __refusal_defences_before_rollback;
