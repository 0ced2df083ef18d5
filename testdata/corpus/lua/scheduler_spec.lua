-- busted specs for scheduler.lua: run with `busted scheduler_spec.lua`.
local scheduler = require("scheduler")

local function fake_clock()
  local clock = { now = 0 }
  setmetatable(clock, { __call = function(self) return self.now end })
  return clock
end

describe("scheduler", function()
  local clock, s

  before_each(function()
    clock = fake_clock()
    s = scheduler.new(clock)
  end)

  it("runs a spawned task", function()
    local ran = false
    s:spawn(function() ran = true end)
    s:run()
    assert.is_true(ran)
  end)

  describe("events", function()
    it("wakes the tasks waiting for an event", function()
      local got
      s:spawn(function() got = scheduler.wait("ready") end)
      s:run()
      s:emit("ready", 42)
      s:run()
      assert.are.equal(42, got)
    end)
  end)
end)
