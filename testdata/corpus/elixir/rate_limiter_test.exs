defmodule Gateway.RateLimiterTest do
  use ExUnit.Case, async: false

  alias Gateway.RateLimiter

  @window_ms 1_000

  setup do
    start_supervised!({RateLimiter, limit: 2, window_ms: @window_ms})
    :ok
  end

  describe "hit/3" do
    test "allows hits up to the limit" do
      assert {:allow, 1} = RateLimiter.hit("k", 2, @window_ms)
      assert {:allow, 0} = RateLimiter.hit("k", 2, @window_ms)
    end

    test "denies the hit over the limit, with the wait" do
      RateLimiter.hit("k", 1, @window_ms)
      assert {:deny, wait} = RateLimiter.hit("k", 1, @window_ms)
      assert wait in 1..@window_ms
    end
  end

  describe "reset/1" do
    test "forgets the key's counters" do
      RateLimiter.hit("k", 1, @window_ms)
      RateLimiter.reset("k")
      assert {:allow, 0} = RateLimiter.hit("k", 1, @window_ms)
    end
  end
end
