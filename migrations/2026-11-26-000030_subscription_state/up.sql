-- Subscriptions that stay true (issue 29): the state the payment platform answers when asked
-- (after each of its events, which arrive in any order, and by `reconcile payments`), kept with
-- when it was read, so that a read that finishes late never overwrites a later one.
ALTER TABLE subscriptions
    ADD COLUMN current_period_end    TIMESTAMPTZ,
    ADD COLUMN latest_invoice_status TEXT,
    ADD COLUMN platform_read_at      TIMESTAMPTZ;

-- Every proposal's document asks for its latest subscription, and every platform event for the
-- rows of one platform id: each by an index, not by reading the table.
CREATE INDEX subscriptions_proposal ON subscriptions (proposal_id, id);
CREATE INDEX subscriptions_platform ON subscriptions (platform_id) WHERE platform_id IS NOT NULL;

-- What the stored objects already tell: the period's end (on the object before the platform's
-- 2025 API versions, on its items since). The latest invoice's status was never read: unknown.
UPDATE subscriptions SET current_period_end = to_timestamp(coalesce(
        (object ->> 'current_period_end')::BIGINT,
        (object -> 'items' -> 'data' -> 0 ->> 'current_period_end')::BIGINT))
WHERE object IS NOT NULL
  AND coalesce(object ->> 'current_period_end', object -> 'items' -> 'data' -> 0 ->> 'current_period_end') ~ '^[0-9]+$';

-- The history names a change of the subscription's status and of its latest invoice's.
CREATE OR REPLACE FUNCTION proposal_history_on_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changes JSONB := '{}'::jsonb;
BEGIN
    IF TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status THEN
        changes := changes || jsonb_build_object('assinatura_pagamento', jsonb_build_object(
            'from', CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END, 'to', NEW.status));
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.latest_invoice_status IS DISTINCT FROM NEW.latest_invoice_status THEN
        changes := changes || jsonb_build_object('fatura_pagamento', jsonb_build_object(
            'from', OLD.latest_invoice_status, 'to', NEW.latest_invoice_status));
    END IF;
    INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
    VALUES (NEW.proposal_id, 'plataforma de pagamento', 'pagamento', changes);
    RETURN NULL;
END $$;
DROP TRIGGER subscriptions_history_update ON subscriptions;
CREATE TRIGGER subscriptions_history_update AFTER UPDATE OF status, latest_invoice_status ON subscriptions
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status
                       OR OLD.latest_invoice_status IS DISTINCT FROM NEW.latest_invoice_status)
    EXECUTE FUNCTION proposal_history_on_subscription();

-- Route 7's `data.subscription`: the proposal's latest subscription known to the platform.
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

CREATE CONSTRAINT TRIGGER subscriptions_read_model AFTER INSERT OR UPDATE OR DELETE ON subscriptions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION proposal_read_model_on_part('proposal_id');

SELECT write_proposal_read_model(id) FROM proposals;
