ALTER TABLE proposal_customers DROP COLUMN nome_social;
ALTER TABLE customers DROP COLUMN nome_social;

SELECT write_proposal_read_model(id) FROM proposals;
