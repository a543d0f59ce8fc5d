-- A proposal's beneficiaries (issue 68, decision 279): whom the insured names to receive the
-- capital, as route 5 read them, in their order: `nome`, `cpf` (or null), `data_nascimento`
-- (or null), `parentesco`, `percentual` (whole percent; the shares sum 100). A proposal that
-- names none has no row: the legal heirs (Lei 15.040/2024, art. 115). One row per proposal, so
-- that route 5 writes it and its document in its one statement.
CREATE TABLE proposal_beneficiaries (
    id_proposta BIGINT PRIMARY KEY REFERENCES proposals (id) ON DELETE CASCADE,
    beneficiarios JSONB NOT NULL
        CONSTRAINT proposal_beneficiaries_lista CHECK (
            jsonb_typeof(beneficiarios) = 'array'
            AND jsonb_array_length(beneficiarios) BETWEEN 1 AND 10
        ),
    criado_em TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- A product may require them (none of the demo's does).
ALTER TABLE products ADD COLUMN beneficiarios_obrigatorios BOOLEAN NOT NULL DEFAULT FALSE;
