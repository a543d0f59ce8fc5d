-- GET /privacy/customers/:cpf (the LGPD export, the back office's) with CPFs drawn at random from
-- a file, one per line. Each export also records an `exportacao` entry in the history of each of
-- the person's proposals, as it does in use.
local cpfs = {}
local token = os.getenv("BENCH_READ_TOKEN")
for line in io.lines(os.getenv("BENCH_CPFS")) do cpfs[#cpfs + 1] = line end
request = function()
  local cpf = cpfs[math.random(#cpfs)]
  return wrk.format("GET", "/privacy/customers/" .. cpf, { ["Authorization"] = "Bearer " .. token })
end
