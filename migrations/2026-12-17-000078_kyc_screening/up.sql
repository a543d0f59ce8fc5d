-- The screening of a sale's customer (issue 70, decision 293): the CPF's status as the Receita
-- Federal answered it, kept for the configured time so that one person's sales cost one
-- consultation; development's answers, set per CPF by `POST /sandbox/kyc/cpf/{cpf}`; and each
-- proposal's due diligence when the screening called for it (a PEP on the CGU's list or
-- self-declared, a CPF the provider did not answer for), with the back office's decision.
-- Going down sets the three tables aside whole; up again brings them back with their rows.
DO $$
BEGIN
    IF to_regclass('__proposal_kyc_before_rollback') IS NOT NULL THEN
        ALTER TABLE __kyc_cpf_status_before_rollback RENAME TO kyc_cpf_status;
        ALTER TABLE __kyc_sandbox_cpf_status_before_rollback RENAME TO kyc_sandbox_cpf_status;
        ALTER TABLE __proposal_kyc_before_rollback RENAME TO proposal_kyc;
        -- Set aside without its reference (so that the proposals could go further down): the
        -- diligence of a proposal gone meanwhile goes too, and the reference comes back.
        DELETE FROM proposal_kyc k WHERE NOT EXISTS (SELECT 1 FROM proposals p WHERE p.id = k.id_proposta);
        ALTER TABLE proposal_kyc ADD CONSTRAINT proposal_kyc_id_proposta_fkey
            FOREIGN KEY (id_proposta) REFERENCES proposals (id) ON DELETE CASCADE;
    ELSE
        CREATE TABLE kyc_cpf_status (
            cpf text PRIMARY KEY CHECK (cpf ~ '^[0-9]{11}$'),
            situacao text NOT NULL CHECK (situacao IN ('REGULAR', 'SUSPENSA', 'CANCELADA', 'NULA',
                'TITULAR FALECIDO', 'PENDENTE DE REGULARIZAÇÃO', 'INEXISTENTE')),
            consultado_em timestamptz NOT NULL
        );
        CREATE TABLE kyc_sandbox_cpf_status (
            cpf text PRIMARY KEY CHECK (cpf ~ '^[0-9]{11}$'),
            -- A status, or INDISPONIVEL: the sandbox does not answer for this CPF.
            resposta text NOT NULL CHECK (resposta IN ('REGULAR', 'SUSPENSA', 'CANCELADA', 'NULA',
                'TITULAR FALECIDO', 'PENDENTE DE REGULARIZAÇÃO', 'INEXISTENTE', 'INDISPONIVEL')),
            definida_em timestamptz NOT NULL DEFAULT now()
        );
        -- One row per proposal whose screening called for diligence: route 5 writes it with the
        -- proposal and its document, in its one statement.
        CREATE TABLE proposal_kyc (
            id_proposta bigint PRIMARY KEY REFERENCES proposals (id) ON DELETE CASCADE,
            pep boolean NOT NULL,
            situacao text NOT NULL CHECK (situacao IN ('pendente', 'aprovada', 'recusada')),
            -- [{"codigo": "pep_lista" | "pep_declarado" | "cpf_nao_verificado", "detalhe": "..."}]
            motivos jsonb NOT NULL CHECK (jsonb_typeof(motivos) = 'array' AND jsonb_array_length(motivos) >= 1),
            criada_em timestamptz NOT NULL,
            decidida_por text,
            decidida_em timestamptz,
            nota text,
            CHECK ((situacao = 'pendente') = (decidida_em IS NULL)),
            CHECK ((decidida_em IS NULL) = (decidida_por IS NULL))
        );
        -- The compliance queue: the pending ones, oldest first.
        CREATE INDEX proposal_kyc_pendentes ON proposal_kyc (criada_em) WHERE situacao = 'pendente';
    END IF;
END $$;
