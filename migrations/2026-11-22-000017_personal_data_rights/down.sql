ALTER TABLE customers DROP CONSTRAINT customers_sexo_check,
    ADD CONSTRAINT customers_sexo_check CHECK (sexo IN ('Masculino', 'Feminino')) NOT VALID;
-- The history functions keep reading the setting; without the function they fall back below.
CREATE OR REPLACE FUNCTION proposal_history_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed JSONB := history_changes(to_jsonb(OLD), to_jsonb(NEW),
        ARRAY['status', 'alterado_em', 'alterado_por', 'criado_em'], ARRAY['cpf_cliente']);
BEGIN
    IF changed <> '{}'::jsonb THEN
        INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
        VALUES (NEW.id, NEW.alterado_por, CASE
            WHEN (OLD.key_documento IS NULL AND NEW.key_documento IS NOT NULL)
              OR (OLD.key_assinatura_requisicao IS NULL AND NEW.key_assinatura_requisicao IS NOT NULL) THEN 'envio'
            WHEN NEW.reenvios <> OLD.reenvios THEN 'reenvio'
            ELSE 'alteracao'
        END, changed);
    END IF;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION proposal_history_on_customer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed JSONB := history_changes(to_jsonb(OLD), to_jsonb(NEW),
        ARRAY['id_proposta', 'id_cliente', 'alterado_em', 'alterado_por', 'criado_em'], NULL);
BEGIN
    IF changed <> '{}'::jsonb THEN
        INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.alterado_por, 'correcao', changed);
    END IF;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION proposal_history_on_payment() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed JSONB := history_changes(to_jsonb(OLD), to_jsonb(NEW),
        ARRAY['id', 'id_proposta', 'alterado_em', 'alterado_por', 'criado_em'],
        ARRAY['nome_cartao', 'numero_cartao', 'validade', 'dia_cobranca', 'banco', 'agencia', 'conta', 'operacao',
              'numero_folha', 'tipo_folha', 'especie', 'orgao_emissor']);
BEGIN
    IF changed <> '{}'::jsonb THEN
        INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.alterado_por, 'pagamento', changed);
    END IF;
    RETURN NULL;
END $$;
DROP FUNCTION history_action(TEXT);
