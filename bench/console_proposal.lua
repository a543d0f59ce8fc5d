-- GET /console/proposals/:id (the console's proposal page, as the back office opens it) with
-- identifiers drawn at random from a file, one per line.
local ids = {}
local token = os.getenv("BENCH_READ_TOKEN")
for line in io.lines(os.getenv("BENCH_IDS")) do ids[#ids + 1] = line end
request = function()
  local id = ids[math.random(#ids)]
  return wrk.format("GET", "/console/proposals/" .. id, { ["Authorization"] = "Bearer " .. token })
end
