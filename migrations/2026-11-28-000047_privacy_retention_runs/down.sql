DROP TABLE privacy_retention_runs;
