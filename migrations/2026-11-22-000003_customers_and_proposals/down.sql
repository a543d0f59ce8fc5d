DROP TABLE proposal_payments;
DROP TABLE proposals;
DROP TABLE motivations;
DROP TABLE customer_partners;
DROP TABLE customers;
DROP TABLE addresses;
ALTER TABLE products DROP COLUMN valor;
