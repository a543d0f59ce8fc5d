-- The column goes, and with it the member of every document that holds one (written again).
ALTER TABLE proposal_customers DROP COLUMN nome_mae;
ALTER TABLE customers DROP COLUMN nome_mae;
UPDATE proposal_read_models SET documento = documento #- '{customer,nome_mae}' WHERE documento -> 'customer' ? 'nome_mae';
