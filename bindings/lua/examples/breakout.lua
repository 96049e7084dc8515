#!/usr/bin/env lua5.4
-- breakout.lua: apply a breakout plan {netdev = count} idempotently; say what was done; stop at the
-- first refusal, naming it. Usage: lua5.4 breakout.lua [sim=sn2700] eth0=4 eth2=2 ...
-- (without sim=..., dlhal.open() picks dlhald's socket or the kernel, as dl does)
local dlhal = require "dlhal"

local plan, order, opts = {}, {}, nil
for _, a in ipairs(arg) do
  local k, v = a:match("^([^=]+)=(.+)$")
  if not k then io.stderr:write("usage: breakout.lua [sim=PROFILE] NETDEV=COUNT...\n") os.exit(2) end
  if k == "sim" then opts = { sim = v }
  else
    plan[k] = math.tointeger(tonumber(v))
    if not plan[k] then io.stderr:write("breakout.lua: " .. a .. ": count must be an integer\n") os.exit(2) end
    order[#order + 1] = k
  end
end

local ctx <close>, err = dlhal.open(opts)
if not ctx then io.stderr:write("breakout.lua: " .. err .. "\n") os.exit(1) end

for _, netdev in ipairs(order) do
  local want = plan[netdev]
  local port, msg = ctx:port(netdev)
  if not port then io.stderr:write(("%s: %s\n"):format(netdev, msg)) os.exit(1) end
  -- the split ports of the group this port leads, as the kernel counts them
  local now = 1
  if port.split_group then
    now = 0
    for p in port.dev:ports() do if p.split_group == port.split_group then now = now + 1 end end
  end
  if now == want then
    print(("%s: already %d"):format(netdev, want))
  else
    if now > 1 then
      local ok, e = port:unsplit()
      if not ok then io.stderr:write(("%s: unsplit refused: %s\n"):format(netdev, e)) os.exit(1) end
      port = ctx:port(netdev)
    end
    if want > 1 then
      local new, e = port:split(want)
      if not new then io.stderr:write(("%s: split %d refused: %s\n"):format(netdev, want, e)) os.exit(1) end
      local names = {}
      for _, p in ipairs(new) do names[#names + 1] = p.netdev end
      print(("%s: split into %d: %s"):format(netdev, want, table.concat(names, " ")))
    else
      print(("%s: unsplit"):format(netdev))
    end
  end
end
