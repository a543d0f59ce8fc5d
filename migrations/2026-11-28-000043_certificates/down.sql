-- The certificates go (a delivered one's record with them: the customer keeps the PDF mailed), and
-- the products' cover with them.
DROP TABLE proposal_certificates;
ALTER TABLE products
    DROP COLUMN seguradora,
    DROP COLUMN seguradora_cnpj,
    DROP COLUMN processo_susep,
    DROP COLUMN cobertura,
    DROP COLUMN capital_segurado,
    DROP COLUMN sac,
    DROP COLUMN ouvidoria;
