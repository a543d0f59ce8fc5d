-- The requests' categories and recipients, and the products that keep documents from the seller,
-- are kept aside so that the way up again restores them; the requests themselves stay.
CREATE TABLE __pending_recipients_before_rollback (
    id bigint PRIMARY KEY,
    categoria_motivo text NOT NULL,
    destinatario text NOT NULL,
    link_sha256 text,
    link_enviado_para text
);
INSERT INTO __pending_recipients_before_rollback
SELECT id, categoria_motivo, destinatario, link_sha256, link_enviado_para
  FROM proposal_pending_requests
 WHERE categoria_motivo <> 'documentacao' OR destinatario <> 'vendedor';
ALTER TABLE proposal_pending_requests
    DROP CONSTRAINT proposal_pending_requests_link,
    DROP COLUMN link_enviado_para,
    DROP COLUMN link_sha256,
    DROP COLUMN destinatario,
    DROP COLUMN categoria_motivo;

CREATE TABLE __seller_documents_before_rollback (codigo_produto integer PRIMARY KEY);
INSERT INTO __seller_documents_before_rollback
SELECT codigo_produto FROM products WHERE NOT aceite_documentos_vendedor;
ALTER TABLE products DROP COLUMN aceite_documentos_vendedor;
