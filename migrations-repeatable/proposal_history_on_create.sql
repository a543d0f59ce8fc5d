-- The live definition of `proposal_history_on_create` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000016 last wrote it there.
-- Creation: what the proposal was made with.
CREATE OR REPLACE FUNCTION proposal_history_on_create()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
    VALUES (NEW.id, NEW.criado_em, NEW.alterado_por, 'criacao', jsonb_build_object(
        'status', jsonb_build_object('from', NULL, 'to', NEW.status),
        'valor', jsonb_build_object('from', NULL, 'to', NEW.valor),
        'id_produto', jsonb_build_object('from', NULL, 'to', NEW.id_produto),
        'codigo_faturamento', jsonb_build_object('from', NULL, 'to', NEW.codigo_faturamento),
        'tipo_envio', jsonb_build_object('from', NULL, 'to', NEW.tipo_envio),
        'fluxo', jsonb_build_object('from', NULL, 'to', NEW.fluxo),
        'cpf_cnpj_parceiro', jsonb_build_object('from', NULL, 'to', NEW.cpf_cnpj_parceiro),
        'cpf_cliente', jsonb_build_object('from', NULL, 'to', history_masked('cpf_cliente', NEW.cpf_cliente))));
    RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER proposals_history_create AFTER INSERT ON proposals FOR EACH ROW EXECUTE FUNCTION proposal_history_on_create();
