-- Back to every contract ending 30 days after its suspension: the policyholders' notices and the
-- products' collective declaration are forgotten (the older code ends collective contracts as
-- any other, which art. 21 §2 forbids: run it down only with no collective product declared).
ALTER TABLE billing_notices
    DROP CONSTRAINT billing_notices_estipulante,
    DROP COLUMN estipulante_destino,
    DROP COLUMN estipulante_em;
ALTER TABLE contract_billings DROP COLUMN coletivo_vida;
ALTER TABLE products
    DROP CONSTRAINT products_estipulante,
    DROP COLUMN estipulante_email,
    DROP COLUMN estipulante_nome,
    DROP COLUMN seguro_coletivo_vida;
