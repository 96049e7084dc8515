#!/usr/bin/env lua5.4
-- follow.lua: every event as a JSON line (dkjson) until interrupted, or for SECONDS.
-- Usage: lua5.4 follow.lua [socket=PATH] [SECONDS]
local dlhal = require "dlhal"
local json = require "dkjson"

local opts, seconds
for _, a in ipairs(arg) do
  local path = a:match("^socket=(.+)$")
  if path then opts = { socket = path } else seconds = tonumber(a) end
end
local ctx <close>, err = dlhal.open(opts)
if not ctx then io.stderr:write("follow.lua: " .. err .. "\n") os.exit(1) end
for _ in ctx:ports() do end -- the current ports first, so that only changes follow
ctx:subscribe(function(e)
  io.write(json.encode({ event = e.action, object = e.object, handle = e.handle, state = e.state }), "\n")
  io.flush()
end)
print(json.encode({ following = true }))
io.flush()
local ok, e = ctx:run(seconds and { timeout = math.floor(seconds * 1000) } or nil)
if not ok then io.stderr:write("follow.lua: " .. tostring(e) .. "\n") os.exit(1) end
