-- The live definition of `proposal_history_on_payment` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000017 last wrote it there.
CREATE OR REPLACE FUNCTION proposal_history_on_payment()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    changed JSONB := history_changes(to_jsonb(OLD), to_jsonb(NEW),
        ARRAY['id', 'id_proposta', 'alterado_em', 'alterado_por', 'criado_em'],
        ARRAY['nome_cartao', 'numero_cartao', 'validade', 'dia_cobranca', 'banco', 'agencia', 'conta', 'operacao',
              'numero_folha', 'tipo_folha', 'especie', 'orgao_emissor']);
BEGIN
    IF changed <> '{}'::jsonb THEN
        INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.alterado_por, history_action('pagamento'), changed);
    END IF;
    RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER proposal_payments_history AFTER UPDATE ON proposal_payments FOR EACH ROW WHEN (old.* IS DISTINCT FROM new.*) EXECUTE FUNCTION proposal_history_on_payment();
