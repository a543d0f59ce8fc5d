-- The CGU's list of politically exposed persons (issue 70; Circular SUSEP 612/2020, art. 4; Lei
-- 9.613/1998, art. 10): each load of the Portal da Transparência's monthly file, and the list in
-- force (the last load's entries, replaced whole in one transaction). A person is matched by the
-- six CPF digits the portal shows and the name's key (no accents, capitals, single spaces).
DO $$
BEGIN
    IF to_regclass('__kyc_pep_imports_before_rollback') IS NOT NULL THEN
        ALTER TABLE __kyc_pep_imports_before_rollback RENAME TO kyc_pep_imports;
        ALTER TABLE __kyc_pep_entries_before_rollback RENAME TO kyc_pep_entries;
    ELSE
        CREATE TABLE kyc_pep_imports (
            id bigserial PRIMARY KEY,
            arquivo text NOT NULL,
            sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
            linhas_lidas integer NOT NULL CHECK (linhas_lidas >= 0),
            pessoas integer NOT NULL CHECK (pessoas >= 0),
            recusadas integer NOT NULL CHECK (recusadas >= 0),
            importada_em timestamptz NOT NULL DEFAULT now(),
            importada_por text NOT NULL
        );
        CREATE TABLE kyc_pep_entries (
            id bigserial PRIMARY KEY,
            id_importacao bigint NOT NULL REFERENCES kyc_pep_imports (id),
            cpf_meio text NOT NULL CHECK (cpf_meio ~ '^[0-9]{6}$'),
            nome text NOT NULL,
            nome_chave text NOT NULL CHECK (nome_chave <> ''),
            sigla_funcao text NOT NULL,
            descricao_funcao text NOT NULL,
            nivel_funcao text NOT NULL,
            orgao text NOT NULL,
            inicio_exercicio date NOT NULL,
            fim_exercicio date,
            fim_carencia date
        );
        -- The sale's lookup: the CPF's six digits and the name's key.
        CREATE INDEX kyc_pep_entries_match ON kyc_pep_entries (cpf_meio, nome_chave);
    END IF;
END $$;
