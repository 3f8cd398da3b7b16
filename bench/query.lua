-- wrk script of the query section: replays the fixed mix of bench/queries.txt against
-- searchd's JSON API, each connection-thread starting at its own place in the list, and ends
-- with one line the section parses:
--   RESULT requests=N seconds=S qps=Q p50_ms=A p90_ms=B p99_ms=C max_ms=D errors=E
-- wrk -t T -c C -d 30s -s bench/query.lua http://127.0.0.1:PORT  (QUERIES=path, default
-- bench/queries.txt; THINK_MS=N: each connection waits N ms after an answer before its next
-- query, a crowd of C users at a bounded rate instead of C clients asking flat out;
-- QUERY_SUFFIX=S: S appended to every URL, e.g. "&ranking=bm25"; PATHS=file: ask that file's
-- paths instead, one a line, as they are)

local queries = {}
local next_index = 1

local function encode(text)
    return (text:gsub("[^%w%-%._~]", function(c)
        return string.format("%%%02X", string.byte(c))
    end))
end

local function load(path, suffix)
    local list = {}
    for line in io.lines(path) do
        if line ~= "" and line:sub(1, 1) ~= "#" then
            list[#list + 1] = "/api/search?q=" .. encode(line) .. suffix
        end
    end
    return list
end

local thread_count = 0
function setup(thread)
    thread:set("thread_number", thread_count)
    thread_count = thread_count + 1
end

-- Paths asked as they are, one a line (already encoded): bench/suggest's prefixes.
local function load_paths(path)
    local list = {}
    for line in io.lines(path) do
        if line ~= "" then
            list[#list + 1] = line
        end
    end
    return list
end

function init(args)
    if os.getenv("PATHS") then
        queries = load_paths(os.getenv("PATHS"))
    else
        queries = load(os.getenv("QUERIES") or "bench/queries.txt", os.getenv("QUERY_SUFFIX") or "")
    end
    -- Threads start spread over the list so they do not ask the same query at once.
    next_index = ((thread_number or 0) * 97) % #queries + 1
end

local think_ms = tonumber(os.getenv("THINK_MS") or "0")

function delay()
    return think_ms
end

function request()
    local path = queries[next_index]
    next_index = next_index % #queries + 1
    return wrk.format("GET", path)
end

function done(summary, latency, requests)
    local e = summary.errors
    local errors = e.connect + e.read + e.write + e.status + e.timeout
    local seconds = summary.duration / 1e6
    io.write(string.format(
        "RESULT requests=%d seconds=%.1f qps=%.0f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f errors=%d\n",
        summary.requests, seconds, summary.requests / seconds,
        latency:percentile(50) / 1000, latency:percentile(90) / 1000,
        latency:percentile(99) / 1000, latency.max / 1000, errors))
end
