DROP TABLE signin_throttle;
DROP TABLE refresh_tokens;
DROP TABLE user_applications;
DROP TABLE users;
