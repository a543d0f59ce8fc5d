-- POST /signin with a wrong password, for one account from one address, as fast as it goes: after
-- SIGNIN_MAX_FAILURES every attempt is refused (429) before any hash, by one lock-free read.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"email":"ecommerce@demo.com.br","password":"Errada#2026","aplicacao":"ECOMMERCE"}'
