DELETE FROM signin_throttle WHERE scope = 'privacy_link_ip';
ALTER TABLE signin_throttle DROP CONSTRAINT signin_throttle_scope_check;
ALTER TABLE signin_throttle ADD CONSTRAINT signin_throttle_scope_check
    CHECK (scope IN ('signin_pair', 'signin_email', 'signin_ip', 'recovery_ip'));

-- The consents' proof is kept aside so that the way up again restores it; the records stay.
CREATE TABLE __consent_evidence_before_rollback (
    id bigint PRIMARY KEY,
    canal text NOT NULL,
    evidencia jsonb
);
INSERT INTO __consent_evidence_before_rollback (id, canal, evidencia)
SELECT id, canal, evidencia FROM privacy_consents WHERE canal <> 'retaguarda' OR evidencia IS NOT NULL;
ALTER TABLE privacy_consents DROP COLUMN evidencia, DROP COLUMN canal;

-- Links live half an hour: nothing of them is worth keeping across a rollback.
DROP TABLE privacy_person_links;
