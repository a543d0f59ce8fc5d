-- Customers private to the seller that registered them (docs/decisions.md #73, superseding #21).
-- A registration is keyed by its seller (a partner, or the online shop) and the CPF: one seller's
-- registration of a CPF is never read or changed by another. A proposal keeps its own copy of the
-- customer and address it was made with (proposal_customers); its seller's later corrections reach
-- it only while it is NOVO. The one-open-proposal rule stays global, by CPF.

ALTER TABLE customers
    ADD COLUMN aplicacao_vendedor TEXT,
    ADD COLUMN id_parceiro_vendedor BIGINT REFERENCES partners (id);
ALTER TABLE customers DROP CONSTRAINT customers_cpf_key;

-- Each existing customer goes to every seller that holds it: each partner it is registered with
-- or that has proposals of it, and the shop when it has e-commerce proposals (or nothing else).
-- The shop comes first, so that it keeps the original row with its payment-platform links.
CREATE TEMPORARY TABLE registration_split AS
SELECT c.id AS customer_id, s.aplicacao, s.partner_id,
       row_number() OVER (PARTITION BY c.id ORDER BY (s.aplicacao = 'ECOMMERCE') DESC, s.partner_id) AS n
FROM customers c
CROSS JOIN LATERAL (
    SELECT 'PARCEIRO' AS aplicacao, cp.partner_id FROM customer_partners cp WHERE cp.customer_id = c.id
    UNION
    SELECT 'PARCEIRO', p.id_parceiro FROM proposals p WHERE p.id_cliente = c.id AND p.fluxo = 'PARCEIRO'
    UNION
    SELECT 'ECOMMERCE', NULL::BIGINT FROM proposals p WHERE p.id_cliente = c.id AND p.fluxo = 'ECOMMERCE'
) s;
INSERT INTO registration_split (customer_id, aplicacao, partner_id, n)
SELECT c.id, 'ECOMMERCE', NULL, 1 FROM customers c
WHERE NOT EXISTS (SELECT 1 FROM registration_split r WHERE r.customer_id = c.id);

DO $$
DECLARE
    r RECORD;
    copy_id BIGINT;
    copy_address BIGINT;
BEGIN
    FOR r IN SELECT * FROM registration_split ORDER BY customer_id, n LOOP
        IF r.n = 1 THEN
            UPDATE customers SET aplicacao_vendedor = r.aplicacao, id_parceiro_vendedor = r.partner_id
            WHERE id = r.customer_id;
        ELSE
            copy_address := NULL;
            INSERT INTO addresses (cep, endereco, numero, bairro, cidade, estado, complemento, criado_em, alterado_em)
            SELECT a.cep, a.endereco, a.numero, a.bairro, a.cidade, a.estado, a.complemento, a.criado_em, a.alterado_em
            FROM addresses a JOIN customers c ON c.id_endereco = a.id WHERE c.id = r.customer_id
            RETURNING id INTO copy_address;
            INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, estado_civil, nacionalidade, celular,
                telefone_fixo, email, profissao, salario, trabalhando, servidor_publico, pep, afastado, medicamento,
                medicamento_descricao, key_cliente, status, e_analfabeto, codigo_jave, cargo_politico, id_endereco,
                alterado_por, criado_em, alterado_em, aplicacao_vendedor, id_parceiro_vendedor)
            SELECT cpf, nome_completo, data_nascimento, sexo, estado_civil, nacionalidade, celular,
                telefone_fixo, email, profissao, salario, trabalhando, servidor_publico, pep, afastado, medicamento,
                medicamento_descricao, key_cliente, status, e_analfabeto, codigo_jave, cargo_politico, copy_address,
                alterado_por, criado_em, alterado_em, r.aplicacao, r.partner_id
            FROM customers WHERE id = r.customer_id
            RETURNING id INTO copy_id;
            UPDATE proposals SET id_cliente = copy_id
            WHERE id_cliente = r.customer_id
              AND fluxo = r.aplicacao
              AND (r.aplicacao = 'ECOMMERCE' OR id_parceiro = r.partner_id);
        END IF;
    END LOOP;
