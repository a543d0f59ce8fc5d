-- The legal hold (issue 47; LGPD art. 16, I and art. 18, IV): a person who asks to be forgotten
-- while a contract of theirs is in force, or ended less than RETENTION_CONTRACT_YEARS ago, is
-- blocked instead: the data kept for the hold, shown to no seller, used for nothing new. One row
-- per blocked CPF, with the basis and the hold's end (none while a contract is in force); the row
-- goes when the person is anonymised.
CREATE TABLE personal_data_blocks (
    cpf           TEXT        PRIMARY KEY,
    base          TEXT        NOT NULL,
    retido_ate    TIMESTAMPTZ,
    bloqueado_em  TIMESTAMPTZ NOT NULL DEFAULT now(),
    bloqueado_por TEXT        NOT NULL
);
COMMENT ON TABLE personal_data_blocks IS
    'People whose data is blocked under a legal hold (LGPD art. 18, IV): kept until retido_ate, shown only to the back office.';

-- Route 7 answers a seller from the read model by key: the flag keeps a blocked person's
-- proposals out of it in the same lookup.
ALTER TABLE proposal_read_models ADD COLUMN bloqueado BOOLEAN NOT NULL DEFAULT false;

-- Nothing new is made of a blocked person's data: `refuse_blocked_person` and its triggers on
-- `customers` and `proposals` (migrations-repeatable/refuse_blocked_person.sql) refuse it.
