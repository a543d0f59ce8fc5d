-- The live definition of `notify_catalog_changed` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000008 last wrote it there.
-- Every instance keeps the catalog in memory and drops it when this channel speaks: any change to
-- the four catalog tables, by the API, a seed or an operator's SQL, notifies on commit (one
-- notification per transaction: PostgreSQL folds repeats).
CREATE OR REPLACE FUNCTION notify_catalog_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    PERFORM pg_notify('catalog_changed', '');
    RETURN NULL;
END
$function$;

CREATE OR REPLACE TRIGGER banks_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON banks FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();

CREATE OR REPLACE TRIGGER billing_groups_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON billing_groups FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();

CREATE OR REPLACE TRIGGER product_banks_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON product_banks FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();

CREATE OR REPLACE TRIGGER products_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON products FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();
