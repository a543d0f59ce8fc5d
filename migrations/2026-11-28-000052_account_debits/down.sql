-- The debits' records go whole; the charges keep the attempts they counted.
DROP TABLE debit_file_items;
DROP TABLE debit_files;
DROP TABLE debit_agreements;
DROP TABLE debit_authorizations;
