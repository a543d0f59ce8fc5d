DROP INDEX proposal_customers_name_search_idx;
DROP INDEX proposals_cpf_listed_idx;
DROP INDEX proposals_status_listed_idx;
DROP INDEX proposals_partner_listed_idx;
CREATE INDEX proposals_partner_idx ON proposals (id_parceiro);
DROP INDEX proposals_flow_listed_idx;
DROP INDEX proposals_listed_idx;
DROP FUNCTION search_text(TEXT);
