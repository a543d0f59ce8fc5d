-- Going down forgets where refunds are paid and when they are due; it stops while a destination
-- is recorded for a refund still to pay (the finance team would lose where to pay it) or a late
-- payment's correction is recorded (its link to the refund it corrects would be lost).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM refund_destinations d JOIN refunds r ON r.proposal_id = d.id_proposta
               WHERE r.meio = 'a_pagar' AND r.status = 'a_pagar') THEN
        RAISE EXCEPTION 'refund_destinations holds where refunds still to pay go: pay them before going down';
    END IF;
    IF EXISTS (SELECT 1 FROM refunds WHERE atraso_de IS NOT NULL) THEN
        RAISE EXCEPTION 'refunds holds corrections of late payments: going down would lose what they correct';
    END IF;
END $$;
INSERT INTO proposal_read_model_stale (id_proposta)
SELECT DISTINCT proposal_id FROM refunds WHERE meio = 'a_pagar'
ON CONFLICT DO NOTHING;
DROP TABLE refund_destinations;
DROP INDEX refunds_to_pay_due;
ALTER TABLE refunds DROP COLUMN atraso_de;
ALTER TABLE refunds DROP COLUMN vence_em;
