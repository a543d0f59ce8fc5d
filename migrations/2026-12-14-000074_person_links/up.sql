-- The person's own channel (decisions 196, 287 and 288; LGPD art. 8, § 2 and art. 18, § 3): a
-- link mailed to an e-mail held for the CPF, kept only as its SHA-256, that files a request or
-- opens the person's consents for half an hour.
CREATE TABLE privacy_person_links (
    id bigserial PRIMARY KEY,
    token_sha256 text NOT NULL UNIQUE,
    cpf text NOT NULL,
    -- A request's kind, or `consentimentos`.
    finalidade text NOT NULL CONSTRAINT privacy_person_links_finalidade CHECK (finalidade IN
        ('acesso', 'correcao', 'anonimizacao', 'portabilidade', 'eliminacao', 'compartilhamento',
         'revogacao_consentimento', 'consentimentos')),
    -- The address it went to, masked: which of the person's addresses proved the act.
    enviado_para text NOT NULL,
    emitido_em timestamptz NOT NULL,
    expira_em timestamptz NOT NULL,
    usado_em timestamptz,
    protocolo text REFERENCES privacy_requests (protocolo)
);
CREATE INDEX privacy_person_links_cpf ON privacy_person_links (cpf, emitido_em);

-- Each consent says how the person gave it and with what proof.
ALTER TABLE privacy_consents
    ADD COLUMN canal text NOT NULL DEFAULT 'retaguarda'
        CONSTRAINT privacy_consents_canal CHECK (canal IN
            ('retaguarda', 'link', 'telefone', 'email', 'chat', 'carta', 'presencial')),
    ADD COLUMN evidencia jsonb;
DO $$
BEGIN
    IF to_regclass('__consent_evidence_before_rollback') IS NOT NULL THEN
        UPDATE privacy_consents c SET canal = k.canal, evidencia = k.evidencia
        FROM __consent_evidence_before_rollback k WHERE k.id = c.id;
        DROP TABLE __consent_evidence_before_rollback;
    END IF;
END $$;

-- The per-address counter of asking for links, beside sign-in's and recovery's.
ALTER TABLE signin_throttle DROP CONSTRAINT signin_throttle_scope_check;
ALTER TABLE signin_throttle ADD CONSTRAINT signin_throttle_scope_check
    CHECK (scope IN ('signin_pair', 'signin_email', 'signin_ip', 'recovery_ip', 'privacy_link_ip'));
