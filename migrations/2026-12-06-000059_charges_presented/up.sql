-- Issue 67: a charge counts toward its contract's lateness only once the insurer presented it
-- (decision 265; Código Civil art. 396): the debit in a remessa, the Pix charge sent to the PSP,
-- the payroll discount. `apresentada_em`: the first presentation; NULL while never presented.
-- (The ALTER before the UPDATEs: the charges' triggers leave work pending in this transaction.)
ALTER TABLE charges ADD COLUMN apresentada_em timestamptz;

-- What happened, for the charges made before: a debit at its first remessa's time; a Pix charge
-- sent (its txid) at its creation, the sending's own time not kept before; a payroll discount at
-- its creation (the discount is asked of the employer with the charge until the averbação).
UPDATE charges c SET apresentada_em = sent.first
FROM (SELECT i.id_cobranca, min(f.em) AS first
      FROM debit_file_items i JOIN debit_files f ON f.id = i.id_remessa
      GROUP BY i.id_cobranca) AS sent
WHERE sent.id_cobranca = c.id;
UPDATE charges SET apresentada_em = criada_em
WHERE apresentada_em IS NULL
  AND ((metodo = 'PIX AUTOMÁTICO' AND id_externo IS NOT NULL) OR metodo = 'DESCONTO EM FOLHA');
