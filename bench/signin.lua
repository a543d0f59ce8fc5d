-- POST /signin as one of the 256 shop users the seed made, each from an address of its own (the
-- service believes X-Forwarded-For from loopback: TRUSTED_PROXIES), as real traffic is: many
-- people, many places. One account from one address is refused once SIGNIN_MAX_FAILURES
-- attempts are in flight, which is bench/signin_hammer.lua's row.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

request = function()
  local i = math.random(1, 256)
  wrk.headers["X-Forwarded-For"] = string.format("203.0.%d.%d", math.floor(i / 200), i % 200 + 1)
  local body = string.format('{"email":"cliente%d@bench.local","password":"Ecommerce#2026","aplicacao":"ECOMMERCE"}', i)
  return wrk.format(nil, nil, nil, body)
end
