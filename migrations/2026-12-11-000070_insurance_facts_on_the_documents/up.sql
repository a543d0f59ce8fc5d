-- What both documents print besides the proposal (issue 68, decision 280).

-- The insurer's code at SUSEP (five digits) with the product's cover.
ALTER TABLE products ADD COLUMN seguradora_codigo_susep TEXT
    CONSTRAINT products_seguradora_codigo_susep CHECK (seguradora_codigo_susep ~ '^[0-9]{5}$');

-- The product's line as the IOF's rates are set (Decreto 6.306/2007, art. 22 §1º): pessoas
-- (vida, acidentes pessoais e do trabalho, 0,38%), saude (2,38%), demais (7,38%). Every product
-- sold so far is life, funeral or personal accident cover: persons.
ALTER TABLE products ADD COLUMN ramo_iof TEXT NOT NULL DEFAULT 'pessoas'
    CONSTRAINT products_ramo_iof CHECK (ramo_iof IN ('pessoas', 'saude', 'demais'));

-- A collective product's policyholder CNPJ and master policy (Resolução CNSP 434/2021), printed
-- on its certificates with the policyholder's name.
ALTER TABLE products
    ADD COLUMN estipulante_cnpj TEXT
        CONSTRAINT products_estipulante_cnpj CHECK (estipulante_cnpj ~ '^[0-9A-Z]{12}[0-9]{2}$'),
    ADD COLUMN apolice_mestre TEXT
        CONSTRAINT products_apolice_mestre CHECK (char_length(apolice_mestre) BETWEEN 1 AND 40);

-- The product's general conditions: version, address, the SHA-256 of that file, and the summary
-- of exclusions and waiting periods the documents print. All five or none.
ALTER TABLE products
    ADD COLUMN condicoes_versao TEXT,
    ADD COLUMN condicoes_url TEXT,
    ADD COLUMN condicoes_sha256 TEXT
        CONSTRAINT products_condicoes_sha256 CHECK (condicoes_sha256 ~ '^[0-9a-f]{64}$'),
    ADD COLUMN condicoes_exclusoes TEXT,
    ADD COLUMN condicoes_carencias TEXT,
    ADD CONSTRAINT products_condicoes_completas CHECK (
        num_nulls(condicoes_versao, condicoes_url, condicoes_sha256, condicoes_exclusoes, condicoes_carencias)
            IN (0, 5)
    );

-- A partner's registration as a broker at SUSEP (Resolução CNSP 382/2020: the intermediary
-- identified), recorded by the back office. Its own table: the partner's row is part of every
-- proposal's stored document, and the registration is read only when a document is printed.
CREATE TABLE partner_brokers (
    id_parceiro BIGINT PRIMARY KEY REFERENCES partners (id) ON DELETE CASCADE,
    registro_susep TEXT NOT NULL
        CONSTRAINT partner_brokers_registro_susep CHECK (registro_susep ~ '^[0-9]{5,20}$'),
    alterado_por TEXT NOT NULL,
    alterado_em TIMESTAMPTZ NOT NULL DEFAULT now()
);
