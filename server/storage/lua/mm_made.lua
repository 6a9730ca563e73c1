-- The race of a group was made. KEYS: groups. ARGV: race. Returns 1, or 0
-- if the group is gone (undone meanwhile: the maker closes the race).
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local group = cjson.decode(raw)
group.made = 1
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(group))
return 1
