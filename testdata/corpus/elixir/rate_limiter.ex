defmodule Gateway.RateLimiter do
  @moduledoc """
  A fixed-window rate limiter kept in an ETS table, one counter per key
  and window. Old windows are swept by a periodic message.
  """

  use GenServer
  require Logger

  @table :gateway_rate_limits
  @sweep_every :timer.minutes(1)

  defstruct limit: 100, window_ms: 60_000

  @type key :: String.t() | atom()
  @type decision :: {:allow, non_neg_integer()} | {:deny, pos_integer()}

  # Client API

  def start_link(opts \\ []) do
    config = struct(__MODULE__, opts)
    GenServer.start_link(__MODULE__, config, name: __MODULE__)
  end

  @doc "Counts one hit for `key` and says whether it is allowed."
  @spec hit(key(), pos_integer(), pos_integer()) :: decision()
  def hit(key, limit, window_ms) when limit > 0 and window_ms > 0 do
    now = System.system_time(:millisecond)
    window = div(now, window_ms)
    count = :ets.update_counter(@table, {key, window}, {2, 1}, {{key, window}, 0})

    if count <= limit do
      {:allow, limit - count}
    else
      {:deny, window_ms - rem(now, window_ms)}
    end
  end

  def reset(key) do
    :ets.match_delete(@table, {{key, :_}, :_})
    :ok
  end

  # Server callbacks

  @impl true
  def init(config) do
    :ets.new(@table, [:named_table, :public, :set, write_concurrency: true])
    schedule_sweep()
    {:ok, config}
  end

  @impl true
  def handle_info(:sweep, %__MODULE__{window_ms: window_ms} = config) do
    current = div(System.system_time(:millisecond), window_ms)
    removed = sweep(current)

    if removed > 0 do
      Logger.debug("rate limiter swept #{removed} old windows")
    end

    schedule_sweep()
    {:noreply, config}
  end

  defp sweep(current) do
    spec = [{{{:_, :"$1"}, :_}, [{:<, :"$1", current}], [true]}]
    :ets.select_delete(@table, spec)
  end

  defp schedule_sweep do
    Process.send_after(self(), :sweep, @sweep_every)
  end

  defmacro limited(key, limit, do: block) do
    quote do
      case Gateway.RateLimiter.hit(unquote(key), unquote(limit), 60_000) do
        {:allow, _left} -> unquote(block)
        {:deny, retry_in} -> {:error, {:rate_limited, retry_in}}
      end
    end
  end
end

defprotocol Gateway.Keyed do
  @doc "The rate-limit key of a request."
  def key(request)
end

defimpl Gateway.Keyed, for: Map do
  def key(%{client_id: id}), do: "client:" <> id
  def key(%{ip: ip}), do: "ip:" <> to_string(:inet.ntoa(ip))
end
