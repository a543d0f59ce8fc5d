-- When the shop collects the premium (issue 67, decision 271; Lei 15.040/2024 art. 19 §2: no
-- premium before the contract is formed, save provisional cover). A product either collects at
-- the sale with provisional cover (every product so far did, so the default) or only at the
-- acceptance (its subscription created held at the platform, charged at APROVADO under the
-- claim `cobranca_aceite`).
ALTER TABLE products
    ADD COLUMN cobranca_premio TEXT NOT NULL DEFAULT 'cobertura_provisoria'
        CONSTRAINT products_cobranca_premio_check CHECK (cobranca_premio IN ('cobertura_provisoria', 'na_aceitacao'));

-- The provisional cover runs from the sale's payment until the insurer's decision (the clock's
-- `decidida_em`): its start is kept on the acceptance clock the payment started.
ALTER TABLE proposal_acceptances ADD COLUMN cobertura_provisoria_desde TIMESTAMPTZ;

-- Every shop sale so far was paid at route 16, which moved it into analysis: its cover began
-- then. The read model's guard marks each changed proposal's document, rebuilt by `migrate`.
UPDATE proposal_acceptances a SET cobertura_provisoria_desde = a.recebida_em
FROM proposals p
WHERE p.id = a.id_proposta AND p.fluxo = 'ECOMMERCE'
  AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.proposal_id = p.id AND s.platform_id IS NOT NULL);

ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato', 'recorrencia_pix', 'cobranca_pix',
        'devolucao_tardia', 'encerramento_inadimplencia', 'averbacao', 'cancelamento_averbacao',
        'encerramento_vigencia', 'cobranca_aceite'));
