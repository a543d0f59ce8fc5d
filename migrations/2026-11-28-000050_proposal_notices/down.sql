DROP TABLE proposal_notices;
