-- KEYS: meta, events, archive
-- ARGV: document, channel, payload, events kept, the save's token, then pairs of a
-- stage's number and its map
-- Stores a tournament's document and announces it as the tournament's next event (the
-- stream keeps the newest few: each is a whole document); the stages the document no
-- longer holds (an arena's older scored races) go to the archive in the same step, so
-- the record never misses one.
for i = 6, #ARGV, 2 do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
end
redis.call('HSET', KEYS[1], 'doc', ARGV[1], 'saved', ARGV[5])
return emit_kept(KEYS[2], ARGV[2], ARGV[3], ARGV[4])
