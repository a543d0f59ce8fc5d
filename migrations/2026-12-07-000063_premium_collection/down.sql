-- Back to collecting every shop sale at route 16 with no provisional cover recorded. The
-- collections at acceptance are kept in the operations' record as the subscription's operation
-- (the older code knows no other word for a platform call on the subscription); subscriptions
-- still held at the platform stay `trialing` there and here, and are listed by
-- `reconcile payments` as they are.
UPDATE proposal_operations SET kind = 'assinatura_recorrente' WHERE kind = 'cobranca_aceite';
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato', 'recorrencia_pix', 'cobranca_pix',
        'devolucao_tardia', 'encerramento_inadimplencia', 'averbacao', 'cancelamento_averbacao',
        'encerramento_vigencia'));

INSERT INTO proposal_read_model_stale (id_proposta)
SELECT id_proposta FROM proposal_acceptances WHERE cobertura_provisoria_desde IS NOT NULL ON CONFLICT DO NOTHING;
ALTER TABLE proposal_acceptances DROP COLUMN cobertura_provisoria_desde;
ALTER TABLE products DROP COLUMN cobranca_premio;
