-- The live definition of `proposal_read_model_guard` and its triggers, applied by `migrate` after
-- the versioned migrations (decision 169); migration 000038 made it, migration 000051 added the
-- billings and charges, 000054 the Pix recurrences, 000061 the averbações, 000062 the terms, 000069 the beneficiaries.
-- The read model is built in Rust (decision 168): every write of the service writes the documents
-- of the proposals it changed before it commits. A write that skips the service (an operator's
-- SQL, a migration) cannot build one, so at its commit this guard marks each proposal whose part
-- changed and whose document the transaction did not write (`xmin` names the transaction that
-- wrote a row); route 7 builds a marked document again at its next read, `migrate` after the
-- migrations, and `check read-model` reports and mends them.
CREATE OR REPLACE FUNCTION proposal_read_model_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    proposal BIGINT;
BEGIN
    IF TG_TABLE_NAME = 'proposals' THEN
        proposal := NEW.id;
    ELSIF TG_TABLE_NAME IN ('proposal_customers', 'proposal_payments', 'proposal_acceptances',
                            'proposal_pending_requests', 'contract_billings', 'charges', 'pix_recurrences',
                            'averbacoes', 'contract_terms', 'proposal_beneficiaries') THEN
        IF TG_OP = 'DELETE' THEN proposal := OLD.id_proposta; ELSE proposal := NEW.id_proposta; END IF;
    ELSIF TG_TABLE_NAME IN ('signatures', 'subscriptions', 'refunds') THEN
        IF TG_OP = 'DELETE' THEN proposal := OLD.proposal_id; ELSE proposal := NEW.proposal_id; END IF;
    ELSIF TG_TABLE_NAME = 'signature_parties' THEN
        SELECT s.proposal_id INTO proposal FROM signatures s
        WHERE s.id = CASE WHEN TG_OP = 'DELETE' THEN OLD.signature_id ELSE NEW.signature_id END;
    ELSIF TG_TABLE_NAME = 'proposal_pending_files' THEN
        SELECT r.id_proposta INTO proposal FROM proposal_pending_requests r
        WHERE r.id = CASE WHEN TG_OP = 'DELETE' THEN OLD.id_pendencia ELSE NEW.id_pendencia END;
    ELSE
        -- What proposals show of others: every proposal showing the changed row.
        INSERT INTO proposal_read_model_stale (id_proposta)
        SELECT p.id FROM proposals p
        WHERE CASE TG_TABLE_NAME
                WHEN 'products' THEN p.id_produto = NEW.id
                WHEN 'motivations' THEN p.id_motivacao = NEW.id
                WHEN 'partners' THEN p.id_parceiro = NEW.id
                WHEN 'representatives' THEN p.id_representante = NEW.id
                WHEN 'users' THEN p.id_representante IN (SELECT r.id FROM representatives r WHERE r.user_id = NEW.id)
              END
          AND NOT EXISTS (SELECT 1 FROM proposal_read_models m
                          WHERE m.id_proposta = p.id AND m.xmin = pg_current_xact_id()::xid)
        ON CONFLICT DO NOTHING;
        RETURN NULL;
    END IF;
    IF proposal IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM proposal_read_models WHERE id_proposta = proposal AND xmin = pg_current_xact_id()::xid) THEN
        INSERT INTO proposal_read_model_stale (id_proposta) VALUES (proposal) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;

-- Constraint triggers have no OR REPLACE: each is made again.
DROP TRIGGER IF EXISTS proposals_read_model_guard ON proposals;
CREATE CONSTRAINT TRIGGER proposals_read_model_guard AFTER INSERT OR UPDATE ON proposals
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS proposal_customers_read_model_guard ON proposal_customers;
CREATE CONSTRAINT TRIGGER proposal_customers_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON proposal_customers
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS proposal_payments_read_model_guard ON proposal_payments;
CREATE CONSTRAINT TRIGGER proposal_payments_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON proposal_payments
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS signatures_read_model_guard ON signatures;
CREATE CONSTRAINT TRIGGER signatures_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON signatures
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS signature_parties_read_model_guard ON signature_parties;
CREATE CONSTRAINT TRIGGER signature_parties_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON signature_parties
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS subscriptions_read_model_guard ON subscriptions;
CREATE CONSTRAINT TRIGGER subscriptions_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON subscriptions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS proposal_acceptances_read_model_guard ON proposal_acceptances;
CREATE CONSTRAINT TRIGGER proposal_acceptances_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON proposal_acceptances
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS proposal_pending_requests_read_model_guard ON proposal_pending_requests;
CREATE CONSTRAINT TRIGGER proposal_pending_requests_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON proposal_pending_requests
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
-- A file's content is not in the document: only what lists it (its name, type, size, hash).
DROP TRIGGER IF EXISTS proposal_pending_files_read_model_guard ON proposal_pending_files;
CREATE CONSTRAINT TRIGGER proposal_pending_files_read_model_guard AFTER INSERT OR DELETE ON proposal_pending_files
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS refunds_read_model_guard ON refunds;
CREATE CONSTRAINT TRIGGER refunds_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON refunds
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS contract_billings_read_model_guard ON contract_billings;
CREATE CONSTRAINT TRIGGER contract_billings_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON contract_billings
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS charges_read_model_guard ON charges;
CREATE CONSTRAINT TRIGGER charges_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON charges
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS pix_recurrences_read_model_guard ON pix_recurrences;
CREATE CONSTRAINT TRIGGER pix_recurrences_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON pix_recurrences
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS averbacoes_read_model_guard ON averbacoes;
CREATE CONSTRAINT TRIGGER averbacoes_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON averbacoes
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS contract_terms_read_model_guard ON contract_terms;
CREATE CONSTRAINT TRIGGER contract_terms_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON contract_terms
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS proposal_beneficiaries_read_model_guard ON proposal_beneficiaries;
CREATE CONSTRAINT TRIGGER proposal_beneficiaries_read_model_guard AFTER INSERT OR UPDATE OR DELETE ON proposal_beneficiaries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS products_read_model_guard ON products;
CREATE CONSTRAINT TRIGGER products_read_model_guard AFTER UPDATE ON products DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.nome IS DISTINCT FROM NEW.nome OR OLD.codigo_produto IS DISTINCT FROM NEW.codigo_produto)
    EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS motivations_read_model_guard ON motivations;
CREATE CONSTRAINT TRIGGER motivations_read_model_guard AFTER UPDATE ON motivations DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.descricao IS DISTINCT FROM NEW.descricao)
    EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS partners_read_model_guard ON partners;
CREATE CONSTRAINT TRIGGER partners_read_model_guard AFTER UPDATE ON partners DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS representatives_read_model_guard ON representatives;
CREATE CONSTRAINT TRIGGER representatives_read_model_guard AFTER UPDATE ON representatives DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.video_attendance_token IS DISTINCT FROM NEW.video_attendance_token)
    EXECUTE FUNCTION proposal_read_model_guard();
DROP TRIGGER IF EXISTS users_read_model_guard ON users;
CREATE CONSTRAINT TRIGGER users_read_model_guard AFTER UPDATE ON users DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.cpf IS DISTINCT FROM NEW.cpf OR OLD.email IS DISTINCT FROM NEW.email
                       OR OLD.name IS DISTINCT FROM NEW.name)
    EXECUTE FUNCTION proposal_read_model_guard();
