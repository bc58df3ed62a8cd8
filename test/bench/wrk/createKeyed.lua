-- Creates for test/bench/measureWriteCost.ts: POST BENCH_BODY to wrk's URL, with a new
-- Idempotency-Key per request when BENCH_KEYED=1 (unique across threads and runs); one JSON
-- line at the end with the requests, the duration and the errors.
--
--   BENCH_KEYED=1 BENCH_BODY='{"name":"Rex","categoryId":7}' \
--     wrk -s createKeyed.lua -H 'Authorization: Bearer KEY' -H 'Content-Type: application/json' URL/v1/pets

wrk.method = "POST"
wrk.body = os.getenv("BENCH_BODY")
local keyed = os.getenv("BENCH_KEYED") == "1"
local prefix = (os.getenv("BENCH_KEY_PREFIX") or "k") .. "-" .. tostring(os.time()) .. "-" .. tostring(math.random(1, 1000000000))
local sent = 0

if keyed then
  function request()
    sent = sent + 1
    local headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    headers["Idempotency-Key"] = '"' .. prefix .. "-" .. sent .. '"'
    return wrk.format(nil, nil, headers)
  end
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"statusErrors":%d,"timeouts":%d,"otherErrors":%d}\n',
    summary.requests, summary.duration, errors.status, errors.timeout, errors.connect + errors.read + errors.write))
end
