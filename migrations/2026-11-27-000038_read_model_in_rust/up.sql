-- The read model defined once, in Rust (issue 48, decision 168). The proposal's document is built
-- by the adapter (`read_model::build_documents`) and written by every write of a part in its own
-- transaction (`read_model::write_documents`); `check read-model` compares against the same
-- definition. Its PL/pgSQL copy and the deferred triggers that called it go. In their place a
-- guard (`migrations-repeatable/proposal_read_model_guard.sql`) marks here, at commit, the
-- proposals a write that skipped the service changed, for route 7 to build again at their next
-- read. The stored documents stay as they are: they read as the Rust definition's rows.
CREATE TABLE proposal_read_model_stale (
    -- No foreign key: a proposal deleted in the marking transaction leaves a mark that names
    -- nothing, which the next repair drops.
    id_proposta BIGINT PRIMARY KEY,
    desde       TIMESTAMPTZ NOT NULL DEFAULT now()
);

DROP TRIGGER proposals_read_model ON proposals;
DROP TRIGGER proposal_customers_read_model ON proposal_customers;
DROP TRIGGER proposal_payments_read_model ON proposal_payments;
DROP TRIGGER signatures_read_model ON signatures;
DROP TRIGGER signature_parties_read_model ON signature_parties;
DROP TRIGGER subscriptions_read_model ON subscriptions;
DROP TRIGGER products_read_model ON products;
DROP TRIGGER motivations_read_model ON motivations;
DROP TRIGGER partners_read_model ON partners;
DROP TRIGGER representatives_read_model ON representatives;
DROP TRIGGER users_read_model ON users;

DROP FUNCTION proposal_read_model_on_proposal();
DROP FUNCTION proposal_read_model_on_part();
DROP FUNCTION proposal_read_model_on_party();
DROP FUNCTION proposal_read_model_on_reference();
DROP FUNCTION refresh_proposal_read_model(BIGINT);
DROP FUNCTION write_proposal_read_model(BIGINT);
DROP FUNCTION proposal_document(BIGINT);
