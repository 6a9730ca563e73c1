-- Renew a live session token: KEYS[1] the account's tokens hash, ARGV[1]
-- the token's digest, ARGV[2] now, ARGV[3] the new expiry. Returns 1 if the
-- token was live (and is renewed), 0 if unknown, revoked or expired.
local expires = redis.call('HGET', KEYS[1], ARGV[1])
if not expires then
  return 0
end
if tonumber(expires) <= tonumber(ARGV[2]) then
  redis.call('HDEL', KEYS[1], ARGV[1])
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