END
$$;

DROP TABLE registration_split;

ALTER TABLE customers
    ALTER COLUMN aplicacao_vendedor SET NOT NULL,
    ADD CONSTRAINT customers_seller_check CHECK (
        (aplicacao_vendedor = 'PARCEIRO' AND id_parceiro_vendedor IS NOT NULL)
        OR (aplicacao_vendedor = 'ECOMMERCE' AND id_parceiro_vendedor IS NULL)),
    ADD CONSTRAINT customers_seller_cpf_key UNIQUE NULLS NOT DISTINCT (aplicacao_vendedor, id_parceiro_vendedor, cpf);
-- The back office's look-up of every registration of a CPF.
CREATE INDEX customers_cpf_idx ON customers (cpf);
DROP INDEX customers_celular_idx;
DROP TABLE customer_partners;

-- The CPF on the proposal itself: the one-open-proposal rule is global, whoever registered it.
ALTER TABLE proposals ADD COLUMN cpf_cliente TEXT;
UPDATE proposals p SET cpf_cliente = c.cpf FROM customers c WHERE c.id = p.id_cliente;
ALTER TABLE proposals
    ALTER COLUMN cpf_cliente SET NOT NULL,
    ADD CONSTRAINT proposals_cpf_cliente_format CHECK (cpf_cliente ~ '^[0-9]{11}$');
DROP INDEX proposals_one_open_per_customer_product;
CREATE UNIQUE INDEX proposals_one_open_per_cpf_product ON proposals (cpf_cliente, id_produto)
    WHERE status NOT IN ('APROVADO', 'REPROVADO', 'CANCELADO');

-- What the proposal shows of its customer and address: written with the proposal, refreshed from
-- its registration while the proposal is NOVO, frozen once it leaves NOVO (sent for signature,
-- paid or cancelled).
CREATE TABLE proposal_customers (
    id_proposta           BIGINT      PRIMARY KEY REFERENCES proposals (id) ON DELETE CASCADE,
    id_cliente            BIGINT      NOT NULL REFERENCES customers (id),
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
    trabalhando           BOOLEAN     NOT NULL,
    servidor_publico      BOOLEAN     NOT NULL,
    pep                   BOOLEAN     NOT NULL,
    afastado              BOOLEAN     NOT NULL,
    medicamento           BOOLEAN     NOT NULL,
    medicamento_descricao TEXT,
    e_analfabeto          BOOLEAN     NOT NULL,
    cargo_politico        TEXT,
    cep                   TEXT        NOT NULL,
    endereco              TEXT        NOT NULL,
    numero                TEXT        NOT NULL,
    bairro                TEXT        NOT NULL,
    cidade                TEXT        NOT NULL,
    estado                TEXT        NOT NULL,
    complemento           TEXT,
    alterado_por          TEXT        NOT NULL,
    criado_em             TIMESTAMPTZ NOT NULL,
    alterado_em           TIMESTAMPTZ NOT NULL
);
CREATE INDEX proposal_customers_customer_idx ON proposal_customers (id_cliente);
-- Route 9: open proposals by the cell phone they were made with.
CREATE INDEX proposal_customers_celular_idx ON proposal_customers (celular);

-- Every existing proposal gets its copy from its registration as it stands now (a proposal whose
-- customer had no address keeps none: it cannot be shown, so a placeholder is not invented).
INSERT INTO proposal_customers
SELECT p.id, c.id, c.cpf, c.nome_completo, c.data_nascimento, c.sexo, c.estado_civil, c.nacionalidade, c.celular,
       c.telefone_fixo, c.email, c.profissao, c.salario, c.trabalhando, c.servidor_publico, c.pep, c.afastado,
       c.medicamento, c.medicamento_descricao, c.e_analfabeto, c.cargo_politico,
       a.cep, a.endereco, a.numero, a.bairro, a.cidade, a.estado, a.complemento,
       c.alterado_por, c.criado_em, c.alterado_em
FROM proposals p
JOIN customers c ON c.id = p.id_cliente
JOIN addresses a ON a.id = c.id_endereco;
