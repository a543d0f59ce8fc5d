-- Customers with their addresses and the partners they are registered with; proposals with their
-- payment details; motivations. Column names follow the contract where it shows them.

ALTER TABLE products ADD COLUMN valor BIGINT NOT NULL DEFAULT 0 CONSTRAINT products_valor_check CHECK (valor >= 0);

CREATE TABLE addresses (
    id          BIGSERIAL PRIMARY KEY,
    cep         TEXT        NOT NULL,
    endereco    TEXT        NOT NULL,
    numero      TEXT        NOT NULL,
    bairro      TEXT        NOT NULL,
    cidade      TEXT        NOT NULL,
    estado      TEXT        NOT NULL,
    complemento TEXT,
    criado_em   TIMESTAMPTZ NOT NULL DEFAULT now(),
    alterado_em TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT addresses_cep_format CHECK (cep ~ '^[0-9]{8}$' AND cep <> '00000000'),
    CONSTRAINT addresses_estado_check CHECK (estado IN ('AC','AL','AP','AM','BA','CE','DF','ES','GO','MA','MT','MS','MG','PA',
        'PB','PR','PE','PI','RJ','RN','RS','RO','RR','SC','SP','SE','TO'))
);

CREATE TABLE customers (
    id                    BIGSERIAL PRIMARY KEY,
    cpf                   TEXT        NOT NULL,
    nome_completo         TEXT        NOT NULL,
    data_nascimento       DATE        NOT NULL,
    sexo                  TEXT        NOT NULL,
    estado_civil          TEXT,
    nacionalidade         TEXT,
    celular               TEXT,
    telefone_fixo         TEXT,
    email                 TEXT,
    profissao             TEXT,
    salario               BIGINT,
    trabalhando           BOOLEAN     NOT NULL DEFAULT false,
    servidor_publico      BOOLEAN     NOT NULL DEFAULT false,
    pep                   BOOLEAN     NOT NULL DEFAULT false,
    afastado              BOOLEAN     NOT NULL DEFAULT false,
    medicamento           BOOLEAN     NOT NULL DEFAULT false,
    medicamento_descricao TEXT,
    key_cliente           TEXT,
    status                TEXT        NOT NULL DEFAULT 'NOVO',
    e_analfabeto          BOOLEAN     NOT NULL DEFAULT false,
    codigo_jave           TEXT,
    cargo_politico        TEXT,
    id_endereco           BIGINT REFERENCES addresses (id),
    ecommerce_customer_id TEXT,
    alterado_por          TEXT        NOT NULL,
    criado_em             TIMESTAMPTZ NOT NULL DEFAULT now(),
    alterado_em           TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT customers_cpf_key UNIQUE (cpf),
    CONSTRAINT customers_ecommerce_customer_id_key UNIQUE (ecommerce_customer_id),
    CONSTRAINT customers_cpf_format CHECK (cpf ~ '^[0-9]{11}$'),
    CONSTRAINT customers_celular_format CHECK (celular ~ '^[0-9]{2}9[0-9]{8}$'),
    CONSTRAINT customers_telefone_format CHECK (telefone_fixo ~ '^[0-9]{2}[2-5][0-9]{7}$'),
    CONSTRAINT customers_sexo_check CHECK (sexo IN ('Masculino', 'Feminino')),
    CONSTRAINT customers_estado_civil_check CHECK (estado_civil IN ('Solteiro', 'Casado', 'Separado', 'Divorciado', 'Viúvo')),
    CONSTRAINT customers_salario_check CHECK (salario >= 0),
    CONSTRAINT customers_status_check CHECK (status IN ('NOVO'))
);
CREATE INDEX customers_celular_idx ON customers (celular);

-- A customer is registered with each partner that created it or a proposal for it.
CREATE TABLE customer_partners (
    customer_id BIGINT      NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    partner_id  BIGINT      NOT NULL REFERENCES partners (id),
    criado_em   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (customer_id, partner_id)
);
CREATE INDEX customer_partners_partner_idx ON customer_partners (partner_id);

CREATE TABLE motivations (
    id        INTEGER PRIMARY KEY,
    descricao TEXT NOT NULL
);
INSERT INTO motivations (id, descricao) VALUES (1, 'Nova venda'), (2, 'Portabilidade'), (3, 'Reativação');

