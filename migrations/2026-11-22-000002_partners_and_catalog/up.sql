-- Partners (the sellers) with their company and entities, their representatives (users), and the
-- catalog: banks, products and billing groups. Column names follow the contract where it shows them.

CREATE TABLE partners (
    id                    BIGSERIAL PRIMARY KEY,
    cpf_cnpj              TEXT        NOT NULL,
    fantasy_name          TEXT,
    social_reason         TEXT        NOT NULL,
    company_cnpj          TEXT,
    company_fantasy_name  TEXT,
    company_social_reason TEXT,
    association_cnpj      TEXT,
    association_name      TEXT,
    federation_cnpj       TEXT,
    federation_name       TEXT,
    alterado_por          TEXT        NOT NULL,
    criado_em             TIMESTAMPTZ NOT NULL DEFAULT now(),
    alterado_em           TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT partners_cpf_cnpj_key UNIQUE (cpf_cnpj),
    CONSTRAINT partners_cpf_cnpj_format CHECK (cpf_cnpj ~ '^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$'),
    CONSTRAINT partners_company_cnpj_format CHECK (company_cnpj ~ '^[0-9A-Z]{12}[0-9]{2}$'),
    CONSTRAINT partners_association_cnpj_format CHECK (association_cnpj ~ '^[0-9A-Z]{12}[0-9]{2}$'),
    CONSTRAINT partners_federation_cnpj_format CHECK (federation_cnpj ~ '^[0-9A-Z]{12}[0-9]{2}$')
);

-- A PARCEIRO user represents exactly one partner.
CREATE TABLE representatives (
    id                     BIGSERIAL PRIMARY KEY,
    user_id                BIGINT      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    partner_id             BIGINT      NOT NULL REFERENCES partners (id),
    video_attendance_token TEXT,
    criado_em              TIMESTAMPTZ NOT NULL DEFAULT now(),
    alterado_em            TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT representatives_user_key UNIQUE (user_id)
);
CREATE INDEX representatives_partner_idx ON representatives (partner_id);

CREATE TABLE banks (
    codigo_banco TEXT PRIMARY KEY,
    nome         TEXT NOT NULL,
    CONSTRAINT banks_codigo_format CHECK (codigo_banco ~ '^[0-9]{3}$')
);

CREATE TABLE products (
    id                BIGSERIAL PRIMARY KEY,
    codigo_produto    INTEGER     NOT NULL,
    nome              TEXT        NOT NULL,
    codigo_integracao INTEGER     NOT NULL,
    ativo             BOOLEAN     NOT NULL DEFAULT true,
    alterado_por      TEXT        NOT NULL,
    criado_em         TIMESTAMPTZ NOT NULL DEFAULT now(),
    alterado_em       TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT products_codigo_produto_key UNIQUE (codigo_produto),
    CONSTRAINT products_codigo_integracao_key UNIQUE (codigo_integracao),
    CONSTRAINT products_codigo_positive CHECK (codigo_produto > 0 AND codigo_integracao > 0)
);

CREATE TABLE product_banks (
    product_id   BIGINT NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    codigo_banco TEXT   NOT NULL REFERENCES banks (codigo_banco),
    PRIMARY KEY (product_id, codigo_banco)
);

CREATE TABLE billing_groups (
    id                 BIGSERIAL PRIMARY KEY,
    codigo_faturamento INTEGER     NOT NULL,
    descricao          TEXT        NOT NULL,
    codigo_integracao  INTEGER     NOT NULL,
    codigo_produto     INTEGER     NOT NULL REFERENCES products (codigo_produto) ON UPDATE CASCADE,
    alterado_por       TEXT        NOT NULL,
    criado_em          TIMESTAMPTZ NOT NULL DEFAULT now(),
    alterado_em        TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT billing_groups_codigo_faturamento_key UNIQUE (codigo_faturamento)
);
CREATE INDEX billing_groups_codigo_produto_idx ON billing_groups (codigo_produto);
