-- The guard (applied from migrations-repeatable/ after this migration's up) and its marks go.
DROP TRIGGER IF EXISTS proposals_read_model_guard ON proposals;
DROP TRIGGER IF EXISTS proposal_customers_read_model_guard ON proposal_customers;
DROP TRIGGER IF EXISTS proposal_payments_read_model_guard ON proposal_payments;
DROP TRIGGER IF EXISTS signatures_read_model_guard ON signatures;
DROP TRIGGER IF EXISTS signature_parties_read_model_guard ON signature_parties;
DROP TRIGGER IF EXISTS subscriptions_read_model_guard ON subscriptions;
DROP TRIGGER IF EXISTS products_read_model_guard ON products;
DROP TRIGGER IF EXISTS motivations_read_model_guard ON motivations;
DROP TRIGGER IF EXISTS partners_read_model_guard ON partners;
DROP TRIGGER IF EXISTS representatives_read_model_guard ON representatives;
DROP TRIGGER IF EXISTS users_read_model_guard ON users;
DROP FUNCTION IF EXISTS proposal_read_model_guard();
DROP TABLE proposal_read_model_stale;

-- The PL/pgSQL read model as migrations 000022, 000024, 000030 and 000037 left it, its triggers,
-- and every document written again by it.

CREATE OR REPLACE FUNCTION proposal_document(proposal BIGINT) RETURNS JSONB LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT jsonb_build_object(
        'proposal', to_jsonb(p),
        'product', jsonb_build_object('nome', pr.nome, 'codigo_produto', pr.codigo_produto),
        'motivation', m.descricao,
        'customer', to_jsonb(pc) - 'nome_busca',
        'partner', CASE WHEN pa.id IS NOT NULL THEN to_jsonb(pa) END,
        'representative', CASE WHEN r.id IS NOT NULL THEN jsonb_build_object(
            'cpf', u.cpf, 'email', u.email, 'name', u.name,
            'video_attendance_token', r.video_attendance_token) END,
        'payment', CASE WHEN pp.id IS NOT NULL THEN to_jsonb(pp) END,
        'signature', (
            SELECT jsonb_build_object(
                'id', s.id, 'alterado_por', s.alterado_por, 'criado_em', s.criado_em,
                'alterado_em', s.alterado_em,
                'parties', coalesce((
                    SELECT jsonb_agg(jsonb_build_object(
                        'role', sp.role, 'request_key', sp.request_key, 'status', sp.status,
                        'latitude', sp.latitude, 'longitude', sp.longitude) ORDER BY sp.role)
                    FROM signature_parties sp WHERE sp.signature_id = s.id), '[]'::jsonb))
            FROM signatures s WHERE s.proposal_id = p.id),
        'subscription', (
            SELECT jsonb_build_object(
                'platform_id', su.platform_id, 'status', su.status,
                'current_period_end', su.current_period_end,
                'latest_invoice_status', su.latest_invoice_status)
            FROM subscriptions su
            WHERE su.proposal_id = p.id AND su.platform_id IS NOT NULL
            ORDER BY su.id DESC LIMIT 1))
    FROM proposals p
    JOIN products pr ON pr.id = p.id_produto
    JOIN motivations m ON m.id = p.id_motivacao
    JOIN proposal_customers pc ON pc.id_proposta = p.id
    LEFT JOIN partners pa ON pa.id = p.id_parceiro
    LEFT JOIN (representatives r JOIN users u ON u.id = r.user_id) ON r.id = p.id_representante
    LEFT JOIN proposal_payments pp ON pp.id_proposta = p.id
    WHERE p.id = proposal);
END $$;

