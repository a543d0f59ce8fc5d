-- The loads' record and the list in force are set aside whole, for the way up again (the record
-- of who loaded which publication is kept with the screening's, Circular SUSEP 612/2020).
ALTER TABLE kyc_pep_entries RENAME TO __kyc_pep_entries_before_rollback;
ALTER TABLE kyc_pep_imports RENAME TO __kyc_pep_imports_before_rollback;
