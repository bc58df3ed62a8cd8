-- The bench's wrk script (test/bench/wrkLoad.ts runs it): the request of one operation of
-- test/bench/workloads.ts, read from the environment when the script loads, so wrk sees
-- which requests are fixed and builds those once per thread; and one JSON line at the end
-- with the exact figures. Headers come as wrk's -H arguments.
--
--   BENCH_METHOD=POST BENCH_PATH=/v1/pets BENCH_BODY='{"name":"Rex","categoryId":7}' \
--     wrk -s load.lua -H 'Authorization: Bearer KEY' -H 'Content-Type: application/json' URL
--   BENCH_PATH=/v1/pets/ BENCH_RANDOM_ID_UP_TO=10000 wrk -s load.lua -H '…' URL
--   BENCH_METHOD=POST BENCH_PATH=/v1/pets BENCH_BODY='{…}' BENCH_KEYED=1 wrk -s load.lua -H '…' URL
--   BENCH_PATHS_FILE=walk.txt [BENCH_CREATE_EVERY=10 BENCH_CREATE_PATH=/v1/pets BENCH_CREATE_BODY='{…}'] \
--     wrk -s load.lua -H '…' URL

wrk.method = os.getenv("BENCH_METHOD") or "GET"
wrk.path = os.getenv("BENCH_PATH") or "/"
wrk.body = os.getenv("BENCH_BODY")

local idsUpTo = tonumber(os.getenv("BENCH_RANDOM_ID_UP_TO") or "")
local pathsFile = os.getenv("BENCH_PATHS_FILE")
local createEvery = tonumber(os.getenv("BENCH_CREATE_EVERY") or "")
if pathsFile then
  -- A walk: the pages' paths, one a line, found by following their Link before the load,
  -- asked for in turn, round and round; with BENCH_CREATE_EVERY, every so many requests is
  -- a create (BENCH_CREATE_PATH, BENCH_CREATE_BODY) with the -H headers and a JSON type.
  local paths = {}
  for line in io.lines(pathsFile) do
    if line ~= "" then paths[#paths + 1] = line end
  end
  local createPath = os.getenv("BENCH_CREATE_PATH")
  local createBody = os.getenv("BENCH_CREATE_BODY")
  local createHeaders = {}
  for name, value in pairs(wrk.headers) do createHeaders[name] = value end
  createHeaders["Content-Type"] = "application/json"
  local sent = 0
  local page = 0
  function request()
    sent = sent + 1
    if createEvery and sent % createEvery == 0 then
      return wrk.format("POST", createPath, createHeaders, createBody)
    end
    page = page % #paths + 1
    return wrk.format(nil, paths[page])
  end
elseif idsUpTo then
  -- A random existing id per request (getPet). Only then, in a walk and in a keyed create is
  -- request() defined: the other operations stay static.
  math.randomseed(os.time())
  local path = wrk.path
  function request()
    return wrk.format(nil, path .. math.random(1, idsUpTo))
  end
elseif os.getenv("BENCH_KEYED") == "1" then
  -- A keyed create: a new Idempotency-Key with each request, "k-<time>-<random>-<count>", so
  -- no two runs or requests share one and every create stores its key.
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
  local prefix = "k-" .. os.time() .. "-" .. math.random(1, 1000000000)
  local headers = {}
  for name, value in pairs(wrk.headers) do headers[name] = value end
  local sent = 0
  function request()
    sent = sent + 1
    headers["Idempotency-Key"] = '"' .. prefix .. "-" .. sent .. '"'
    return wrk.format(nil, nil, headers)
  end
end

-- Latencies in microseconds. wrk counts a response with a status of 400 or more as a status
-- error, and a request unanswered within --timeout as a timeout.
function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"bytes":%d,"connectErrors":%d,"readErrors":%d,' ..
      '"writeErrors":%d,"statusErrors":%d,"timeouts":%d,"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, summary.bytes, errors.connect, errors.read, errors.write,
    errors.status, errors.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean))
end
