-- wrk script of bench/replicas: bench/query.lua's queries and RESULT line, and one more line
-- counting the answers that left shards out (a "missing_shards" key):
--   PARTIAL answers=N
dofile("bench/query.lua")

local threads = {}
local query_setup = setup
function setup(thread)
    query_setup(thread)
    threads[#threads + 1] = thread
end

missing = 0
function response(status, headers, body)
    if body and body:find('"missing_shards"', 1, true) then
        missing = missing + 1
    end
end

local query_done = done
function done(summary, latency, requests)
    query_done(summary, latency, requests)
    local n = 0
    for _, thread in ipairs(threads) do
        n = n + (thread:get("missing") or 0)
    end
    io.write(string.format("PARTIAL answers=%d\n", n))
end
