-- A forged provider callback, as an unauthenticated attacker would send it (refused every time):
-- BENCH_CALLBACK=payment: a Stripe-Signature of 12,000 v1 entries (60 KB); signature: a wrong Content-Hmac
-- over a 60 KiB body.
local kind = os.getenv("BENCH_CALLBACK") or "payment"
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
if kind == "payment" then
  local entries = {}
  for i = 1, 12000 do entries[i] = "v1=0" end
  wrk.headers["Stripe-Signature"] = "t=" .. os.time() .. "," .. table.concat(entries, ",")
  wrk.body = '{"id":"evt_forjado","type":"setup_intent.succeeded","data":{"object":{}}}'
else
  wrk.headers["Content-Hmac"] = "sha256=" .. string.rep("0", 64)
  wrk.body = '{"event":{"name":"sign","data":{"signer":{"key":"x"}}},"padding":"' .. string.rep("a", 60 * 1024) .. '"}'
end
