DROP TRIGGER IF EXISTS billing_groups_changed ON billing_groups;
DROP TRIGGER IF EXISTS product_banks_changed ON product_banks;
DROP TRIGGER IF EXISTS banks_changed ON banks;
DROP TRIGGER IF EXISTS products_changed ON products;
DROP FUNCTION IF EXISTS notify_catalog_changed();
