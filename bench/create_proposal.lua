-- POST /proposal/create, each with a new valid CPF (check digits computed here), so that no two
-- requests collide on the one-open-proposal rule.
local token = os.getenv("BENCH_TOKEN")
local counter = 0
local threads = 0

-- Each wrk thread gets its own number, so that threads never generate the same CPF.
function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

local function check_digit(digits, first_weight)
  local sum = 0
  for i = 1, #digits do sum = sum + digits[i] * (first_weight - i + 1) end
  local r = sum % 11
  if r < 2 then return 0 end
  return 11 - r
end

local function cpf(n)
  local base = string.format("%09d", n % 1000000000)
  local digits = {}
  for c in base:gmatch("%d") do digits[#digits + 1] = tonumber(c) end
  digits[10] = check_digit(digits, 10)
  digits[11] = check_digit(digits, 11)
  return table.concat(digits)
end

-- BENCH_BENEFICIARIES=1: each body names two beneficiaries (decision 279), from another range of
-- CPFs than the plain run's.
local beneficiaries = os.getenv("BENCH_BENEFICIARIES") == "1"
local named = [[,"beneficiaries":[{"name":"Filho De Carga","cpf":"12345678909","birthDate":"2015-03-20","kinship":"Filho","share":60},
{"name":"Conjuge De Carga","kinship":"Cônjuge","share":40}]
]]
local first = beneficiaries and 800000000 or 700000000

request = function()
  counter = counter + 1
  local body = string.format([[{"billingCode":5002,"productCode":101,"typeOfPayments":"DESCONTO EM FOLHA","shippingType":"sms",
"customer":{"fullName":"Cliente De Carga","cpf":"%s","birthDate":"1985-03-10","gender":"Feminino","maritalStatus":"Casado",
"nationality":"Brasileira","cellPhone":"(11) 91234-5678","email":"carga@exemplo.com.br","profession":"Analista","salary":300000},
"address":{"zipCode":"01310100","address":"Avenida Paulista","number":"1","neighborhood":"Bela Vista","city":"São Paulo","state":"SP"},
"discountOnSheet":{"number":"123","specie":41,"type":"BENEFÍCIO"}%s}]], cpf(first + (thread_id or 0) * 10000000 + counter),
    beneficiaries and named or "")
  return wrk.format("POST", "/proposal/create", { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }, body)
end
