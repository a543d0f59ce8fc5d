ALTER TABLE products DROP CONSTRAINT products_termos_length, DROP COLUMN termos;
ALTER TABLE signature_parties DROP COLUMN ip, DROP COLUMN user_agent, DROP COLUMN authentication;
DROP TABLE provider_signed_copies;
DROP TABLE signed_documents;
