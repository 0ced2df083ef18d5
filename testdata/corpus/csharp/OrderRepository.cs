// <copyright file="OrderRepository.cs" company="Contoso Ltd.">
// Copyright (c) Contoso Ltd. All rights reserved.
// </copyright>

using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.ComponentModel.DataAnnotations;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;

namespace Contoso.Orders.Data
{
    /// <summary>
    /// Status of an order as it moves through fulfilment.
    /// </summary>
    public enum OrderStatus
    {
        Pending = 0,
        Paid = 1,
        Shipped = 2,
        Delivered = 3,
        Cancelled = 9,
    }

    /// <summary>One line of an order.</summary>
    /// <param name="Sku">The product code.</param>
    /// <param name="Quantity">How many units.</param>
    /// <param name="UnitPrice">Price of one unit, in the order's currency.</param>
    public sealed record OrderLine(string Sku, int Quantity, decimal UnitPrice)
    {
        public decimal Total => Quantity * UnitPrice;
    }

    public sealed record Order
    {
        [Key]
        public Guid Id { get; init; } = Guid.NewGuid();

        [Required, StringLength(64)]
        public string CustomerId { get; init; } = string.Empty;

        public OrderStatus Status { get; set; } = OrderStatus.Pending;

        public DateTimeOffset PlacedAt { get; init; } = DateTimeOffset.UtcNow;

        public IReadOnlyList<OrderLine> Lines { get; init; } = Array.Empty<OrderLine>();

        [Range(typeof(decimal), "0", "79228162514264337593543950335")]
        public decimal Total => Lines.Sum(l => l.Total);

        public string Currency { get; init; } = "EUR";
    }

    /// <summary>
    /// Query options for <see cref="IOrderRepository.SearchAsync"/>.
    /// </summary>
    public sealed class OrderQuery
    {
        public string? CustomerId { get; set; }
        public OrderStatus[]? Statuses { get; set; }
        public DateTimeOffset? From { get; set; }
        public DateTimeOffset? To { get; set; }
        public decimal? MinTotal { get; set; }
        public int Skip { get; set; }
        public int Take { get; set; } = 50;
    }

    public interface IOrderRepository
    {
        Task<Order?> GetAsync(Guid id, CancellationToken cancellationToken = default);

        Task<IReadOnlyList<Order>> SearchAsync(OrderQuery query, CancellationToken cancellationToken = default);

        Task AddAsync(Order order, CancellationToken cancellationToken = default);

        Task<bool> UpdateStatusAsync(Guid id, OrderStatus expected, OrderStatus next, CancellationToken cancellationToken = default);

        IAsyncEnumerable<Order> StreamAsync(CancellationToken cancellationToken = default);
    }

    /// <summary>
    /// An in-memory <see cref="IOrderRepository"/> for tests and local runs.
    /// </summary>
    /// <remarks>
    /// Status changes are compare-and-swap: <see cref="UpdateStatusAsync"/>
    /// only applies when the order is still in the expected state.
    /// </remarks>
    [DebuggerDisplay("Count = {Count}")]
    public class InMemoryOrderRepository : IOrderRepository, IDisposable
    {
        private static readonly IReadOnlyDictionary<OrderStatus, OrderStatus[]> AllowedTransitions =
            new Dictionary<OrderStatus, OrderStatus[]>
            {
                [OrderStatus.Pending] = new[] { OrderStatus.Paid, OrderStatus.Cancelled },
                [OrderStatus.Paid] = new[] { OrderStatus.Shipped, OrderStatus.Cancelled },
                [OrderStatus.Shipped] = new[] { OrderStatus.Delivered },
                [OrderStatus.Delivered] = Array.Empty<OrderStatus>(),
                [OrderStatus.Cancelled] = Array.Empty<OrderStatus>(),
            };

        private readonly ConcurrentDictionary<Guid, Order> _orders = new();
        private readonly ILogger<InMemoryOrderRepository> _logger;
        private readonly SemaphoreSlim _writeLock = new(1, 1);
        private bool _disposed;

        public InMemoryOrderRepository(ILogger<InMemoryOrderRepository> logger)
        {
            _logger = logger ?? throw new ArgumentNullException(nameof(logger));
        }

        public int Count => _orders.Count;

        #region Queries

