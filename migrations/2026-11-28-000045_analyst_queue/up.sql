-- The analyst's queue (issue 45): each clock running in analysis may be assigned to a back-office
-- user, who took it and when; the queue reads the undecided clocks overdue first, then by deadline.
ALTER TABLE proposal_acceptances
    ADD COLUMN analista TEXT,
    ADD COLUMN atribuida_por TEXT,
    ADD COLUMN atribuida_em TIMESTAMPTZ,
    ADD CONSTRAINT proposal_acceptances_assignment
        CHECK ((atribuida_em IS NULL) = (atribuida_por IS NULL));

-- The queue's order, as one range for its keyset pages: the overdue (vencida_em set) first.
CREATE INDEX proposal_acceptances_queue
    ON proposal_acceptances ((vencida_em IS NULL), prazo_em, id_proposta)
    WHERE decidida_em IS NULL;
-- "Mine": an analyst's own clocks.
CREATE INDEX proposal_acceptances_analyst
    ON proposal_acceptances (analista, (vencida_em IS NULL), prazo_em, id_proposta)
    WHERE decidida_em IS NULL AND analista IS NOT NULL;
