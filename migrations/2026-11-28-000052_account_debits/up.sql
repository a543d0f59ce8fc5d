-- Débito em conta under bank agreements (issue 46; Resolução CMN 4.790/2020): each contract's
-- authorisation of the debits, the agreements' file sequences, the files sent (remessas) and read
-- (retornos), and each debit sent with the result the bank returned for it.

-- The authorisation: given by signing the proposal (its evidence the SHA-256 of the sealed
-- document the customer signed), written when the contract's billing starts; refused by the bank
-- (return codes 02, 30) or revoked (an opt-out the bank reports, or the customer's request).
-- The account is the proposal's payment's: not copied here.
CREATE TABLE debit_authorizations (
    id_proposta       BIGINT      PRIMARY KEY REFERENCES contract_billings (id_proposta) ON DELETE CASCADE,
    banco             TEXT        NOT NULL CHECK (banco ~ '^[0-9]{3}$'),
    autorizada_em     TIMESTAMPTZ NOT NULL,
    evidencia_sha256  TEXT        CHECK (evidencia_sha256 ~ '^[0-9a-f]{64}$'),
    situacao          TEXT        NOT NULL DEFAULT 'ativa' CHECK (situacao IN ('ativa', 'recusada', 'revogada')),
    situacao_em       TIMESTAMPTZ NOT NULL,
    motivo            TEXT        CHECK (char_length(motivo) <= 200)
);
CREATE INDEX debit_authorizations_active ON debit_authorizations (banco) WHERE situacao = 'ativa';

-- Each agreement's last remessa number (NSA), advanced under the row's lock.
CREATE TABLE debit_agreements (
    banco      TEXT    NOT NULL CHECK (banco ~ '^[0-9]{3}$'),
    convenio   TEXT    NOT NULL CHECK (char_length(convenio) BETWEEN 1 AND 20),
    ultimo_nsa INTEGER NOT NULL DEFAULT 0 CHECK (ultimo_nsa >= 0),
    PRIMARY KEY (banco, convenio)
);

-- The files: a remessa as sent (its text kept, to send again or reconcile), a retorno as read
-- (its SHA-256 unique: read twice, applied once).
CREATE TABLE debit_files (
    id           BIGSERIAL   PRIMARY KEY,
    tipo         TEXT        NOT NULL CHECK (tipo IN ('remessa', 'retorno')),
    banco        TEXT        NOT NULL,
    convenio     TEXT        NOT NULL,
    nsa          INTEGER     NOT NULL,
    nome         TEXT        NOT NULL CHECK (char_length(nome) BETWEEN 1 AND 200),
    registros    INTEGER     NOT NULL CHECK (registros >= 2),
    valor_total  BIGINT      NOT NULL CHECK (valor_total >= 0),
    sha256       TEXT        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    conteudo     TEXT,
    em           TIMESTAMPTZ NOT NULL,
    confirmada_em TIMESTAMPTZ,
    resumo       TEXT
);
CREATE UNIQUE INDEX debit_files_retorno_once ON debit_files (sha256) WHERE tipo = 'retorno';
CREATE UNIQUE INDEX debit_files_remessa_once ON debit_files (banco, convenio, nsa) WHERE tipo = 'remessa';

-- Each debit sent: the charge and its attempt, the file, and the bank's answer once read.
CREATE TABLE debit_file_items (
    id_cobranca    BIGINT      NOT NULL REFERENCES charges (id) ON DELETE CASCADE,
    tentativa      INTEGER     NOT NULL CHECK (tentativa >= 1),
    id_remessa     BIGINT      NOT NULL REFERENCES debit_files (id),
    data_debito    DATE        NOT NULL,
    valor          BIGINT      NOT NULL,
    codigo_retorno TEXT        CHECK (codigo_retorno ~ '^[0-9]{2}$'),
    id_retorno     BIGINT      REFERENCES debit_files (id),
    lido_em        TIMESTAMPTZ,
    PRIMARY KEY (id_cobranca, tentativa),
    CONSTRAINT debit_file_items_answered CHECK ((codigo_retorno IS NULL) = (lido_em IS NULL))
);
-- The debits awaiting their return: a charge is not sent again while one is.
CREATE INDEX debit_file_items_awaiting ON debit_file_items (id_cobranca) WHERE codigo_retorno IS NULL;

-- The contracts billed by debit before this migration hold the authorisation they signed.
INSERT INTO debit_authorizations (id_proposta, banco, autorizada_em, evidencia_sha256, situacao_em)
SELECT b.id_proposta, pp.banco, b.aceita_em, s.sha256, now()
FROM contract_billings b
JOIN proposal_payments pp ON pp.id_proposta = b.id_proposta
LEFT JOIN sealed_documents s ON s.proposal_id = b.id_proposta
WHERE b.metodo = 'DÉBITO EM CONTA' AND pp.banco ~ '^[0-9]{3}$';
