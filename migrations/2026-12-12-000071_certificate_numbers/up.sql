-- The certificate's registrable number (issue 68, decision 281): each product numbers its
-- certificates in its own gapless sequence, given in the acceptance's transaction and stored with
-- the certificate; a renewal's certificate is its first's number and its term. The certificates
-- of contracts accepted before keep the number decision 267 derived from the product's code, the
-- acceptance's Brasília year and the proposal, now stored (a different form: no collision).

CREATE TABLE product_certificate_sequences (
    id_produto BIGINT PRIMARY KEY REFERENCES products (id) ON DELETE CASCADE,
    ultimo     BIGINT NOT NULL CONSTRAINT product_certificate_sequences_ultimo CHECK (ultimo >= 1)
);

ALTER TABLE proposal_certificates ADD COLUMN numero TEXT;

-- A renewal's number is its first term's (whose acceptance it keeps).
UPDATE proposal_certificates c
   SET numero = pr.codigo_produto || '-'
       || to_char(coalesce(
              (SELECT f.aceita_em FROM proposal_certificates f
                WHERE f.id_proposta = c.id_proposta AND f.tipo = 'certificado' AND f.vigencia = 1),
              c.aceita_em) AT TIME ZONE 'America/Sao_Paulo', 'YYYY') || '-'
       || CASE WHEN length(c.id_proposta::text) >= 8 THEN c.id_proposta::text
               ELSE lpad(c.id_proposta::text, 8, '0') END
       || CASE WHEN c.vigencia > 1 THEN '-' || c.vigencia ELSE '' END
  FROM proposals p
  JOIN products pr ON pr.id = p.id_produto
 WHERE p.id = c.id_proposta AND c.tipo = 'certificado';

ALTER TABLE proposal_certificates
    ADD CONSTRAINT proposal_certificates_numero CHECK ((tipo = 'certificado') = (numero IS NOT NULL));
CREATE UNIQUE INDEX proposal_certificates_numero_unique ON proposal_certificates (numero) WHERE numero IS NOT NULL;

-- Route 7 shows the certificate and the premium split by the product's line: every document is
-- written again from the next `migrate` (which builds the marked ones).
INSERT INTO proposal_read_model_stale (id_proposta)
SELECT id FROM proposals
ON CONFLICT DO NOTHING;
