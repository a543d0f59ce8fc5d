-- Status-change events (written with each change, delivered by the events issue), the signature
-- envelope of a proposal with its four parties, and the provider callbacks already handled.

CREATE TABLE proposal_events (
    id          BIGSERIAL PRIMARY KEY,
    proposal_id BIGINT      NOT NULL REFERENCES proposals (id) ON DELETE CASCADE,
    kind        TEXT        NOT NULL,
    from_status TEXT        NOT NULL,
    to_status   TEXT        NOT NULL,
    changed_by  TEXT        NOT NULL,
    changed_at  TIMESTAMPTZ NOT NULL,
    sequence    INTEGER     NOT NULL,
    reason      TEXT,
    CONSTRAINT proposal_events_sequence_key UNIQUE (proposal_id, sequence),
    CONSTRAINT proposal_events_sequence_check CHECK (sequence > 0),
    CONSTRAINT proposal_events_kind_check CHECK (kind IN ('ALTERAÇÃO_STATUS')),
    CONSTRAINT proposal_events_status_check CHECK (
        from_status IN ('NOVO', 'AGUARDANDO ASSINATURA', 'EM ANÁLISE', 'APROVADO', 'REPROVADO', 'CANCELADO')
        AND to_status IN ('NOVO', 'AGUARDANDO ASSINATURA', 'EM ANÁLISE', 'APROVADO', 'REPROVADO', 'CANCELADO'))
);

CREATE TABLE signatures (
    id           BIGSERIAL PRIMARY KEY,
    proposal_id  BIGINT      NOT NULL REFERENCES proposals (id) ON DELETE CASCADE,
    document_key TEXT,
    sign_url     TEXT,
    alterado_por TEXT        NOT NULL,
    criado_em    TIMESTAMPTZ NOT NULL DEFAULT now(),
    alterado_em  TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT signatures_proposal_key UNIQUE (proposal_id)
);

CREATE TABLE signature_parties (
    signature_id BIGINT      NOT NULL REFERENCES signatures (id) ON DELETE CASCADE,
    role         TEXT        NOT NULL,
    request_key  TEXT        NOT NULL,
    status       TEXT        NOT NULL DEFAULT 'PENDENTE',
    signed_at    TIMESTAMPTZ,
    latitude     TEXT,
    longitude    TEXT,
    PRIMARY KEY (signature_id, role),
    CONSTRAINT signature_parties_request_key UNIQUE (request_key),
    CONSTRAINT signature_parties_role_check CHECK (role IN ('client', 'association', 'federation', 'enterprise')),
    CONSTRAINT signature_parties_status_check CHECK (status IN ('PENDENTE', 'ASSINADO', 'RECUSADO'))
);

-- The same provider callback twice changes nothing.
CREATE TABLE signature_callbacks (
    event_id    TEXT PRIMARY KEY,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
