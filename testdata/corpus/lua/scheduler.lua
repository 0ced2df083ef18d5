--- A cooperative task scheduler built on coroutines, with timers, events
-- and a priority queue of sleeping tasks.
-- @module scheduler

local M = {}

local coroutine_create, coroutine_resume, coroutine_status, coroutine_yield =
  coroutine.create, coroutine.resume, coroutine.status, coroutine.yield

-- Binary min-heap keyed by wake-up time. Ties keep insertion order thanks
-- to a sequence number, so tasks that sleep equally long run in order.
local Heap = {}
Heap.__index = Heap

function Heap.new()
  return setmetatable({ items = {}, size = 0, seq = 0 }, Heap)
end

local function less(a, b)
  if a.time ~= b.time then
    return a.time < b.time
  end
  return a.seq < b.seq
end

function Heap:push(time, value)
  self.seq = self.seq + 1
  self.size = self.size + 1
  local items, i = self.items, self.size
  items[i] = { time = time, seq = self.seq, value = value }
  -- sift up
  while i > 1 do
    local parent = i // 2
    if not less(items[i], items[parent]) then
      break
    end
    items[i], items[parent] = items[parent], items[i]
    i = parent
  end
end

function Heap:peek()
  return self.items[1]
end

function Heap:pop()
  local items, n = self.items, self.size
  if n == 0 then
    return nil
  end
  local top = items[1]
  items[1] = items[n]
  items[n] = nil
  n = n - 1
  self.size = n
  -- sift down
  local i = 1
  while true do
    local left, right, smallest = 2 * i, 2 * i + 1, i
    if left <= n and less(items[left], items[smallest]) then
      smallest = left
    end
    if right <= n and less(items[right], items[smallest]) then
      smallest = right
    end
    if smallest == i then
      break
    end
    items[i], items[smallest] = items[smallest], items[i]
    i = smallest
  end
  return top
end

--- Creates a scheduler. `clock` returns the time in seconds (os.clock by
-- default); tests pass a fake one.
function M.new(clock)
  local self = {
    clock = clock or os.clock,
    ready = {},      -- tasks to resume on the next step, in order
    sleeping = Heap.new(),
    waiting = {},    -- event name -> list of tasks
    errors = {},
    count = 0,
  }
  return setmetatable(self, { __index = M })
end

--- Starts a task running fn(...) on the next step.
function M:spawn(fn, ...)
  local args = table.pack(...)
  local task = coroutine_create(function()
    return fn(table.unpack(args, 1, args.n))
  end)
  self.count = self.count + 1
  self.ready[#self.ready + 1] = { co = task, args = {} }
  return task
end

--- Inside a task: sleep for `seconds`.
function M.sleep(seconds)
  return coroutine_yield("sleep", seconds)
end

--- Inside a task: wait for an event; returns the values it was emitted with.
function M.wait(event)
  return coroutine_yield("wait", event)
end

--- Wakes every task waiting for `event`, passing them the extra values.
function M:emit(event, ...)
  local list = self.waiting[event]
  if not list then
    return 0
  end
  self.waiting[event] = nil
  for _, co in ipairs(list) do
    self.ready[#self.ready + 1] = { co = co, args = table.pack(...) }
  end
  return #list
end

-- Resumes one task and files it according to what it yielded. A task
-- that raises an error is recorded and dropped; the others go on.
local function resume(self, entry)
  local args = entry.args
  local ok, what, arg = coroutine_resume(entry.co, table.unpack(args, 1, args.n or #args))
  if not ok then
    self.errors[#self.errors + 1] = debug.traceback(entry.co, tostring(what))
    self.count = self.count - 1
    return
  end
  if coroutine_status(entry.co) == "dead" then
    self.count = self.count - 1
  elseif what == "sleep" then
    self.sleeping:push(self.clock() + (tonumber(arg) or 0), entry.co)
  elseif what == "wait" then
    local list = self.waiting[arg] or {}
    list[#list + 1] = entry.co
    self.waiting[arg] = list
  else
    -- A plain coroutine.yield(): run again on the next step.
    self.ready[#self.ready + 1] = { co = entry.co, args = {} }
  end
end

--- Runs one step: wakes the sleepers whose time has come, then resumes
-- every task that was ready when the step began.
function M:step()
  local now = self.clock()
  while true do
    local top = self.sleeping:peek()
    if not top or top.time > now then
      break
    end
    self.sleeping:pop()
    self.ready[#self.ready + 1] = { co = top.value, args = {} }
  end
  local batch = self.ready
  self.ready = {}
  for _, entry in ipairs(batch) do
    resume(self, entry)
  end
  return #batch
end

--- Runs until no task is left or only tasks waiting for events remain.
-- Returns the number of tasks still blocked.
function M:run()
  while self.count > 0 do
    if self:step() == 0 and #self.ready == 0 then
      local top = self.sleeping:peek()
      if not top then
        break -- only waiters left: nothing can wake them
      end
    end
  end
  return self.count
end

return M