CREATE TABLE proposals (
    id                        BIGSERIAL PRIMARY KEY,
    identificador             TEXT        NOT NULL,
    id_jave                   TEXT,
    valor                     BIGINT      NOT NULL DEFAULT 0,
    cpf_cnpj_parceiro         TEXT,
    id_parceiro               BIGINT REFERENCES partners (id),
    id_representante          BIGINT REFERENCES representatives (id),
    id_cliente                BIGINT      NOT NULL REFERENCES customers (id),
    key_documento             TEXT,
    key_assinatura_requisicao TEXT,
    reenvios                  INTEGER     NOT NULL DEFAULT 0,
    status                    TEXT        NOT NULL DEFAULT 'NOVO',
    alterado_por              TEXT        NOT NULL,
    alterado_em               TIMESTAMPTZ NOT NULL DEFAULT now(),
    criado_em                 TIMESTAMPTZ NOT NULL DEFAULT now(),
    cnpj_associacao           TEXT,
    cnpj_federacao            TEXT,
    tipo_envio                TEXT        NOT NULL,
    reenvio_notificacao       INTEGER     NOT NULL DEFAULT 0,
    fluxo                     TEXT        NOT NULL,
    codigo_associado          TEXT,
    id_motivacao              INTEGER     NOT NULL DEFAULT 1 REFERENCES motivations (id),
    id_produto                BIGINT      NOT NULL REFERENCES products (id),
    id_gravacao               TEXT,
    id_convite                TEXT,
    assinatura_eletronica     TEXT,
    codigo_faturamento        INTEGER     NOT NULL REFERENCES billing_groups (codigo_faturamento) ON UPDATE CASCADE,
    tipo_pagamento            TEXT,
    CONSTRAINT proposals_identificador_key UNIQUE (identificador),
    CONSTRAINT proposals_valor_check CHECK (valor >= 0),
    CONSTRAINT proposals_reenvios_check CHECK (reenvios >= 0 AND reenvio_notificacao >= 0),
    CONSTRAINT proposals_status_check CHECK (status IN ('NOVO', 'AGUARDANDO ASSINATURA', 'EM ANÁLISE', 'APROVADO', 'REPROVADO', 'CANCELADO')),
    CONSTRAINT proposals_tipo_envio_check CHECK (tipo_envio IN ('sms', 'whatsapp')),
    CONSTRAINT proposals_fluxo_check CHECK (fluxo IN ('PARCEIRO', 'ECOMMERCE')),
    CONSTRAINT proposals_tipo_pagamento_check CHECK (tipo_pagamento IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA')),
    CONSTRAINT proposals_partner_flow_check CHECK (fluxo <> 'PARCEIRO' OR (id_parceiro IS NOT NULL AND id_representante IS NOT NULL))
);
-- One unfinished proposal per customer and product: two concurrent creates cannot both pass.
CREATE UNIQUE INDEX proposals_one_open_per_customer_product ON proposals (id_cliente, id_produto)
    WHERE status NOT IN ('APROVADO', 'REPROVADO', 'CANCELADO');
CREATE INDEX proposals_partner_idx ON proposals (id_parceiro);
CREATE INDEX proposals_customer_idx ON proposals (id_cliente);

CREATE TABLE proposal_payments (
    id             BIGSERIAL PRIMARY KEY,
    id_proposta    BIGINT      NOT NULL REFERENCES proposals (id) ON DELETE CASCADE,
    tipo           TEXT        NOT NULL,
    nome_cartao    TEXT,
    numero_cartao  TEXT,
    validade       TEXT,
    dia_cobranca   INTEGER,
    banco          TEXT,
    agencia        TEXT,
    conta          TEXT,
    operacao       TEXT,
    numero_folha   TEXT,
    tipo_folha     TEXT,
    especie        INTEGER,
    orgao_emissor  TEXT,
    alterado_por   TEXT        NOT NULL,
    criado_em      TIMESTAMPTZ NOT NULL DEFAULT now(),
    alterado_em    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT proposal_payments_proposal_key UNIQUE (id_proposta),
    CONSTRAINT proposal_payments_tipo_check CHECK (tipo IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA')),
    CONSTRAINT proposal_payments_tipo_folha_check CHECK (tipo_folha IN ('BENEFÍCIO', 'MATRÍCULA')),
    CONSTRAINT proposal_payments_debit_fields CHECK (tipo <> 'DÉBITO EM CONTA' OR (banco IS NOT NULL AND agencia IS NOT NULL AND conta IS NOT NULL)),
    CONSTRAINT proposal_payments_sheet_fields CHECK (tipo <> 'DESCONTO EM FOLHA' OR (numero_folha IS NOT NULL AND tipo_folha IS NOT NULL AND especie IS NOT NULL))
);
