#!/usr/bin/env lua5.4
-- breakout.lua: apply a breakout plan {netdev = count} idempotently and all or nothing. Each netdev
-- names its front-panel port once, before anything changes (a split renames netdevs, never the port
-- number); the whole plan is checked by the drivers first, so entries that conflict (a 4-way split
-- taking a neighbour another argument names) are refused before any change, and a step refused
-- while running is undone with the ones before it.
-- Usage: lua5.4 breakout.lua [sim=sn2700] eth0=4 eth2=2 ...
-- (without sim=..., dlhal.open() picks dlhald's socket or the kernel, as dl does)
local dlhal = require "dlhal"

local args, opts = {}, nil
for _, a in ipairs(arg) do
  local k, v = a:match("^([^=]+)=(.+)$")
  if not k then io.stderr:write("usage: breakout.lua [sim=PROFILE] NETDEV=COUNT...\n") os.exit(2) end
  if k == "sim" then opts = { sim = v }
  else
    local n = math.tointeger(tonumber(v))
    if not n then io.stderr:write("breakout.lua: " .. a .. ": count must be an integer\n") os.exit(2) end
    args[#args + 1] = { netdev = k, count = n, text = a }
  end
end

local ctx <close>, err = dlhal.open(opts)
if not ctx then io.stderr:write("breakout.lua: " .. err .. "\n") os.exit(1) end

-- the ports of front-panel port @number on @dev, in index order
local function group(dev, number)
  local ports = {}
  for p in dev:ports() do if p.port == number then ports[#ports + 1] = p end end
  table.sort(ports, function(a, b) return a.index < b.index end)
  return ports
end

-- each netdev's front-panel port, as it is now
local entries = {}
for i, a in ipairs(args) do
  local port, msg = ctx:port(a.netdev)
  if not port then io.stderr:write(("%s: %s\n"):format(a.netdev, msg)) os.exit(1) end
  if not port.port then io.stderr:write(("%s: no front-panel port number\n"):format(a.netdev)) os.exit(1) end
  a.dev, a.number, a.before = port.dev, port.port, #group(port.dev, port.port)
  entries[i] = { device = port.dev.handle, number = port.port, split = a.count }
end

-- "entry:N" in a message names the Nth argument
local function named(msg)
  return (msg:gsub("entry:(%d+)", function(n) return args[tonumber(n)].text end))
end

-- planned whole first: nothing changes when the drivers refuse it or two arguments conflict
local steps, msg = ctx:apply(entries, { dry_run = true })
if not steps then print("refused, nothing changed: " .. named(msg)) os.exit(1) end
if #steps > 0 then
  steps, msg = ctx:apply(entries, { atomic = true })
  if not steps then print("refused: " .. named(msg)) os.exit(1) end
end

for _, a in ipairs(args) do
  local ports = group(a.dev, a.number)
  if a.before == #ports then
    print(("%s: already %d"):format(a.netdev, a.count))
  elseif #ports == 1 then
    print(("%s: unsplit: %s"):format(a.netdev, ports[1].netdev))
  else
    local names = {}
    for _, p in ipairs(ports) do names[#names + 1] = p.netdev end
    print(("%s: split into %d: %s"):format(a.netdev, #ports, table.concat(names, " ")))
  end
end
