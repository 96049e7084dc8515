#!/usr/bin/env lua5.4
-- The Lua side of bench/fields.c: the same reads and pairs through require "dlhal".
--   meson devenv -C build lua5.4 bench/fields.lua [SOCKET]
local dlhal = require "dlhal"
local sock = arg[1]
local ctx <close> = assert(dlhal.open(sock and { socket = sock } or { sim = "sn2700" }))
for lp = 1, 63, 2 do
  local p = ctx:port("pci/0000:03:00.0/" .. lp)
  if p and not p.split_group then p:split(2) end
end
local list = {}
for p in ctx:ports() do list[#list + 1] = p end
local rounds, pairs_ = 3200, sock and 200 or 2000
-- wall-clock nanoseconds from luv when it is there (as C's CLOCK_MONOTONIC), else CPU time
local ok, uv = pcall(require, "luv")
local clock = ok and function() return uv.hrtime() / 1e9 end or os.clock
local kind = ok and "wall time" or "CPU time, no luv"
local sum = 0
local t0 = clock()
for _ = 1, rounds do
  for i = 1, #list do
    local p = list[i]
    sum = sum + #p.type + #p.netdev + p.lanes + p.split_group + (p.speed or 0) -- no speed through dlhald
  end
end
local t1 = clock()
local where = sock and "dlhald" or "embedded"
print(("Lua %s: %d ports, %d field reads: %.1f ns per field read (checksum %d)"):format(
  where, #list, rounds * #list * 5, (t1 - t0) * 1e9 / (rounds * #list * 5), sum))
t0 = clock()
for _ = 1, pairs_ do
  assert(ctx:port("pci/0000:03:00.0/1"):unsplit())
  assert(ctx:port("pci/0000:03:00.0/1"):split(2))
end
t1 = clock()
print(("Lua %s: %.1f us per unsplit+split pair (%d pairs, %s)"):format(where, (t1 - t0) * 1e6 / pairs_, pairs_, kind))
print("reproduce: meson devenv -C build lua5.4 bench/fields.lua" .. (sock and " " .. sock or ""))
