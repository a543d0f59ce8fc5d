DROP TABLE privacy_requests;
