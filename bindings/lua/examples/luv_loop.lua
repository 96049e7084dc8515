#!/usr/bin/env lua5.4
-- luv_loop.lua (not luv.lua: that name would shadow luv itself): the context on luv's loop (ctx:fds, ctx:dispatch, ctx:timeout) instead of ctx:run.
-- An emulated ConnectX-3 port in auto follows its cable to Ethernet; the script reports it and stops.
-- Usage: lua5.4 luv_loop.lua [socket=PATH]   (without: emulated devices in the process)
local uv = require "luv"
local dlhal = require "dlhal"

local path = (arg[1] or ""):match("^socket=(.+)$")
local ctx <close> = assert(dlhal.open(path and { socket = path } or { sim = "cx3-vpi" }))
local port = assert(ctx:port("pci/0000:01:00.0/2"))
for _ in ctx:ports() do end

local polls, timer = {}, uv.new_timer()
local function rearm()
  local ms = ctx:timeout()
  timer:stop()
  if ms then timer:start(ms, 0, function() assert(ctx:dispatch()) rearm() end) end
end
for _, fd in ipairs(ctx:fds()) do
  local p = uv.new_poll(fd)
  p:start("r", function() assert(ctx:dispatch(fd)) rearm() end)
  polls[#polls + 1] = p
end

ctx:subscribe(function(e)
  if e.handle == port.handle and e.state.type == "eth" then
    print(("%s: cable is eth, port is now %s with netdev %s"):format(e.handle, e.state.type, e.state.netdev))
    timer:stop()
    for _, p in ipairs(polls) do p:stop() end
    uv.stop()
  end
end)
assert(port:set_type("auto"))
assert(port:sim("cable", "eth"))
print(("%s: auto, cable set to eth; waiting on luv's loop"):format(port.handle))
rearm()
local guard = uv.new_timer()
guard:start(10000, 0, function() io.stderr:write("luv_loop.lua: no change within 10 s\n") os.exit(1) end)
uv.run()
-- every handle closed (and the closes run) before the script ends: luv's own teardown of open
-- handles at interpreter exit is not safe to rely on
for _, h in ipairs(polls) do h:close() end
timer:close()
guard:close()
uv.run("nowait")
