-- The benchmark's data set: proposals :first to :last (numbers, so that a later run can add more)
-- over 5 partners, each with its customer (registered by that partner) and address, and the
-- proposal's own copy of them, on top of the demo catalog
-- (`sales-api seed demo`). CPFs here only need the database's shape (11 digits, unique); the
-- service never revalidates stored ones.
\set ON_ERROR_STOP on
BEGIN;
INSERT INTO partners (cpf_cnpj, social_reason, alterado_por)
SELECT lpad((90000000000000 + p)::text, 14, '0'), 'Parceiro de carga ' || p, 'bench'
FROM generate_series(1, 4) AS p
ON CONFLICT DO NOTHING;

WITH partner AS (SELECT array_agg(id ORDER BY id) AS ids FROM partners),
address AS (
    INSERT INTO addresses (cep, endereco, numero, bairro, cidade, estado)
    SELECT '01310100', 'Avenida Paulista', i::text, 'Bela Vista', 'São Paulo', 'SP'
    FROM generate_series(:first, :last) AS i
    RETURNING id
), numbered AS (
    SELECT id, :first - 1 + row_number() OVER (ORDER BY id) AS i FROM address
)
INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, celular, email, salario, alterado_por, id_endereco,
                       aplicacao_vendedor, id_parceiro_vendedor)
SELECT lpad((10000000000 + i)::text, 11, '0'), 'Cliente De Carga', date '1980-01-01' + (i % 9000)::int, 'Feminino',
       '119' || lpad((i % 100000000)::text, 8, '0'), 'cliente' || i || '@carga.exemplo.com', 250000, 'bench', id,
       'PARCEIRO', partner.ids[1 + i % array_length(partner.ids, 1)]
FROM numbered, partner;

WITH product AS (SELECT id FROM products WHERE codigo_produto = 101),
     batch AS (SELECT c.id, c.cpf, c.cpf::bigint - 10000000000 AS i, c.id_parceiro_vendedor, pa.cpf_cnpj
               FROM customers c JOIN partners pa ON pa.id = c.id_parceiro_vendedor
               WHERE c.alterado_por = 'bench' AND c.cpf BETWEEN lpad((10000000000 + :first)::text, 11, '0')
                                                            AND lpad((10000000000 + :last)::text, 11, '0'))
INSERT INTO proposals (identificador, valor, cpf_cnpj_parceiro, id_parceiro, id_representante, id_cliente, cpf_cliente, status,
                       alterado_por, tipo_envio, fluxo, id_produto, codigo_faturamento, tipo_pagamento, criado_em)
SELECT gen_random_uuid()::text, 4990, batch.cpf_cnpj, batch.id_parceiro_vendedor,
       (SELECT min(id) FROM representatives), batch.id, batch.cpf,
       (ARRAY['NOVO', 'AGUARDANDO ASSINATURA', 'EM ANÁLISE', 'APROVADO'])[1 + batch.i % 4], 'bench', 'sms', 'PARCEIRO',
       product.id, 5002, 'DESCONTO EM FOLHA',
       -- One every 30 seconds, as a list pages through them (a later batch continues the line).
       timestamptz '2025-01-01 00:00:00+00' + batch.i * interval '30 seconds'
FROM batch, product;

-- Each proposal's copy of its customer and address.
INSERT INTO proposal_customers (id_proposta, id_cliente, cpf, nome_completo, data_nascimento, sexo, celular, email, salario,
                                trabalhando, servidor_publico, pep, afastado, medicamento, e_analfabeto, cep, endereco,
                                numero, bairro, cidade, estado, alterado_por, criado_em, alterado_em)
SELECT p.id, c.id, c.cpf, c.nome_completo, c.data_nascimento, c.sexo, c.celular, c.email, c.salario, c.trabalhando,
       c.servidor_publico, c.pep, c.afastado, c.medicamento, c.e_analfabeto, a.cep, a.endereco, a.numero, a.bairro,
       a.cidade, a.estado, c.alterado_por, c.criado_em, c.alterado_em
FROM proposals p JOIN customers c ON c.id = p.id_cliente JOIN addresses a ON a.id = c.id_endereco
WHERE p.alterado_por = 'bench' AND NOT EXISTS (SELECT 1 FROM proposal_customers pc WHERE pc.id_proposta = p.id);

-- Each proposal's payroll-discount payment, as a representative's proposal has.
INSERT INTO proposal_payments (id_proposta, tipo, numero_folha, tipo_folha, especie, alterado_por)
SELECT p.id, 'DESCONTO EM FOLHA', lpad(p.id::text, 10, '0'), 'BENEFÍCIO', 41, 'bench'
FROM proposals p
WHERE p.alterado_por = 'bench' AND NOT EXISTS (SELECT 1 FROM proposal_payments pp WHERE pp.id_proposta = p.id);
COMMIT;
-- The sign-in rows sign in as many customers from many addresses, as real traffic does (one
-- account from one address is refused once SIGNIN_MAX_FAILURES attempts are in flight): 256 shop
-- users with the demo shop user's password hash (Ecommerce#2026), made without 256 bcrypt runs.
INSERT INTO users (email, password_hash)
SELECT 'cliente' || g || '@bench.local', (SELECT password_hash FROM users WHERE email = 'ecommerce@demo.com.br')
FROM generate_series(1, 256) AS g
ON CONFLICT (email) DO NOTHING;
INSERT INTO user_applications (user_id, application)
SELECT id, 'ECOMMERCE' FROM users WHERE email LIKE 'cliente%@bench.local'
ON CONFLICT DO NOTHING;

-- Every row is measured on a settled database: the freshly written tables vacuumed (visibility
-- map set, so index-only scans need no heap visit) and analysed, instead of autovacuum working
-- through them during the first measurement.
VACUUM ANALYZE;
