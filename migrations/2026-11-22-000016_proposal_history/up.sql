-- Every change of a proposal and of the customer data it uses, written by triggers in the
-- transaction of the change itself: no writer (the service's adapters, a later migration, an
-- operator's SQL) can change a proposal without its entry. Entries are never changed or removed;
-- personal values are masked when written (the vocabulary is `domain::history`'s).

CREATE TABLE proposal_history (
    id          BIGSERIAL   PRIMARY KEY,
    proposal_id BIGINT      NOT NULL REFERENCES proposals (id),
    at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    changed_by  TEXT        NOT NULL,
    action      TEXT        NOT NULL,
    -- {field: {"from": value | null, "to": value | null}}
    changes     JSONB       NOT NULL
);
CREATE INDEX proposal_history_proposal_idx ON proposal_history (proposal_id, id);

CREATE FUNCTION proposal_history_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'o histórico de propostas não pode ser alterado nem apagado'
        USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER proposal_history_append_only BEFORE UPDATE OR DELETE ON proposal_history
    FOR EACH ROW EXECUTE FUNCTION proposal_history_is_append_only();
CREATE TRIGGER proposal_history_no_truncate BEFORE TRUNCATE ON proposal_history
    FOR EACH STATEMENT EXECUTE FUNCTION proposal_history_is_append_only();

-- A personal value as the history keeps it: a CPF's check digits, a name's initials, an e-mail's
-- first letter and domain, a phone's last four digits, a birth date's year; anything else personal
-- only as changed.
CREATE FUNCTION history_masked(field TEXT, value TEXT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE
        WHEN value IS NULL THEN NULL
        WHEN field IN ('cpf', 'cpf_cliente') THEN '***.***.***-' || right(value, 2)
        WHEN field = 'nome_completo' THEN
            (SELECT string_agg(left(word, 1) || '.', ' ') FROM regexp_split_to_table(btrim(value), '\s+') AS word)
        WHEN field = 'email' THEN left(value, 1) || '***@' || split_part(value, '@', 2)
        WHEN field IN ('celular', 'telefone_fixo') THEN '****' || right(value, 4)
        WHEN field = 'data_nascimento' THEN '**/**/' || left(value, 4)
        ELSE '***'
    END;

-- The members of `new` that differ from `old`, as {from, to}, leaving out `ignored` and masking
-- `personal` (every member when `personal` is null).
CREATE FUNCTION history_changes(old JSONB, new JSONB, ignored TEXT[], personal TEXT[]) RETURNS JSONB
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN coalesce((
        SELECT jsonb_object_agg(n.key, CASE
            WHEN personal IS NULL OR n.key = ANY (personal) THEN jsonb_build_object(
                'from', history_masked(n.key, old ->> n.key), 'to', history_masked(n.key, n.value #>> '{}'))
            ELSE jsonb_build_object('from', old -> n.key, 'to', n.value)
        END)
        FROM jsonb_each(new) AS n
        WHERE NOT n.key = ANY (ignored) AND (old -> n.key) IS DISTINCT FROM n.value
    ), '{}'::jsonb);

-- Creation: what the proposal was made with.
CREATE FUNCTION proposal_history_on_create() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
    VALUES (NEW.id, NEW.criado_em, NEW.alterado_por, 'criacao', jsonb_build_object(
        'status', jsonb_build_object('from', NULL, 'to', NEW.status),
        'valor', jsonb_build_object('from', NULL, 'to', NEW.valor),
        'id_produto', jsonb_build_object('from', NULL, 'to', NEW.id_produto),
        'codigo_faturamento', jsonb_build_object('from', NULL, 'to', NEW.codigo_faturamento),
        'tipo_envio', jsonb_build_object('from', NULL, 'to', NEW.tipo_envio),
        'fluxo', jsonb_build_object('from', NULL, 'to', NEW.fluxo),
        'cpf_cnpj_parceiro', jsonb_build_object('from', NULL, 'to', NEW.cpf_cnpj_parceiro),
        'cpf_cliente', jsonb_build_object('from', NULL, 'to', history_masked('cpf_cliente', NEW.cpf_cliente))));
    RETURN NULL;
END $$;
CREATE TRIGGER proposals_history_create AFTER INSERT ON proposals
    FOR EACH ROW EXECUTE FUNCTION proposal_history_on_create();

-- Later changes of the proposal's own fields. Its status moves are told by proposal_events (with
-- their reason), so the status is left out here.
CREATE FUNCTION proposal_history_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed JSONB := history_changes(to_jsonb(OLD), to_jsonb(NEW),
        ARRAY['status', 'alterado_em', 'alterado_por', 'criado_em'], ARRAY['cpf_cliente']);
BEGIN
    IF changed <> '{}'::jsonb THEN
        INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
        VALUES (NEW.id, NEW.alterado_por, CASE
            WHEN (OLD.key_documento IS NULL AND NEW.key_documento IS NOT NULL)
              OR (OLD.key_assinatura_requisicao IS NULL AND NEW.key_assinatura_requisicao IS NOT NULL) THEN 'envio'
            WHEN NEW.reenvios <> OLD.reenvios THEN 'reenvio'
            ELSE 'alteracao'
        END, changed);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER proposals_history_update AFTER UPDATE ON proposals
    FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW) EXECUTE FUNCTION proposal_history_on_update();

-- Status moves, by whom and why.
CREATE FUNCTION proposal_history_on_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
    VALUES (NEW.proposal_id, NEW.changed_at, NEW.changed_by, 'status',
        jsonb_build_object('status', jsonb_build_object('from', NEW.from_status, 'to', NEW.to_status))
        || CASE WHEN NEW.reason IS NULL THEN '{}'::jsonb
                ELSE jsonb_build_object('motivo', jsonb_build_object('from', NULL, 'to', NEW.reason)) END);
    RETURN NULL;
END $$;
CREATE TRIGGER proposal_events_history AFTER INSERT ON proposal_events
    FOR EACH ROW EXECUTE FUNCTION proposal_history_on_status();

-- Corrections of the customer data the proposal holds (its copy), every value masked.
CREATE FUNCTION proposal_history_on_customer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed JSONB := history_changes(to_jsonb(OLD), to_jsonb(NEW),
        ARRAY['id_proposta', 'id_cliente', 'alterado_em', 'alterado_por', 'criado_em'], NULL);
BEGIN
    IF changed <> '{}'::jsonb THEN
        INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.alterado_por, 'correcao', changed);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER proposal_customers_history AFTER UPDATE ON proposal_customers
    FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW) EXECUTE FUNCTION proposal_history_on_customer();

-- The payment details, every value but the kind masked.
CREATE FUNCTION proposal_history_on_payment() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed JSONB := history_changes(to_jsonb(OLD), to_jsonb(NEW),
        ARRAY['id', 'id_proposta', 'alterado_em', 'alterado_por', 'criado_em'],
        ARRAY['nome_cartao', 'numero_cartao', 'validade', 'dia_cobranca', 'banco', 'agencia', 'conta', 'operacao',
              'numero_folha', 'tipo_folha', 'especie', 'orgao_emissor']);
BEGIN
    IF changed <> '{}'::jsonb THEN
        INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.alterado_por, 'pagamento', changed);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER proposal_payments_history AFTER UPDATE ON proposal_payments
    FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW) EXECUTE FUNCTION proposal_history_on_payment();

