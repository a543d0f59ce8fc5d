-- The customer's mother's name (nome da mãe), used in identity checks: optional, on the
-- registration and on every proposal's copy. The service reads it with the full name's rules;
-- the database keeps its bounds. The read model's documents need no rewrite: a document without
-- the member reads it as absent, which it is (decision 168).
ALTER TABLE customers ADD COLUMN nome_mae TEXT
    CONSTRAINT customers_nome_mae_length CHECK (char_length(nome_mae) BETWEEN 2 AND 120);
ALTER TABLE proposal_customers ADD COLUMN nome_mae TEXT
    CONSTRAINT proposal_customers_nome_mae_length CHECK (char_length(nome_mae) BETWEEN 2 AND 120);
