-- The retention schedule (issue 47; LGPD art. 15 and 16): each pass that changed something, with
-- what it changed, for the metrics (`privacy_retention_applied_total`) and the auditor. What each
-- pass changed in a proposal is in the proposal's history, by `sistema:retencao`.
CREATE TABLE privacy_retention_runs (
    id                   BIGSERIAL   PRIMARY KEY,
    executado_em         TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- The rules clock's time the pass judged by (the development clock's, in development).
    referencia           TIMESTAMPTZ NOT NULL,
    titulares            INTEGER     NOT NULL CHECK (titulares >= 0),
    propostas            INTEGER     NOT NULL CHECK (propostas >= 0),
    respostas_saude      INTEGER     NOT NULL CHECK (respostas_saude >= 0)
);
COMMENT ON TABLE privacy_retention_runs IS
    'Passes of the retention schedule that changed something: persons anonymised whole, unconcluded proposals anonymised, health answers dropped.';
