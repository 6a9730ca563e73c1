-- Shared prelude of every script that records an event.
-- emit(meta, events, channel, payload): number the event, append it to the
-- race's stream as id 0-N, and announce "N|payload" on the race's channel.
local function emit(meta, events, channel, payload)
  local n = redis.call('HINCRBY', meta, 'events', 1)
  redis.call('XADD', events, '0-' .. n, 'd', payload)
  redis.call('PUBLISH', channel, n .. '|' .. payload)
  return n
end
