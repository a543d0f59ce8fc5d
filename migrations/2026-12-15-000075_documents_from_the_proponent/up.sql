-- Documents straight from the proponent (issue 69, decision 289; LGPD art. 6, III and art. 11):
-- a request for documents carries a reason category and goes to whoever the product lets answer
-- it. The seller answers only the documentation the product marks as the seller's to collect;
-- every other request reaches the proponent by a one-time link mailed to them, kept only as its
-- SHA-256 and spent by the upload.
ALTER TABLE products
    ADD COLUMN aceite_documentos_vendedor boolean NOT NULL DEFAULT true;

ALTER TABLE proposal_pending_requests
    ADD COLUMN categoria_motivo text NOT NULL DEFAULT 'documentacao'
        CONSTRAINT proposal_pending_requests_categoria CHECK (categoria_motivo IN
            ('saude', 'documentacao', 'risco_financeiro', 'declaracao_inexata', 'a_pedido', 'outros')),
    ADD COLUMN destinatario text NOT NULL DEFAULT 'vendedor'
        CONSTRAINT proposal_pending_requests_destinatario CHECK (destinatario IN ('vendedor', 'proponente')),
    ADD COLUMN link_sha256 text UNIQUE,
    -- The address the link went to, masked: which of the person's addresses answered.
    ADD COLUMN link_enviado_para text,
    ADD CONSTRAINT proposal_pending_requests_link CHECK (
        (destinatario = 'proponente') = (link_sha256 IS NOT NULL));

-- What a rollback kept aside comes back.
DO $$
BEGIN
    IF to_regclass('__pending_recipients_before_rollback') IS NOT NULL THEN
        UPDATE proposal_pending_requests r
           SET categoria_motivo = k.categoria_motivo, destinatario = k.destinatario,
               link_sha256 = k.link_sha256, link_enviado_para = k.link_enviado_para
          FROM __pending_recipients_before_rollback k WHERE k.id = r.id;
        DROP TABLE __pending_recipients_before_rollback;
    END IF;
    IF to_regclass('__seller_documents_before_rollback') IS NOT NULL THEN
        UPDATE products p SET aceite_documentos_vendedor = false
          FROM __seller_documents_before_rollback k WHERE k.codigo_produto = p.codigo_produto;
        DROP TABLE __seller_documents_before_rollback;
    END IF;
END $$;
