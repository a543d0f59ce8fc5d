-- The customer's social name (nome social, Decreto 8.727/2016): the name a person is known by,
-- kept beside the civil name on the registration and on every proposal's copy. Optional; the
-- service reads it with the full name's rules (decision 132), the database keeps its bounds.
ALTER TABLE customers ADD COLUMN nome_social TEXT
    CONSTRAINT customers_nome_social_length CHECK (char_length(nome_social) BETWEEN 2 AND 120);
ALTER TABLE proposal_customers ADD COLUMN nome_social TEXT
    CONSTRAINT proposal_customers_nome_social_length CHECK (char_length(nome_social) BETWEEN 2 AND 120);

-- The read model's documents hold the copy's every column: written again so that each holds the
-- new one (adding a column fires no trigger).
SELECT write_proposal_read_model(id) FROM proposals;
