-- Every instance keeps the catalog in memory and drops it when this channel speaks: any change to
-- the four catalog tables, by the API, a seed or an operator's SQL, notifies on commit (one
-- notification per transaction: PostgreSQL folds repeats).
CREATE FUNCTION notify_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('catalog_changed', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER products_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON products
    FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();
CREATE TRIGGER banks_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON banks
    FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();
CREATE TRIGGER product_banks_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON product_banks
    FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();
CREATE TRIGGER billing_groups_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON billing_groups
    FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed();
