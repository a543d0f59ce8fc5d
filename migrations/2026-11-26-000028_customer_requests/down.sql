-- The requests go with their table; the proposals' cancellations, events and history stay.
DROP TRIGGER customer_requests_history ON customer_requests;
DROP FUNCTION proposal_history_on_request();
DROP TABLE customer_requests;
DROP SEQUENCE customer_request_numbers;
