DROP TABLE privacy_consents;
