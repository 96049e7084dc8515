-- SPDX-License-Identifier: MIT
-- In the VM: require "dlhal" on the real kernel. The listing equals dl -j -d's, and the kernel's
-- refusals come back as nil, message, errname with dl's message and errno. Prints ok/not ok lines.
local dlhal = require "dlhal"
local json = require "dkjson"

local function check(name, cond, why)
  print((cond and "ok " or "not ok ") .. "lua: " .. name .. (cond and "" or (" - " .. tostring(why))))
end

local ctx, err = dlhal.open { kernel = true }
check("opens the kernel backend", ctx, err)
if not ctx then return end

local f = io.popen("dl -j -d port show")
local doc = json.decode(f:read("a"))
f:close()
local n, diffs = 0, {}
for p in ctx:ports() do
  n = n + 1
  local d = doc.port[p.handle]
  if not d then
    diffs[#diffs + 1] = p.handle .. ": not in dl's listing"
  else
    local t = p:totable()
    local mine = { type = t.type, des_type = t.desired_type ~= t.type and t.desired_type or nil, netdev = t.netdev,
      ibdev = t.ibdev, flavour = t.flavour, port = t.port, split_group = t.split_group,
      splittable = t.splittable, lanes = t.lanes }
    for k, v in pairs(d) do
      if k ~= "dlhal" and mine[k] ~= v then diffs[#diffs + 1] = ("%s: %s: dl %s, lua %s"):format(p.handle, k, tostring(v), tostring(mine[k])) end
    end
    for k, v in pairs(mine) do
      if d[k] == nil and v ~= nil then diffs[#diffs + 1] = ("%s: lua has %s, dl does not"):format(p.handle, k) end
    end
  end
end
local dln = 0
for _ in pairs(doc.port) do dln = dln + 1 end
check(("listing equals dl -j -d (%d ports)"):format(n), n == dln and #diffs == 0,
  (#diffs > 0 and diffs[1] or ("%d ports, dl %d"):format(n, dln)))

local strerror = { EOPNOTSUPP = "Operation not supported", EINVAL = "Invalid argument", ENODEV = "No such device" }
local function same_refusal(name, call, dlargs)
  local r = { call() }
  local e = io.popen("dl " .. dlargs .. " 2>&1")
  local dlout = e:read("a")
  e:close()
  local dlmsg = dlout:match("Error: ([^\n]*)%.\n")
  local errno = dlout:match("dl answers: ([^\n]*)")
  check(name .. ": " .. tostring(r[3]),
    r[1] == nil and type(r[2]) == "string" and strerror[r[3]] == errno and (not dlmsg or r[2] == dlmsg),
    ("lua %s / %s / %s; dl: %s"):format(tostring(r[1]), tostring(r[2]), tostring(r[3]), dlout))
end
local p0 = assert(ctx:port("netdevsim/netdevsim11/0"))
same_refusal("split refused as by dl", function() return p0:split(2) end, "port split netdevsim/netdevsim11/0 2")
local p1 = assert(ctx:port("netdevsim/netdevsim11/1"))
same_refusal("unsplit refused as by dl", function() return p1:unsplit() end, "port unsplit netdevsim/netdevsim11/1")
local p2 = assert(ctx:port("netdevsim/netdevsim11/2"))
same_refusal("type set refused as by dl", function() return p2:set_type("ib") end,
  "port set netdevsim/netdevsim11/2 type ib")
check("ports unchanged after refusals", p0.type == "eth" and p0.netdev ~= nil, tostring(p0))
ctx:close()
