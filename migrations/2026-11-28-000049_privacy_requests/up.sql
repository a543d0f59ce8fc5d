-- Data-subject requests (issue 47; LGPD art. 18 and art. 19): each under a protocol numbered with
-- the customer's requests (`customer_request_numbers`: no two requests of any kind share one),
-- with its deadline (15 days, art. 19, II) and, once answered, the answer: what, when, by whom and
-- the file sent, by name, size and SHA-256 (its content is not kept). Anonymising the person
-- replaces `cpf` with a value that is never a CPF and erases the note: the record of the
-- request, and that it was answered in time, stays.
CREATE TABLE privacy_requests (
    protocolo          TEXT        PRIMARY KEY,
    cpf                TEXT        NOT NULL,
    tipo               TEXT        NOT NULL CHECK (tipo IN ('acesso', 'correcao', 'anonimizacao', 'portabilidade',
                                                            'eliminacao', 'compartilhamento', 'revogacao_consentimento')),
    canal              TEXT        NOT NULL CHECK (canal IN ('telefone', 'email', 'chat', 'carta', 'presencial')),
    observacao         TEXT,
    recebido_em        TIMESTAMPTZ NOT NULL,
    recebido_por       TEXT        NOT NULL,
    prazo              TIMESTAMPTZ NOT NULL CHECK (prazo > recebido_em),
    resposta           TEXT,
    respondido_em      TIMESTAMPTZ,
    respondido_por     TEXT,
    arquivo_nome       TEXT,
    arquivo_sha256     TEXT        CHECK (arquivo_sha256 ~ '^[0-9a-f]{64}$'),
    arquivo_bytes      BIGINT      CHECK (arquivo_bytes >= 0),
    arquivo_enviado_para TEXT,
    -- An answer is whole (what, when, by whom), and a file is never recorded without one.
    CHECK ((resposta IS NULL) = (respondido_em IS NULL) AND (resposta IS NULL) = (respondido_por IS NULL)),
    CHECK (arquivo_sha256 IS NULL OR (resposta IS NOT NULL AND arquivo_nome IS NOT NULL AND arquivo_bytes IS NOT NULL))
);
-- The queue: the unanswered by deadline.
CREATE INDEX privacy_requests_open ON privacy_requests (prazo) WHERE respondido_em IS NULL;
CREATE INDEX privacy_requests_cpf ON privacy_requests (cpf);
COMMENT ON TABLE privacy_requests IS
    'Data-subject requests (LGPD art. 18) with their 15-day deadline (art. 19, II) and their answer.';