-- Each party's signature (or refusal), by the party.
CREATE FUNCTION proposal_history_on_party() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
    SELECT s.proposal_id, coalesce(NEW.signed_at, now()), 'signatário: ' || NEW.role,
        CASE WHEN NEW.status = 'RECUSADO' THEN 'recusa' ELSE 'assinatura' END,
        jsonb_build_object('assinatura_' || NEW.role, jsonb_build_object('from', OLD.status, 'to', NEW.status))
    FROM signatures s WHERE s.id = NEW.signature_id;
    RETURN NULL;
END $$;
CREATE TRIGGER signature_parties_history AFTER UPDATE OF status ON signature_parties
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION proposal_history_on_party();

-- The e-commerce subscription: made, then moved by the payment platform.
CREATE FUNCTION proposal_history_on_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
    VALUES (NEW.proposal_id, 'plataforma de pagamento', 'pagamento', jsonb_build_object('assinatura_pagamento',
        jsonb_build_object('from', CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END, 'to', NEW.status)));
    RETURN NULL;
END $$;
CREATE TRIGGER subscriptions_history_create AFTER INSERT ON subscriptions
    FOR EACH ROW EXECUTE FUNCTION proposal_history_on_subscription();
CREATE TRIGGER subscriptions_history_update AFTER UPDATE OF status ON subscriptions
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION proposal_history_on_subscription();

-- Proposals made before this migration start their history with a creation entry.
INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
SELECT id, criado_em, alterado_por, 'criacao',
       jsonb_build_object('status', jsonb_build_object('from', NULL, 'to', status))
FROM proposals ORDER BY id;
