#!/usr/bin/env lua5.4
-- inventory.lua: every port as CSV. Usage: lua5.4 inventory.lua [PROFILE,...]
local dlhal = require "dlhal"

local ctx <close>, err = dlhal.open(arg[1] and { sim = arg[1] } or nil)
if not ctx then io.stderr:write("inventory.lua: " .. err .. "\n") os.exit(1) end

local cols = { "handle", "type", "desired_type", "netdev", "ibdev", "flavour", "port", "split_group",
  "lanes", "splittable", "speed", "module", "lane" }
local function csv(v)
  v = v == nil and "" or tostring(v)
  return v:find('[,"\n]') and '"' .. v:gsub('"', '""') .. '"' or v
end
print(table.concat(cols, ","))
for port in ctx:ports() do
  local t, row = port:totable(), {}
  for i, c in ipairs(cols) do row[i] = csv(t[c]) end
  print(table.concat(row, ","))
end
