-- GET <prefix><key> with the back office's token, keys drawn at random from a file, one per line.
-- By default route 7 (`/proposal/byIdentifier/`, the identifiers in BENCH_IDS); BENCH_PREFIX and
-- BENCH_KEYS name another path and file (the console's proposal page, the export by CPF).
local prefix = os.getenv("BENCH_PREFIX") or "/proposal/byIdentifier/"
local keys = {}
local token = os.getenv("BENCH_READ_TOKEN")
for line in io.lines(os.getenv("BENCH_KEYS") or os.getenv("BENCH_IDS")) do keys[#keys + 1] = line end
request = function()
  local key = keys[math.random(#keys)]
  return wrk.format("GET", prefix .. key, { ["Authorization"] = "Bearer " .. token })
end
