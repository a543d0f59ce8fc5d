-- Collective life insurance (Lei 15.040/2024 art. 21 §2; issue 67, decision 272): "Nos seguros
-- coletivos sobre a vida e a integridade física, a resolução somente ocorrerá 90 (noventa) dias
-- após a última notificação feita ao estipulante." A product declares itself collective life with
-- its policyholder (the estipulante) and the address its notices go to; each contract keeps what
-- its product declared at its acceptance; each arrears notice records when its policyholder's
-- copy was taken by the mail server (the end counts from the last one).
ALTER TABLE products
    ADD COLUMN seguro_coletivo_vida BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN estipulante_nome TEXT,
    ADD COLUMN estipulante_email TEXT,
    ADD CONSTRAINT products_estipulante CHECK (
        NOT seguro_coletivo_vida OR (estipulante_nome IS NOT NULL AND estipulante_email IS NOT NULL));

ALTER TABLE contract_billings ADD COLUMN coletivo_vida BOOLEAN NOT NULL DEFAULT false;

ALTER TABLE billing_notices
    ADD COLUMN estipulante_em TIMESTAMPTZ,
    ADD COLUMN estipulante_destino TEXT,
    ADD CONSTRAINT billing_notices_estipulante CHECK ((estipulante_em IS NULL) = (estipulante_destino IS NULL));
