-- SPDX-License-Identifier: MIT
-- The Lua module against emulated devices in the process and a real dlhald in another one.
local dlhal = require "dlhal"

local SW, HCA = "pci/0000:03:00.0", "pci/0000:01:00.0"

-- Starts a real dlhald serving @profiles on a new socket; returns the socket, its pid file, and a
-- context connected to it once it listens.
local function start_daemon(profiles, more)
  local sock, pidfile = os.tmpname() .. ".sock", os.tmpname()
  assert(os.execute(("%s -f -s %s --sim %s %s 2>/dev/null & echo $! > %s")
    :format(os.getenv("DLHALD"), sock, profiles, more or "", pidfile)))
  for _ = 1, 500 do
    local c = dlhal.open { socket = sock }
    if c then return sock, pidfile, c end
    os.execute("sleep 0.01")
  end
  error("dlhald did not start on " .. sock)
end

local function stop_daemon(pidfile, signal)
  local f = io.open(pidfile)
  os.execute(("kill %s %s"):format(signal or "", f:read("l")))
  f:close()
  os.remove(pidfile)
end

local function lines(ctx, dev)
  local out = {}
  for p in (dev and ctx:dev(dev):ports() or ctx:ports()) do out[#out + 1] = tostring(p) end
  return out
end

describe("dlhal", function()
  it("has its word lists from the enum tables", function()
    assert.same({ "notset", "auto", "eth", "ib" }, dlhal.port_types)
    assert.equal("physical", dlhal.flavours[1])
    assert.same({ object = "port", action = "del" }, dlhal.events[4])
    assert.is_string(dlhal.version)
  end)

  describe("on emulated devices", function()
    local ctx
    before_each(function() ctx = assert(dlhal.open { sim = { "cx3-vpi", "sn2700" } }) end)
    after_each(function() ctx:close() end)

    it("walks seed 001's port type example", function()
      assert.same({ HCA .. "/1: type ib ibdev mlx4_0", HCA .. "/2: type ib ibdev mlx4_0" }, lines(ctx, HCA))
      assert.is_true(ctx:port(HCA .. "/1"):set_type("eth"))
      assert.equal(HCA .. "/1: type eth netdev ens4", tostring(ctx:port(HCA .. "/1")))
      assert.is_true(ctx:port("ens4"):set_type("auto"))
      assert.same({ HCA .. "/1: type eth(auto) netdev ens4", HCA .. "/2: type ib ibdev mlx4_0" }, lines(ctx, HCA))
    end)

    it("sets a type on a ConnectX-3 at once and on a ConnectX-6 at its reset, from one list", function()
      local both <close> = assert(dlhal.open { sim = "cx3-vpi,cx6-vpi" })
      local CX6 = "pci/0000:03:00.0"
      local want = { { device = HCA, number = 1, type = "eth" }, { device = CX6, number = 0, type = "ib" } }
      assert.equal(2, #assert(both:apply(want)))
      assert.equal(HCA .. "/1: type eth netdev ens4", tostring(both:port(HCA .. "/1")))
      local p = both:port(CX6 .. "/65535")
      assert.equal("eth", p.type)
      assert.same({ type = "ib", message = "Please reboot machine to load new configurations" }, p.pending)
      assert.same({}, assert(both:apply(want)), "stored: nothing left to do")
      local ok, msg = p:set_type("eth")
      assert.is_true(ok)
      assert.equal(CX6 .. "/65535: Pending type change cancelled: the port runs eth", msg)
      ok, msg = p:set_type("ib")
      assert.equal(CX6 .. "/65535: Please reboot machine to load new configurations", msg)
      assert(both:dev(CX6):reload("fw_activate"))
      assert.equal(CX6 .. "/65535: type ib ibdev mlx5_0", tostring(both:port(CX6 .. "/65535")))
      assert.is_nil(both:port(CX6 .. "/65535").pending)
    end)

    it("walks seed 001's split example, returning the new ports in order", function()
      local new = assert(ctx:port("eth0"):split(2))
      assert.equal(2, #new)
      assert.equal(SW .. "/1: type eth netdev eth0 split_group 16", tostring(new[1]))
      assert.equal(SW .. "/2: type eth netdev eth32 split_group 16", tostring(new[2]))
      local l = lines(ctx, SW)
      assert.equal(SW .. "/2: type eth netdev eth32 split_group 16", l[#l])
      local back = assert(ctx:port(SW .. "/1"):unsplit())
      assert.equal(SW .. "/1: type eth netdev eth0", tostring(back[1]))
    end)

    it("plans a split and an unsplit exactly as they then happen, touching nothing", function()
      local p = ctx:port("eth0")
      local before = p:sim("accesses")
      local plan = assert(p:plan_split(2))
      assert.equal(before, p:sim("accesses"))
      assert.is_false(plan.partial)
      assert.same({ SW .. "/1" }, plan.del)
      assert.equal(2, #plan.new)
      assert.same({ port = SW .. "/2", type = "eth", netdev = "eth32", lanes = 2, split = true, split_group = 16,
        subport = 1 }, plan.new[2])
      assert.equal(SW .. "/1: type eth netdev eth0", tostring(ctx:port(SW .. "/1")))
      local new = assert(p:split(2))
      assert.equal(plan.new[2].netdev, new[2].netdev)
      assert.same({ nil, SW .. "/1: Port cannot be split further", "EINVAL" }, { new[1]:plan_split(2) })
      local back = assert(new[2]:plan_unsplit())
      assert.same({ SW .. "/1", SW .. "/2" }, back.del)
      assert.equal("eth0", back.new[1].netdev)
      assert(new[1]:unsplit())
      assert.same({ nil, SW .. "/1: Port wasn't split", "EINVAL" }, { ctx:port("eth0"):plan_unsplit() })
    end)

    it("splits an 8-lane cage by 8 as planned, and refuses by 16 in the kernel's words", function()
      local sw <close> = assert(dlhal.open { sim = "sn4700" })
      local D = "pci/0000:0b:00.0"
      local p = sw:port("eth0")
      assert.equal(8, p.lanes)
      assert.same({ nil, D .. "/1: Invalid split count", "EINVAL" }, { p:plan_split(16) })
      local plan = assert(p:plan_split(8))
      assert.equal(8, #plan.new)
      assert.same({ port = D .. "/8", type = "eth", netdev = "eth38", lanes = 1, split = true, split_group = 0,
        subport = 7 }, plan.new[8])
      local new = assert(p:split(8))
      assert.equal(8, #new)
      for i = 1, 8 do assert.equal(plan.new[i].netdev, new[i].netdev) end
      assert.equal(1, new[8].lanes)
      assert(new[8]:unsplit())
      assert.equal(8, sw:port(D .. "/1").lanes)
    end)

    it("applies a desired state from a table: in order, once, and stops at a refusal", function()
      local want = {
        { device = SW, number = 17, split = 2 },
        { device = "pci/0000:01:00.0", number = 2, type = "auto" },
      }
      local both <close> = assert(dlhal.open { sim = "sn2700,cx3-vpi" })
      assert.same({ "split " .. SW .. " port 17 into 2 (entry:1)", "type auto on pci/0000:01:00.0 port 2 (entry:2)" },
        assert(both:apply(want, { dry_run = true })))
      assert.equal(SW .. "/1: type eth netdev eth0", tostring(both:port(SW .. "/1")))
      assert.equal(2, #assert(both:apply(want)))
      assert.same({}, assert(both:apply(want)), "a second run does nothing")
      assert.equal("eth32", both:port(SW .. "/2").netdev)
      assert.same({ nil, "split " .. SW .. " port 18 into 3 (entry:1): " .. SW ..
        "/5: Port can only be split into 2 or 4 ports", "EINVAL" },
        { both:apply { { device = SW, number = 18, split = 3 } } })
      assert.error_matches(function() both:apply { { device = SW, number = 18, spilt = 3 } } end,
        "entry:1: unknown key spilt")
      assert.error_matches(function() both:apply { { netdev = "eth0", device = SW, number = 1, split = 2 } } end,
        "give device and number, or netdev")
      assert.error_matches(function() both:apply { { netdev = "eth0" } } end, "says nothing")
      -- the library's checks, in its words, naming the entry and the field
      assert.error_matches(function() both:apply { { device = SW, number = 17, split = 65 } } end,
        "apply: entry:1.split: 65: expected 1 (whole) to 64", nil, true)
      assert.error_matches(function() both:apply { { device = "pci", number = 17, split = 2 } } end,
        'apply: entry:1.device: "pci": expected BUS/DEV, as pci/0000:03:00.0', nil, true)
      assert.error_matches(function() both:apply { { netdev = "a/b", split = 2 } } end,
        'apply: entry:1.netdev: "a/b" is not a netdev name', nil, true)
      assert.error_matches(function() both:apply { { device = SW, number = 65536, split = 2 } } end,
        "apply: entry:1.number: 65536 is not a front-panel port number, 0 to 65535", nil, true)
      assert.error_matches(function() both:apply { { device = SW, number = -1, split = 2 } } end,
        "apply: entry:1.number: -1 is out of range", nil, true)
      -- an entry without its list, a list with a hole: raised, not taken as nothing to do (issue 42)
      assert.error_matches(function() both:apply { device = SW, number = 17, split = 2 } end,
        "apply: expected a list of entries, { {device = ..., number = ..., split = ...}, ... }: got key ", nil, true)
      assert.error_matches(function() both:apply { [5] = { device = SW, number = 17, split = 2 } } end,
        "apply: expected a list of entries 1 to N: key 5 leaves a hole before it", nil, true)
      assert.error_matches(function() both:apply { { device = SW, number = 1, split = 2 }, nil, { device = SW, number = 3, split = 2 } } end,
        "apply: expected a list of entries 1 to N", nil, true)
      -- a bad value names the entry and the field, as the JSON reader does
      assert.error_matches(function() both:apply { { device = SW, number = 17, split = true } } end,
        "apply: entry:1.split: expected a whole number, got boolean", nil, true)
      assert.error_matches(function() both:apply { { device = SW, number = 17, split = 2.5 } } end,
        "apply: entry:1.split: expected a whole number, got 2.5", nil, true)
      assert.error_matches(function() both:apply { { device = 7, number = 17, split = 2 } } end,
        "apply: entry:1.device: expected a string, got 7", nil, true)
      assert.error_matches(function() both:apply { { device = SW, number = 17, type = 2 } } end,
        "apply: entry:1.type: expected eth, ib or auto, got 2", nil, true)
      assert.error_matches(function() both:apply { "eth0" } end,
        "apply: entry:1: expected a table {device = ..., number = ...}, got string", nil, true)
      -- a float that is a whole number is one
      assert.is_true(#assert(both:apply({ { device = SW, number = 17, split = 4.0 } }, { dry_run = true })) >= 1)
    end)

    it("plans the entries whole: conflicts refused with nothing changed, unmet entries named, atomic undo", function()
      local sw <close> = assert(dlhal.open { sim = "sn2700" })
      local both = { { device = SW, number = 17, split = 4 }, { device = SW, number = 1, split = 2 } }
      assert.same({ nil, "entry:2 conflicts with entry:1: split " .. SW .. " port 17 into 4 (entry:1) would remove "
        .. SW .. "/3, port 1", "EINVAL" }, { sw:apply(both) })
      assert.equal(SW .. "/1: type eth netdev eth0", tostring(sw:port(SW .. "/1")), "nothing was split")
      -- an unsplit frees the lanes a split by 4 needs: each step is planned on what the ones before leave
      assert(sw:port("eth0"):split(2))
      assert.same({ "unsplit " .. SW .. "/1 (entry:1)", "split " .. SW .. " port 17 into 4 (entry:1)" },
        assert(sw:apply({ both[1] }, { dry_run = true })))
      assert.equal(2, #assert(sw:apply { both[1] }))
      -- port 1 went with that split: an entry naming it is unmet, never "nothing to do"
      assert.same({ nil, "entry:1: matches no port", "ENODEV" }, { sw:apply { both[2] } })
      -- a step the hardware fails half way: with atomic, the one done before it is undone
      local two = { { device = SW, number = 18, split = 2 }, { device = SW, number = 2, split = 2 } }
      sw:dev(SW):sim("fail_nth", "10")
      local ok, msg = sw:apply(two, { atomic = true })
      assert.is_nil(ok)
      assert.matches("port 2 into 2 %(entry:2%).*%(the steps done were undone%)", msg)
      assert.equal(1, #(function() local n = {} for p in sw:dev(SW):ports() do
        if p.port == 18 then n[#n + 1] = p end end return n end)(), "port 18 is whole again")
      assert.error_matches(function() sw:apply(two, { atomic = "yes" }) end, "atomic: expected a boolean, got string")
      -- a key it does not know is misuse, never ignored: {dryrun = true} would split for real
      assert.error_matches(function() sw:apply(two, { dryrun = true }) end,
        "bad argument #2 to 'apply' %(unknown option dryrun %(expected dry_run, atomic%)%)")
      assert.error_matches(function() sw:apply(two, { dry_run = true, atomc = true }) end, "unknown option atomc")
      assert.equal(1, #(function() local n = {} for p in sw:dev(SW):ports() do
        if p.port == 18 then n[#n + 1] = p end end return n end)(), "nothing was split by the refused calls")
    end)

    it("reads every field, named as dl -j -d names them", function()
      local p = ctx:port("eth0")
      assert.equal(SW .. "/1", p.handle)
      assert.equal(1, p.index)
      assert.equal("eth", p.type)
      assert.is_nil(p.desired_type)
      assert.equal("eth0", p.netdev)
      assert.is_nil(p.ibdev)
      assert.equal("physical", p.flavour)
      assert.equal(17, p.port)
      assert.is_nil(p.split_group)
      assert.equal(4, p.lanes)
      assert.is_true(p.splittable)
      assert.equal(100000, p.speed)
      assert.equal(16, p.module)
      assert.equal(0, p.lane)
      assert.equal(SW, p.dev.handle)
      assert.equal("mlxsw", p.dev.driver)
      local t = p:totable()
      assert.equal("eth0", t.netdev)
      assert.equal(SW, t.dev)
      assert.error_matches(function() return p.nosuch end, 'no field "nosuch"')
      assert.error_matches(function() p.netdev = "x" end, "read%-only")
      assert.equal("dlhal.port", getmetatable(p)) -- protected: no __index to call with something else
      assert.error_matches(function() setmetatable(p, {}) end, "table expected")
    end)

    it("looks up and iterates", function()
      local n = 0
      for _ in ctx:ports() do n = n + 1 end
      assert.equal(34, n)
      local devs = {}
      for d in ctx:devices() do devs[#devs + 1] = d.handle .. " " .. d.driver end
      assert.same({ HCA .. " mlx4", SW .. " mlxsw" }, devs)
      assert.equal(ctx:port("eth0"), ctx:dev(SW):port(1))
      assert.same({ nil, "nosuch: No port has this netdev", "ENODEV" }, { ctx:port("nosuch") })
    end)

    it("says what a Spectrum reports of itself, as Linux's mlxsw", function()
      assert.same({ driver = "mlxsw_spectrum",
                    versions = { fixed = { ["hw.revision"] = "A1", ["fw.psid"] = "MT_2860111033" },
                                 running = { ["fw.version"] = "13.2010.1006", fw = "13.2010.1006" } } },
                  assert(ctx:dev(SW):info()))
      assert.same({ driver = "mlx4_core" }, assert(ctx:dev(HCA):info()))
    end)

    it("says what a device's plans rest on", function()
      assert.same({ "mlxsw rules", true }, { ctx:dev(SW):rules() })
      assert.same({ "mlx4 rules", true }, { ctx:dev(HCA):rules() })
    end)

    it("returns nil, message, errname for a refusal and raises for misuse", function()
      local p = ctx:port("eth0")
      assert.same({ nil, SW .. "/1: Port can only be split into 2 or 4 ports", "EINVAL" }, { p:split(3) })
      assert.error_matches(function() p:split(2.5) end, "integer")
      assert.error_matches(function() p:split("two") end, "number expected")
      assert.error_matches(function() p:split(0) end, "split count out of range")
      assert.error_matches(function() p:set_type("fc") end, 'unknown port type "fc"')
      assert.error_matches(function() p:set_type() end, "string expected")
      assert.error_matches(function() dlhal.open { sim = 42 } end, "sim:")
      assert.error_matches(function() dlhal.open { sime = "sn2700" } end,
        "unknown option sime %(expected sim, socket, kernel%)")
      assert.error_matches(function() dlhal.open { [1] = "sn2700" } end, "unknown option 1")
      assert.error_matches(function() ctx:run { timeot = 5 } end, "unknown option timeot %(expected timeout%)")
      assert.same({ nil, "Unknown profile \"nosuch\"", "ENOENT" },
        { (function(...) return ... end)(dlhal.open { sim = "nosuch" }) })
    end)

    it("never dangles: old ports across splits, after collectgarbage()", function()
      local keep = {}
      for p in ctx:dev(SW):ports() do keep[#keep + 1] = p end
      assert(ctx:port("eth0"):split(4))
      collectgarbage()
      local gone = ctx:dev(SW):port(4)
      assert(ctx:port(SW .. "/1"):unsplit())
      collectgarbage()
      assert.is_nil(gone.netdev)
      assert.same({ nil, SW .. "/4: Port was removed", "ENODEV" }, { gone:split(2) })
      assert.same({ nil, SW .. "/4: Port was removed", "ENODEV" }, { gone:totable() })
      assert.equal(SW .. "/4: removed", tostring(gone))
      for _, p in ipairs(keep) do assert.is_string(p.netdev) end
      ctx:close()
      assert.is_nil(keep[1].netdev)
      assert.equal(SW .. "/1", keep[1].handle)
    end)

    it("delivers events, survives a raising callback, and cancels", function()
      local seen = {}
      local sub = ctx:subscribe(function(e) seen[#seen + 1] = e.object .. "," .. e.action .. " " .. e.handle end)
      local bad = ctx:subscribe(function() error("callback failed") end)
      assert(ctx:port("eth0"):split(2))
      assert.equal("port,del " .. SW .. "/1", seen[1])
      assert.equal(5, #seen)
      local ok, err = ctx:step(0)
      assert.is_nil(ok)
      assert.matches("callback failed", err)
      bad:cancel()
      assert.is_true(ctx:step(0))
      sub:cancel()
      assert(ctx:port(SW .. "/1"):unsplit())
      assert.equal(5, #seen)
      local inside = ctx:subscribe(function(e) e.port:split(2) end)
      assert(ctx:port("eth2"):split(2))
      local _, msg = ctx:step(0)
      assert.matches("cannot change ports inside an event callback", msg)
      inside:cancel()
      -- what the callback tried is what it is told (issue 42: run{} was "cannot change ports")
      inside = ctx:subscribe(function() ctx:run { timeout = 0 } end)
      assert(ctx:port("eth2"):unsplit())
      _, msg = ctx:step(0)
      assert.matches("cannot run the loop inside an event callback", msg)
      inside:cancel()
    end)

    it("runs driver timers: an auto port follows its cable", function()
      local hca = ctx:port(HCA .. "/2")
      assert.is_true(hca:set_type("auto"))
      assert.is_true(hca:sim("cable", "eth"))
      local typed
      local sub = ctx:subscribe(function(e)
        if e.handle == HCA .. "/2" and e.state.type == "eth" then typed = e.state.netdev; ctx:stop() end
      end)
      assert.is_true(ctx:run { timeout = 8000 })
      assert.equal("ens4d1", typed)
      assert.equal("eth", hca.type)
      sub:cancel()
      assert.is_nil(ctx:timeout() and nil)
      assert.error_matches(function() ctx:run { timeout = -1 } end, "timeout")
    end)

    it("survives whatever a script passes to every method", function()
      local port, dev = ctx:port("eth0"), ctx:dev(SW)
      local pool = { nil, true, 0, -1, 2 ^ 53, 1.5, math.mininteger, math.maxinteger, "", "eth", "auto",
        ("x"):rep(5000), "a\0b", {}, { 1, 2 }, print, port, dev, ctx, coroutine.create(print) }
      local methods = {
        -- (step and run wait, by design: their arguments are checked below)
        [ctx] = { "devices", "ports", "port", "dev", "subscribe", "fds", "dispatch", "timeout", "stop", "apply" },
        [port] = { "set_type", "split", "unsplit", "totable", "sim", "plan_split", "plan_unsplit" },
        [dev] = { "ports", "port", "totable", "sim" },
      }
      local calls = 0
      for obj, names in pairs(methods) do
        for _, name in ipairs(names) do
          local fn = obj[name]
          for i = 1, #pool + 1 do
            for j = 1, #pool + 1, 3 do
              -- every method with each argument, and with another object in its place
              pcall(fn, obj, pool[i], pool[j])
              pcall(fn, pool[i], pool[j])
              calls = calls + 2
            end
          end
        end
      end
      for i = 1, #pool + 1 do
        pcall(function() return port[pool[i]] end)
        pcall(function() return dev[pool[i]] end)
        pcall(function() return ctx[pool[i]] end)
        pcall(tostring, port)
      end
      assert.is_true(calls > 1000)
      -- the protection of the metatables can be bypassed with debug: still no crash
      local index = debug.getmetatable(port).__index
      for i = 1, #pool + 1 do
        assert.is_false(pcall(index, pool[i], "netdev") and pool[i] ~= port)
      end
      assert.error_matches(function() index(io.stdout, "netdev") end, "dlhal.port expected")
      assert.error_matches(function() ctx:step("soon") end, "number expected")
      assert.error_matches(function() ctx:step(1.5) end, "integer")
      assert.error_matches(function() ctx:run(5) end, "table expected")
      assert.error_matches(function() ctx:run { timeout = "1" } end, "timeout")
      -- and the context still works
      local again = assert(dlhal.open { sim = "sn2700" })
      assert.equal("eth0", again:port("eth0").netdev)
      again:close()
    end)

    it("closes once, by close(), <close> or the collector", function()
      ctx:close()
      ctx:close()
      assert.error_matches(function() ctx:ports() end, "closed")
      do
        local c <close> = assert(dlhal.open { sim = "sn2700" })
        assert.is_string(c:port("eth0").netdev)
      end
      for _ = 1, 20 do dlhal.open { sim = "sn2700" } end
      collectgarbage()
      collectgarbage()
    end)
  end)

  describe("on a staged driver (ice, e810-cqda2)", function()
    local ICE = "pci/0000:16:00.0"
    local ctx
    before_each(function() ctx = assert(dlhal.open { sim = "e810-cqda2" }) end)
    after_each(function() ctx:close() end)

    it("returns the driver's word with a split that waits for a reset, and shows it pending", function()
      local seen = {}
      ctx:subscribe(function(e) seen[#seen + 1] = e.object .. "," .. e.action .. " " .. e.handle end)
      -- ice's rules plan from the option table the driver last read from its firmware
      assert.same({ "ice rules", true }, { ctx:dev(ICE):rules() })
      local made, warning = ctx:port(ICE .. "/0"):split(4)
      assert.same({}, made)
      assert.equal("Reboot required to finish port split", warning)
      assert.same({ split = 4, message = warning }, ctx:dev(ICE).pending)
      assert.is_nil(ctx:dev("pci/0000:16:00.1").pending)
      assert.is_nil(ctx:port(ICE .. "/0").pending)
      assert.same({ "dev,new " .. ICE }, seen)
      local plan = assert(ctx:port(ICE .. "/0"):plan_split(8))
      assert.is_true(plan.staged)
      assert.same({}, plan.new)
      assert.equal(8, #plan.after)
      assert.same({ port = "pci/0000:16:00.7/0", type = "eth", netdev = "ens16f7", lanes = 0, split = false }, plan.after[8])
      local opts = assert(ctx:dev(ICE):options())
      assert.equal(6, #opts)
      assert.is_true(opts[1].active)
      assert.is_true(opts[3].pending)
      assert.same({ 25000, 25000, 25000, 25000, 0, 0, 0, 0 }, opts[3].lanes)
    end)

    it("says what a device reports of itself, as devlink's JSON shapes it", function()
      local info = assert(ctx:dev(ICE):info())
      assert.equal("ice", info.driver)
      assert.equal("6c-b3-11-ff-ff-4d-9a-10", info.serial_number)
      assert.same({ ["board.id"] = "K65390-000" }, info.versions.fixed)
      assert.equal("2.1.7", info.versions.running["fw.mgmt"])
      assert.equal("0x80002ec0", info.versions.stored["fw.bundle_id"])
    end)

    it("reloads: devices go and come, nothing stays pending", function()
      assert(ctx:port(ICE .. "/0"):split(8))
      local dev = ctx:dev("pci/0000:16:00.1")
      local ok, msg, errname = dev:reload()
      assert.is_nil(ok)
      assert.equal("pci/0000:16:00.1: Requested reload action is not supported by the driver", msg)
      assert.equal("EOPNOTSUPP", errname)
      assert.same({ "fw_activate" }, assert(dev:reload("fw_activate")))
      local n = 0
      for _ in ctx:devices() do n = n + 1 end
      assert.equal(8, n)
      assert.is_nil(ctx:dev(ICE).pending)
      assert.equal("pci/0000:16:00.7/0: type eth netdev ens16f7", tostring(ctx:port("ens16f7")))
      ok, msg = ctx:dev(ICE):reload("fw_activate")
      assert.is_nil(ok)
      assert.equal(ICE .. ": No pending firmware update", msg)
      assert.error_matches(function() ctx:dev(ICE):reload("reboot") end, "invalid option 'reboot'")
    end)
  end)

  describe("through a dlhald in another process", function()
    local sock, pidfile

    setup(function()
      local c
      sock, pidfile, c = start_daemon("cx3-vpi,sn2700")
      c:close()
    end)
    teardown(function() stop_daemon(pidfile) end)

    it("walks the seeds and sees another client's changes as events", function()
      local a <close> = assert(dlhal.open { socket = sock })
      local b <close> = assert(dlhal.open { socket = sock })
      local seen = {}
      a:ports() -- the model is filled (its devices and ports arrive as "new" events) before subscribing
      a:subscribe(function(e) seen[#seen + 1] = e.action .. " " .. e.handle end)
      local new = assert(b:port("eth0"):split(2))
      assert.equal(SW .. "/2: type eth netdev eth32 split_group 16", tostring(new[2]))
      for _ = 1, 50 do
        a:step(20)
        if #seen >= 5 then break end
      end
      assert.equal("del " .. SW .. "/1", seen[1])
      assert.equal(SW .. "/2: type eth netdev eth32 split_group 16", tostring(a:port("eth32")))
      assert.same({ nil, SW .. "/1: Port cannot be split further", "EINVAL" }, { a:port("eth0"):split(2) })
      assert(a:port("eth32"):unsplit())
      assert.is_true(b:port(HCA .. "/1"):set_type("eth"))
      b:step(0)
      assert.equal(HCA .. "/1: type eth netdev ens4", tostring(b:port(HCA .. "/1")))
      assert.is_true(b:port("ens4"):set_type("ib"))
    end)

    it("follows an auto port's cable through the daemon", function()
      local c <close> = assert(dlhal.open { socket = sock })
      local p = c:port(HCA .. "/2")
      assert.is_true(p:set_type("auto"))
      local to
      c:subscribe(function(e) if e.handle == HCA .. "/2" and e.state.type == "eth" then to = e.state.netdev; c:stop() end end)
      assert.is_true(p:sim("cable", "eth"))
      assert.is_true(c:run { timeout = 8000 })
      assert.equal("ens4d1", to)
    end)

    it("delivers events safely for a context opened in a coroutine that is gone", function()
      local c
      coroutine.wrap(function() c = assert(dlhal.open { socket = sock }) end)()
      collectgarbage()
      collectgarbage()
      local seen = 0
      c:subscribe(function() seen = seen + 1 end)
      -- another client's change arrives as events, on a live thread
      local other <close> = assert(dlhal.open { socket = sock })
      assert(other:port("eth4"):split(2))
      assert(other:port("eth4"):unsplit())
      for _ = 1, 50 do
        c:step(20)
        if seen >= 6 then break end
      end
      assert.is_true(seen >= 6, seen)
      c:close()
    end)

    it("tells a subscriber of changes only, not of what existed before a lookup read it", function()
      local c <close> = assert(dlhal.open { socket = sock })
      local seen = {}
      c:subscribe(function(e) seen[#seen + 1] = e.object .. " " .. e.action .. " " .. e.handle end)
      assert.is_not_nil(c:port("eth0"))
      local n = 0
      for _ in c:ports() do n = n + 1 end
      assert.is_true(n > 30)
      assert.same({}, seen, "a lookup and a listing are no news")
      local other <close> = assert(dlhal.open { socket = sock })
      assert(other:port("eth8"):split(2))
      for _ = 1, 50 do
        c:step(20)
        if #seen >= 5 then break end
      end
      assert.equal("port del " .. SW .. "/17", seen[1])
      assert(other:port("eth8"):unsplit())
    end)

    it("answers for ports of a daemon that died", function()
      local s, pidf, c = start_daemon("sn2700")
      local p = assert(c:port("eth0"))
      assert.equal("eth0", p.netdev)
      local gone = {}
      c:subscribe(function(e) if e.action == "del" then gone[#gone + 1] = e.handle end end)
      stop_daemon(pidf, "-9")
      for _ = 1, 50 do
        c:step(20)
        if #gone > 0 and not p.netdev then break end
      end
      assert.is_nil(p.netdev)
      assert.same({ nil, SW .. "/1: Port was removed", "ENODEV" }, { p:split(2) })
      assert.is_true(#gone >= 33, "its ports and device were removed, with events")
      -- nothing more will come: every loop says why, never a silent wait (nil, message, errname)
      local lost = { nil, "daemon: the connection to dlhald at " .. s .. " closed", "ECONNRESET" }
      assert.same(lost, { c:step(0) })
      assert.same(lost, { c:run { timeout = 10 } })
      c:close()
    end)

    it("refuses a device handle that the daemon and the emulator both serve", function()
      assert.same({ nil, "Device " .. SW .. " is served by two backends, mlxsw and daemon: use one of them", "EEXIST" },
        { dlhal.open { socket = sock, sim = "sn2700" } })
      local c <close> = assert(dlhal.open { socket = sock, sim = "e810-cqda2" })
      assert.is_not_nil(c:dev(SW))
      assert.is_not_nil(c:dev("pci/0000:16:00.0"))
    end)

    it("is refused what a --desired daemon would undo, plans too, naming the file", function()
      local conf = os.tmpname()
      local f = assert(io.open(conf, "w"))
      f:write("[Match]\nDevice=" .. SW .. "\nNumber=17\n[Port]\nSplit=2\n")
      f:close()
      local s, pidf, c = start_daemon("sn2700", "--desired " .. conf)
      for _ = 1, 100 do
        if c:port(SW .. "/2") then break end
        os.execute("sleep 0.05")
      end
      local why = "Would undo " .. SW .. " port 17: split into 2 (" .. conf .. ":5), which dlhald keeps (--desired "
        .. conf .. "): change the file and reload dlhald (SIGHUP)"
      local ok, msg, errname = c:port("eth0"):unsplit()
      assert.is_nil(ok)
      assert.equal("EBUSY", errname)
      assert.truthy(msg:find(why, 1, true), msg)
      ok, msg = c:port("eth0"):plan_unsplit()
      assert.is_nil(ok)
      assert.truthy(msg:find(why, 1, true), msg)
      ok, msg = c:apply { { device = SW, number = 17, split = 1 } }
      assert.is_nil(ok)
      assert.truthy(msg:find("which dlhald keeps", 1, true), msg)
      assert.is_true(#assert(c:port("eth4"):split(2)) == 2, "another port is anyone's")
      assert(c:port("eth4"):unsplit())
      c:close()
      stop_daemon(pidf)
      os.remove(conf)
      os.remove(s)
    end)

    it("answers for ports once the daemon is gone", function()
      local c = assert(dlhal.open { socket = sock })
      local p = c:port("eth0")
      c:close()
      assert.same({ nil, SW .. "/1: Port was removed", "ENODEV" }, { p:split(2) })
      assert.same({ nil, "daemon: Cannot connect to dlhald at /nonexistent.sock: No such file or directory", "ENOENT" },
        { dlhal.open { socket = "/nonexistent.sock" } })
    end)
  end)

  describe("examples", function()
    local dir = "examples/"
    local function run(cmd)
      local f = assert(io.popen("lua5.4 " .. cmd .. " 2>&1"))
      local out = f:read("a")
      local _, _, code = f:close()
      return out, code
    end

    it("breakout.lua plans the whole breakout first and refuses it, changing nothing", function()
      local out, code = run(dir .. "breakout.lua sim=sn2700 eth0=4 eth2=2 eth4=1")
      assert.equal(0, code)
      assert.equal("eth0: split into 4: eth0 eth1 eth32 eth33\neth2: split into 2: eth2 eth34\neth4: already 1\n", out)
      -- a refusal of the third argument's driver: the first is not split either
      out, code = run(dir .. "breakout.lua sim=sn2700 eth0=2 eth2=3 eth4=2")
      assert.equal(1, code)
      assert.equal("refused, nothing changed: split pci/0000:03:00.0 port 18 into 3 (eth2=3): "
        .. "pci/0000:03:00.0/5: Port can only be split into 2 or 4 ports\n", out)
      -- eth0 by 4 takes the lanes of eth1's cage (port 1): before, eth1 was a new port of eth0's split
      -- by then, and splitting it undid the first split; now the conflict is named, with both arguments
      out, code = run(dir .. "breakout.lua sim=sn2700 eth0=4 eth1=2")
      assert.equal(1, code)
      assert.equal("refused, nothing changed: eth1=2 conflicts with eth0=4: split pci/0000:03:00.0 port 17 into 4 "
        .. "(eth0=4) would remove pci/0000:03:00.0/3, port 1\n", out)
      out, code = run(dir .. "breakout.lua sim=sn2700 eth0=two")
      assert.equal(2, code)
    end)

    it("inventory.lua prints every port as CSV", function()
      local out, code = run(dir .. "inventory.lua cx3-vpi")
      assert.equal(0, code)
      assert.equal("handle,type,desired_type,netdev,ibdev,flavour,port,split_group,lanes,splittable,speed,module,lane\n"
        .. "pci/0000:01:00.0/1,ib,,,mlx4_0,physical,1,,,false,,,\n"
        .. "pci/0000:01:00.0/2,ib,,,mlx4_0,physical,2,,,false,,,\n", out)
    end)

    it("luv_loop.lua reacts to a cable change on luv's loop", function()
      local out, code = run(dir .. "luv_loop.lua")
      assert.equal(0, code)
      assert.matches("pci/0000:01:00.0/2: cable is eth, port is now eth with netdev ens4d1", out)
    end)

    it("follow.lua prints a dlhald's events as JSON lines", function()
      local json = require "dkjson"
      local log = os.tmpname()
      local sock, pidfile, ctx = start_daemon("sn2700")
      finally(function()
        stop_daemon(pidfile)
        os.remove(log)
      end)
      assert(os.execute(("lua5.4 %sfollow.lua socket=%s 2 > %s 2>&1 < /dev/null &"):format(dir, sock, log)))
      for _ = 1, 300 do
        local f = io.open(log)
        local first = f and f:read("l")
        if f then f:close() end
        if first == '{"following":true}' then break end
        os.execute("sleep 0.01")
      end
      assert(ctx:port("eth0"):split(2))
      ctx:close()
      os.execute("sleep 2.5")
      local f = io.open(log)
      local events = {}
      for line in f:lines() do events[#events + 1] = json.decode(line) end
      f:close()
      assert.same({ following = true }, events[1])
      assert.equal("del", events[2].event)
      assert.equal("pci/0000:03:00.0/1", events[2].handle)
      assert.equal("eth0", events[2].state.netdev)
      assert.is_true(#events >= 6, #events .. " lines")
      for i = 2, #events do
        assert.truthy(events[i].handle == "pci/0000:03:00.0/1" or events[i].handle == "pci/0000:03:00.0/2",
          "only the split's events, none of the teardown: " .. events[i].handle)
      end
      assert.equal("eth32", events[#events].state.netdev or events[#events - 1].state.netdev)
    end)
  end)
end)
