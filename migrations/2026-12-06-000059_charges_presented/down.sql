-- Back to judging every unpaid charge by its due date: the presentations are forgotten (up finds
-- them again from the remessas, the txids and the methods).
ALTER TABLE charges DROP COLUMN apresentada_em;
