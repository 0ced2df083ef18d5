// Generated in part by an older tool; the public surface carries pragmas
// around the members whose warnings cannot be fixed without breaking callers.
#nullable enable
using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Contoso.Legacy
{
#pragma warning disable CS0618 // Type or member is obsolete
    /// <summary>
    /// A client for the v1 inventory service, kept for callers that have not
    /// moved to <see cref="InventoryClient"/> yet.
    /// </summary>
    /// <remarks>Every call goes through <see cref="SendAsync"/>.</remarks>
    [Obsolete("Use InventoryClient.")]
    public sealed class LegacyInventoryClient : IDisposable
    {
        private readonly HttpClient _http;
        private readonly Uri _baseAddress;
        private bool _disposed;

        public LegacyInventoryClient(HttpClient http, Uri baseAddress)
        {
            _http = http ?? throw new ArgumentNullException(nameof(http));
            _baseAddress = baseAddress;
        }
#pragma warning disable CS1591
        /// <summary>Gets the stock level of one item.</summary>
        /// <param name="sku">The item's code.</param>
        /// <returns>The units in stock, or null when the item is unknown.</returns>
        public Task<int?> GetStockAsync(string sku) => GetNumberAsync("stock/" + sku);

        /// <summary>Reads a number from the service.</summary>
        public async Task<int?> GetNumberAsync(string path)
        {
            var response = await SendAsync(HttpMethod.Get, path, CancellationToken.None);
            return response.IsSuccessStatusCode ? int.Parse(await response.Content.ReadAsStringAsync()) : null;
        }

        public Task<HttpResponseMessage> PingAsync() => SendAsync(HttpMethod.Head, "", CancellationToken.None);
#pragma warning restore CS1591
#pragma warning disable CA2000 // Dispose objects before losing scope
        /// <summary>Sends one request to the service.</summary>
        /// <param name="path">The path under the base address.</param>
        private Task<HttpResponseMessage> SendAsync(HttpMethod method, string path, CancellationToken token)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            return _http.SendAsync(new HttpRequestMessage(method, new Uri(_baseAddress, path)), token);
        }
#pragma warning restore CA2000

        public void Dispose() => _disposed = true; // the HttpClient belongs to the caller
        // Reserved for the v2 protocol.
        // Do not remove: reflection looks it up by name.
        internal static readonly string ProtocolName = "inventory/1";
    }
#pragma warning restore CS0618

    /// <summary>The items a <see cref="LegacyInventoryClient"/> knows.</summary>
    public static class KnownItems
    {
        public static IReadOnlyList<string> All { get; } = new[] { "A-100", "B-200", "C-300" };
    }
}
