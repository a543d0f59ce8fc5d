-- The live definition of `refuse_blocked_person` and its triggers, applied by `migrate` after the
-- versioned migrations (decision 169); migration 000046 added the table it reads.
-- Nothing new is made of a blocked person's data (LGPD art. 18, IV; decision 193), whichever path
-- writes it (routes 3, 5 and 6): a registration or a proposal of the CPF is refused as a check
-- violation the service names (`titular_bloqueado`). One index probe of a table that is nearly
-- always empty.
CREATE OR REPLACE FUNCTION refuse_blocked_person()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    subject TEXT;
BEGIN
    IF TG_TABLE_NAME = 'customers' THEN subject := NEW.cpf; ELSE subject := NEW.cpf_cliente; END IF;
    IF EXISTS (SELECT 1 FROM personal_data_blocks b WHERE b.cpf = subject) THEN
        RAISE EXCEPTION 'dados do titular bloqueados por retenção legal'
            USING ERRCODE = 'check_violation', CONSTRAINT = 'personal_data_blocked', TABLE = TG_TABLE_NAME;
    END IF;
    RETURN NEW;
END $function$;

CREATE OR REPLACE TRIGGER customers_refuse_blocked BEFORE INSERT ON customers
    FOR EACH ROW EXECUTE FUNCTION refuse_blocked_person();
CREATE OR REPLACE TRIGGER proposals_refuse_blocked BEFORE INSERT ON proposals
    FOR EACH ROW EXECUTE FUNCTION refuse_blocked_person();
