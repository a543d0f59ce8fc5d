-- Back to one customer per CPF shared by every seller. Per CPF the registration with
-- payment-platform links (else the one changed last) survives; the proposals, setup intents and
-- subscriptions of the others move to it, and their sellers become its partner links. What only the
-- other registrations and the proposals' own copies held is lost: that is what this reversal undoes.

CREATE TABLE customer_partners (
    customer_id BIGINT      NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    partner_id  BIGINT      NOT NULL REFERENCES partners (id),
    criado_em   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (customer_id, partner_id)
);
CREATE INDEX customer_partners_partner_idx ON customer_partners (partner_id);

CREATE TEMPORARY TABLE registration_merge AS
SELECT id, first_value(id) OVER (
           PARTITION BY cpf ORDER BY (ecommerce_customer_id IS NOT NULL) DESC, alterado_em DESC, id DESC) AS survivor
FROM customers;

INSERT INTO customer_partners (customer_id, partner_id)
SELECT DISTINCT m.survivor, c.id_parceiro_vendedor
FROM customers c JOIN registration_merge m ON m.id = c.id
WHERE c.id_parceiro_vendedor IS NOT NULL;

UPDATE proposals p SET id_cliente = m.survivor FROM registration_merge m WHERE m.id = p.id_cliente AND m.id <> m.survivor;
UPDATE setup_intents s SET customer_id = m.survivor FROM registration_merge m WHERE m.id = s.customer_id AND m.id <> m.survivor;
UPDATE subscriptions s SET customer_id = m.survivor FROM registration_merge m WHERE m.id = s.customer_id AND m.id <> m.survivor;

DROP TABLE proposal_customers;

CREATE TEMPORARY TABLE merged_addresses AS
SELECT c.id_endereco AS id FROM customers c JOIN registration_merge m ON m.id = c.id
WHERE m.id <> m.survivor AND c.id_endereco IS NOT NULL;
DELETE FROM customers c USING registration_merge m WHERE m.id = c.id AND m.id <> m.survivor;
DELETE FROM addresses a USING merged_addresses d WHERE d.id = a.id;
DROP TABLE merged_addresses;
DROP TABLE registration_merge;

DROP INDEX proposals_one_open_per_cpf_product;
CREATE UNIQUE INDEX proposals_one_open_per_customer_product ON proposals (id_cliente, id_produto)
    WHERE status NOT IN ('APROVADO', 'REPROVADO', 'CANCELADO');
ALTER TABLE proposals DROP CONSTRAINT proposals_cpf_cliente_format, DROP COLUMN cpf_cliente;

DROP INDEX customers_cpf_idx;
CREATE INDEX customers_celular_idx ON customers (celular);
ALTER TABLE customers
    DROP CONSTRAINT customers_seller_cpf_key,
    DROP CONSTRAINT customers_seller_check,
    DROP COLUMN id_parceiro_vendedor,
    DROP COLUMN aplicacao_vendedor,
    ADD CONSTRAINT customers_cpf_key UNIQUE (cpf);