CREATE OR REPLACE FUNCTION write_proposal_read_model(proposal BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    document JSONB;
BEGIN
    PERFORM 1 FROM proposals WHERE id = proposal FOR SHARE;
    document := proposal_document(proposal);
    IF document IS NULL THEN
        DELETE FROM proposal_read_models WHERE id_proposta = proposal;
        RETURN;
    END IF;
    INSERT INTO proposal_read_models (id_proposta, identificador, fluxo, id_parceiro, documento)
    SELECT p.id, p.identificador, p.fluxo, p.id_parceiro, document FROM proposals p WHERE p.id = proposal
    ON CONFLICT (id_proposta) DO UPDATE SET
        identificador = EXCLUDED.identificador, fluxo = EXCLUDED.fluxo,
        id_parceiro = EXCLUDED.id_parceiro, documento = EXCLUDED.documento;
END $$;

CREATE OR REPLACE FUNCTION refresh_proposal_read_model(proposal BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
    IF proposal IS NULL OR EXISTS (
        SELECT 1 FROM proposal_read_models
        WHERE id_proposta = proposal AND xmin = pg_current_xact_id()::xid) THEN
        RETURN;
    END IF;
    PERFORM write_proposal_read_model(proposal);
END $$;

CREATE OR REPLACE FUNCTION proposal_read_model_on_proposal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refresh_proposal_read_model(NEW.id);
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION proposal_read_model_on_part() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_ARGV[0] = 'proposal_id' THEN
        IF TG_OP = 'DELETE' THEN
            PERFORM refresh_proposal_read_model(OLD.proposal_id);
        ELSE
            PERFORM refresh_proposal_read_model(NEW.proposal_id);
        END IF;
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM refresh_proposal_read_model(OLD.id_proposta);
    ELSE
        PERFORM refresh_proposal_read_model(NEW.id_proposta);
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION proposal_read_model_on_party() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refresh_proposal_read_model(s.proposal_id)
    FROM signatures s
    WHERE s.id = CASE WHEN TG_OP = 'DELETE' THEN OLD.signature_id ELSE NEW.signature_id END;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION proposal_read_model_on_reference() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refresh_proposal_read_model(p.id)
    FROM proposals p
    WHERE CASE TG_TABLE_NAME
        WHEN 'products' THEN p.id_produto = NEW.id
        WHEN 'motivations' THEN p.id_motivacao = NEW.id
        WHEN 'partners' THEN p.id_parceiro = NEW.id
        WHEN 'representatives' THEN p.id_representante = NEW.id
        WHEN 'users' THEN p.id_representante IN (SELECT r.id FROM representatives r WHERE r.user_id = NEW.id)
    END;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER proposals_read_model AFTER INSERT OR UPDATE ON proposals
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_on_proposal();
CREATE CONSTRAINT TRIGGER proposal_customers_read_model AFTER INSERT OR UPDATE ON proposal_customers
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_on_part('id_proposta');
CREATE CONSTRAINT TRIGGER proposal_payments_read_model AFTER INSERT OR UPDATE OR DELETE ON proposal_payments
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_on_part('id_proposta');
CREATE CONSTRAINT TRIGGER signatures_read_model AFTER INSERT OR UPDATE OR DELETE ON signatures
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_on_part('proposal_id');
CREATE CONSTRAINT TRIGGER signature_parties_read_model AFTER INSERT OR UPDATE OR DELETE ON signature_parties
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_on_party();
CREATE CONSTRAINT TRIGGER products_read_model AFTER UPDATE ON products DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.nome IS DISTINCT FROM NEW.nome OR OLD.codigo_produto IS DISTINCT FROM NEW.codigo_produto)
    EXECUTE FUNCTION proposal_read_model_on_reference();
CREATE CONSTRAINT TRIGGER motivations_read_model AFTER UPDATE ON motivations DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.descricao IS DISTINCT FROM NEW.descricao)
    EXECUTE FUNCTION proposal_read_model_on_reference();
CREATE CONSTRAINT TRIGGER partners_read_model AFTER UPDATE ON partners DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION proposal_read_model_on_reference();
CREATE CONSTRAINT TRIGGER representatives_read_model AFTER UPDATE ON representatives DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.video_attendance_token IS DISTINCT FROM NEW.video_attendance_token)
    EXECUTE FUNCTION proposal_read_model_on_reference();
CREATE CONSTRAINT TRIGGER users_read_model AFTER UPDATE ON users DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.cpf IS DISTINCT FROM NEW.cpf OR OLD.email IS DISTINCT FROM NEW.email
                       OR OLD.name IS DISTINCT FROM NEW.name)
    EXECUTE FUNCTION proposal_read_model_on_reference();
CREATE CONSTRAINT TRIGGER subscriptions_read_model AFTER INSERT OR UPDATE OR DELETE ON subscriptions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_on_part('proposal_id');

SELECT write_proposal_read_model(id) FROM proposals;
