package org.acme.inventory;

import java.util.AbstractMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.AbstractSet;
import java.util.function.Function;

/**
 * A fixed-capacity map that evicts its least recently used entry.
 *
 * <p>Unlike {@link java.util.LinkedHashMap} in access order, this class
 * reports evictions to an optional callback and keeps hit/miss counters.
 * It is <em>not</em> thread-safe; wrap it or confine it to one thread.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class LruCache<K, V> extends AbstractMap<K, V> {

    /** Called with every entry the cache evicts. */
    public interface EvictionListener<K, V> {
        void evicted(K key, V value);

        /** A listener that ignores evictions. */
        static <K, V> EvictionListener<K, V> none() {
            return (k, v) -> { };
        }
    }

    /** Hit and miss counts since creation or the last {@link #resetStats()}. */
    public record Stats(long hits, long misses, long evictions) {
        public Stats {
            if (hits < 0 || misses < 0 || evictions < 0) {
                throw new IllegalArgumentException("negative counter");
            }
        }

        public double hitRate() {
            long total = hits + misses;
            return total == 0 ? 0.0 : (double) hits / total;
        }
    }

    private static final class Node<K, V> implements Map.Entry<K, V> {
        final K key;
        V value;
        Node<K, V> prev;
        Node<K, V> next;

        Node(K key, V value) {
            this.key = key;
            this.value = value;
        }

        @Override public K getKey() { return key; }
        @Override public V getValue() { return value; }

        @Override
        public V setValue(V value) {
            V old = this.value;
            this.value = value;
            return old;
        }
    }

    private final int capacity;
    private final java.util.HashMap<K, Node<K, V>> index;
    private final EvictionListener<? super K, ? super V> listener;
    // Sentinel of the circular list: head.next is the most recently used.
    private final Node<K, V> head = new Node<>(null, null);
    private long hits, misses, evictions;

    public LruCache(int capacity) {
        this(capacity, EvictionListener.none());
    }

    public LruCache(int capacity, EvictionListener<? super K, ? super V> listener) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
        this.index = new java.util.HashMap<>(Math.min(capacity, 1 << 16) * 4 / 3 + 1);
        this.listener = Objects.requireNonNull(listener, "listener");
        head.prev = head;
        head.next = head;
    }

    @Override
    public int size() {
        return index.size();
    }

    @Override
    public boolean containsKey(Object key) {
        return index.containsKey(key);
    }

    @Override
    public V get(Object key) {
        Node<K, V> n = index.get(key);
        if (n == null) {
            misses++;
            return null;
        }
        hits++;
        moveToFront(n);
        return n.value;
    }

    /**
     * Returns the cached value, computing and caching it on a miss.
     */
    public V computeIfAbsent(K key, Function<? super K, ? extends V> loader) {
        V v = get(key);
        if (v == null) {
            v = loader.apply(key);
            if (v != null) {
                put(key, v);
            }
        }
        return v;
    }

    @Override
    public V put(K key, V value) {
        Objects.requireNonNull(key, "key");
        Node<K, V> n = index.get(key);
        if (n != null) {
            V old = n.value;
            n.value = value;
            moveToFront(n);
            return old;
        }
        n = new Node<>(key, value);
        index.put(key, n);
        linkFront(n);
        if (index.size() > capacity) {
            evictEldest();
        }
        return null;
    }

    @Override
    public V remove(Object key) {
        Node<K, V> n = index.remove(key);
        if (n == null) {
            return null;
        }
        unlink(n);
        return n.value;
    }

    @Override
    public void clear() {
        index.clear();
        head.prev = head;
        head.next = head;
    }

    public Stats stats() {
        return new Stats(hits, misses, evictions);
    }

    public void resetStats() {
        hits = misses = evictions = 0;
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<K, V>> iterator() {
                return new Iterator<>() {
                    private Node<K, V> cursor = head.next;

                    @Override
                    public boolean hasNext() {
                        return cursor != head;
                    }

                    @Override
                    public Map.Entry<K, V> next() {
                        if (cursor == head) {
                            throw new NoSuchElementException();
                        }
                        Node<K, V> n = cursor;
                        cursor = cursor.next;
                        return n;
                    }
                };
            }

            @Override
            public int size() {
                return index.size();
            }
        };
    }

    private void evictEldest() {
        Node<K, V> eldest = head.prev;
        unlink(eldest);
        index.remove(eldest.key);
        evictions++;
        listener.evicted(eldest.key, eldest.value);
    }

    private void moveToFront(Node<K, V> n) {
        unlink(n);
        linkFront(n);
    }

    private void linkFront(Node<K, V> n) {
        n.next = head.next;
        n.prev = head;
        head.next.prev = n;
        head.next = n;
    }

    private void unlink(Node<K, V> n) {
        n.prev.next = n.next;
        n.next.prev = n.prev;
        n.prev = n.next = null;
    }
}
