-- Add a session token to an account: KEYS[1] the account's tokens hash,
-- ARGV[1] the token's digest, ARGV[2] its expiry (unix seconds), ARGV[3]
-- now, ARGV[4] the most live tokens an account keeps. Expired tokens are
-- dropped, then the oldest while too many remain, so the hash stays small.
local fields = redis.call('HGETALL', KEYS[1])
local live = {}
for i = 1, #fields, 2 do
  local expires = tonumber(fields[i + 1])
  if expires <= tonumber(ARGV[3]) then
    redis.call('HDEL', KEYS[1], fields[i])
  else
    live[#live + 1] = {fields[i], expires}
  end
end
table.sort(live, function(a, b) return a[2] < b[2] end)
local excess = #live + 1 - tonumber(ARGV[4])
for i = 1, excess do
  redis.call('HDEL', KEYS[1], live[i][1])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
