-- A refused proposal's defence, kept apart for the back office (issue 69, decision 290): when the
-- retention schedule or an anonymisation takes the proposal's health answers and free text, what
-- the insurer needs to defend the refusal (what the person declared, the refusal's words and
-- category, what the requests for documents asked and were answered) is copied here first and
-- kept for the five years of the consumer's claim (CDC art. 27; LGPD art. 7º, VI and art. 11,
-- II, "d"), then erased by the housekeeping. The person is found by a keyed digest of the CPF,
-- never the CPF itself.
DO $$
BEGIN
    IF to_regclass('__refusal_defences_before_rollback') IS NOT NULL THEN
        ALTER TABLE __refusal_defences_before_rollback RENAME TO refusal_defences;
        -- Checked for the rows written from now on: the kept ones were the proposals' when kept.
        ALTER TABLE refusal_defences ADD CONSTRAINT refusal_defences_id_proposta_fkey
            FOREIGN KEY (id_proposta) REFERENCES proposals (id) NOT VALID;
    ELSE
        CREATE TABLE refusal_defences (
            id bigserial PRIMARY KEY,
            id_proposta bigint NOT NULL UNIQUE REFERENCES proposals (id),
            identificador text NOT NULL,
            cpf_tag bytea NOT NULL,
            recusada_em timestamptz NOT NULL,
            motivo text,
            categoria_motivo text,
            declaracao jsonb NOT NULL,
            pedidos jsonb NOT NULL DEFAULT '[]',
            guardada_em timestamptz NOT NULL,
            guardada_por text NOT NULL,
            apagar_em timestamptz NOT NULL
        );
        CREATE INDEX refusal_defences_cpf_tag ON refusal_defences (cpf_tag);
        CREATE INDEX refusal_defences_apagar_em ON refusal_defences (apagar_em);
    END IF;
END $$;
