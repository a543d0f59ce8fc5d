-- The screening's tables are set aside whole, for the way up again (the diligence and its
-- decisions are records Circular SUSEP 612/2020 has kept for five years).
-- Without its reference to the proposals, which a rollback further down may drop.
ALTER TABLE proposal_kyc DROP CONSTRAINT proposal_kyc_id_proposta_fkey;
ALTER TABLE proposal_kyc RENAME TO __proposal_kyc_before_rollback;
ALTER TABLE kyc_sandbox_cpf_status RENAME TO __kyc_sandbox_cpf_status_before_rollback;
ALTER TABLE kyc_cpf_status RENAME TO __kyc_cpf_status_before_rollback;
