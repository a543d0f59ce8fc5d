DROP TRIGGER subscriptions_read_model ON subscriptions;

-- The document as migration 000022 built it.
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
            FROM signatures s WHERE s.proposal_id = p.id))
    FROM proposals p
    JOIN products pr ON pr.id = p.id_produto
    JOIN motivations m ON m.id = p.id_motivacao
    JOIN proposal_customers pc ON pc.id_proposta = p.id
    LEFT JOIN partners pa ON pa.id = p.id_parceiro
    LEFT JOIN (representatives r JOIN users u ON u.id = r.user_id) ON r.id = p.id_representante
    LEFT JOIN proposal_payments pp ON pp.id_proposta = p.id
    WHERE p.id = proposal);
END $$;

DROP TRIGGER subscriptions_history_update ON subscriptions;
CREATE OR REPLACE FUNCTION proposal_history_on_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
    VALUES (NEW.proposal_id, 'plataforma de pagamento', 'pagamento', jsonb_build_object('assinatura_pagamento',
        jsonb_build_object('from', CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END, 'to', NEW.status)));
    RETURN NULL;
END $$;
CREATE TRIGGER subscriptions_history_update AFTER UPDATE OF status ON subscriptions
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION proposal_history_on_subscription();

DROP INDEX subscriptions_platform;
DROP INDEX subscriptions_proposal;
ALTER TABLE subscriptions
    DROP COLUMN platform_read_at,
    DROP COLUMN latest_invoice_status,
    DROP COLUMN current_period_end;

SELECT write_proposal_read_model(id) FROM proposals;
