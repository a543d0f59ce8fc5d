ALTER TABLE products DROP COLUMN beneficiarios_obrigatorios;
DROP TABLE proposal_beneficiaries;
