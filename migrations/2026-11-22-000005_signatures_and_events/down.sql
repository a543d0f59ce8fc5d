DROP TABLE signature_callbacks;
DROP TABLE signature_parties;
DROP TABLE signatures;
DROP TABLE proposal_events;