        public Task<Order?> GetAsync(Guid id, CancellationToken cancellationToken = default)
        {
            ThrowIfDisposed();
            return Task.FromResult(_orders.TryGetValue(id, out var order) ? order : null);
        }

        public Task<IReadOnlyList<Order>> SearchAsync(OrderQuery query, CancellationToken cancellationToken = default)
        {
            ArgumentNullException.ThrowIfNull(query);
            ThrowIfDisposed();

            IEnumerable<Order> results = _orders.Values;

            if (query.CustomerId is { } customer)
            {
                results = results.Where(o => string.Equals(o.CustomerId, customer, StringComparison.OrdinalIgnoreCase));
            }

            if (query.Statuses is { Length: > 0 } statuses)
            {
                results = results.Where(o => statuses.Contains(o.Status));
            }

            if (query.From.HasValue)
            {
                results = results.Where(o => o.PlacedAt >= query.From.Value);
            }

            if (query.To.HasValue)
            {
                results = results.Where(o => o.PlacedAt < query.To.Value);
            }

            if (query.MinTotal is decimal min)
            {
                results = results.Where(o => o.Total >= min);
            }

            IReadOnlyList<Order> page = results
                .OrderByDescending(o => o.PlacedAt)
                .ThenBy(o => o.Id)
                .Skip(query.Skip)
                .Take(Math.Clamp(query.Take, 1, 500))
                .ToList();

            return Task.FromResult(page);
        }

        public async IAsyncEnumerable<Order> StreamAsync([EnumeratorCancellation] CancellationToken cancellationToken = default)
        {
            foreach (var order in _orders.Values.OrderBy(o => o.PlacedAt))
            {
                cancellationToken.ThrowIfCancellationRequested();
                yield return order;
                await Task.Yield();
            }
        }

        /// <summary>Revenue per customer, largest first.</summary>
        public IEnumerable<(string CustomerId, decimal Revenue, int Orders)> RevenueByCustomer() =>
            from o in _orders.Values
            where o.Status != OrderStatus.Cancelled
            group o by o.CustomerId into g
            let revenue = g.Sum(x => x.Total)
            orderby revenue descending
            select (g.Key, revenue, g.Count());

        #endregion

        #region Commands

        public async Task AddAsync(Order order, CancellationToken cancellationToken = default)
        {
            ArgumentNullException.ThrowIfNull(order);
            ThrowIfDisposed();
            Validator.ValidateObject(order, new ValidationContext(order), validateAllProperties: true);

            await _writeLock.WaitAsync(cancellationToken).ConfigureAwait(false);
            try
            {
                if (!_orders.TryAdd(order.Id, order))
                {
                    throw new InvalidOperationException($"Order {order.Id} already exists.");
                }

                _logger.LogInformation("Added order {OrderId} for {CustomerId} ({Total} {Currency})",
                    order.Id, order.CustomerId, order.Total, order.Currency);
            }
            finally
            {
                _writeLock.Release();
            }
        }

        public async Task<bool> UpdateStatusAsync(
            Guid id,
            OrderStatus expected,
            OrderStatus next,
            CancellationToken cancellationToken = default)
        {
            ThrowIfDisposed();
            if (!AllowedTransitions[expected].Contains(next))
            {
                throw new InvalidOperationException($"Cannot move an order from {expected} to {next}.");
            }

            await _writeLock.WaitAsync(cancellationToken).ConfigureAwait(false);
            try
            {
                if (!_orders.TryGetValue(id, out var current) || current.Status != expected)
                {
                    return false;
                }

                _orders[id] = current with { Status = next };
                _logger.LogDebug("Order {OrderId}: {From} -> {To}", id, expected, next);
                return true;
            }
            finally
            {
                _writeLock.Release();
            }
        }

        #endregion

        private void ThrowIfDisposed()
        {
            if (_disposed)
            {
                throw new ObjectDisposedException(nameof(InMemoryOrderRepository));
            }
        }

        protected virtual void Dispose(bool disposing)
        {
            if (_disposed)
            {
                return;
            }

            if (disposing)
            {
                _writeLock.Dispose();
                _orders.Clear();
            }

            _disposed = true;
        }

        public void Dispose()
        {
            Dispose(disposing: true);
            GC.SuppressFinalize(this);
        }
    }
}
