/*
 * Copyright 2022-2024 Acme Corp.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 */
package org.acme.inventory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import javax.annotation.Nonnull;
import javax.annotation.Nullable;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps track of stock levels across warehouses and hands out reservations.
 *
 * <p>All public methods are thread-safe. Reads take a shared lock; any
 * mutation of stock levels takes the exclusive lock, so that a reservation
 * never observes a half-applied transfer.
 *
 * @author inventory-team
 * @since 2.3
 */
@Service("inventoryService")
@Transactional(readOnly = true)
public class InventoryService implements StockQuery, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(InventoryService.class);

    /** Reservations older than this are released by {@link #expireReservations()}. */
    public static final long RESERVATION_TTL_SECONDS = 15 * 60;

    private final Map<Sku, Map<String, Integer>> stock = new HashMap<>();
    private final Map<String, Reservation> reservations = new ConcurrentHashMap<>();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final List<StockListener> listeners = new ArrayList<>();
    private final Clock clock;
    private volatile boolean closed;

    /**
     * Movement kinds recorded in the audit log.
     */
    public enum Movement {
        RECEIVED("in"),
        SHIPPED("out"),
        TRANSFERRED("xfer"),
        ADJUSTED("adj") {
            @Override
            public boolean requiresApproval() {
                return true;
            }
        };

        private final String code;

        Movement(String code) {
            this.code = code;
        }

        public String code() {
            return code;
        }

        public boolean requiresApproval() {
            return false;
        }
    }

    /**
     * Something that wants to hear about stock changes.
     */
    @FunctionalInterface
    public interface StockListener {
        void onChange(Sku sku, String warehouse, int oldQuantity, int newQuantity, Movement movement);
    }

    /**
     * A hold on some quantity of one SKU in one warehouse.
     */
    public static final class Reservation {
        private final String id;
        private final Sku sku;
        private final String warehouse;
        private final int quantity;
        private final Instant createdAt;

        Reservation(String id, Sku sku, String warehouse, int quantity, Instant createdAt) {
            this.id = Objects.requireNonNull(id, "id");
            this.sku = Objects.requireNonNull(sku, "sku");
            this.warehouse = Objects.requireNonNull(warehouse, "warehouse");
            this.quantity = quantity;
            this.createdAt = createdAt;
        }

        public String id() { return id; }
        public Sku sku() { return sku; }
        public String warehouse() { return warehouse; }
        public int quantity() { return quantity; }
        public Instant createdAt() { return createdAt; }

        boolean isExpired(Instant now) {
            return createdAt.plusSeconds(RESERVATION_TTL_SECONDS).isBefore(now);
        }

        @Override
        public String toString() {
            return "Reservation[" + id + ", " + sku + " x" + quantity + " @" + warehouse + "]";
        }
    }

    public InventoryService() {
        this(Clock.systemUTC());
    }

    @Inject
    public InventoryService(@Nonnull Clock clock) {
        this.clock = Objects.requireNonNull(clock);
    }

    // ------------------------------------------------------------------
    // Queries
    // ------------------------------------------------------------------

    @Override
    public int available(Sku sku, String warehouse) {
        lock.readLock().lock();
        try {
            int onHand = stock.getOrDefault(sku, Collections.emptyMap()).getOrDefault(warehouse, 0);
            int held = reservations.values().stream()
                    .filter(r -> r.sku().equals(sku) && r.warehouse().equals(warehouse))
                    .mapToInt(Reservation::quantity)
                    .sum();
            return onHand - held;
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public Map<String, Integer> availableEverywhere(Sku sku) {
        lock.readLock().lock();
        try {
            Map<String, Integer> result = new HashMap<>();
            for (String warehouse : stock.getOrDefault(sku, Collections.emptyMap()).keySet()) {
                result.put(warehouse, available(sku, warehouse));
            }
            return Collections.unmodifiableMap(result);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Finds the SKUs whose total stock matches a predicate, e.g. everything
     * running low.
     *
     * @param predicate test applied to the total quantity over all warehouses
     * @return matching SKUs, sorted by their code
     */
    public List<Sku> findSkus(Predicate<Integer> predicate) {
        lock.readLock().lock();
        try {
            return stock.entrySet().stream()
                    .filter(e -> predicate.test(e.getValue().values().stream().mapToInt(Integer::intValue).sum()))
                    .map(Map.Entry::getKey)
                    .sorted()
                    .collect(Collectors.toList());
        } finally {
            lock.readLock().unlock();
        }
    }

    public Optional<Reservation> reservation(@Nullable String id) {
        return id == null ? Optional.empty() : Optional.ofNullable(reservations.get(id));
    }

    // ------------------------------------------------------------------
    // Mutations
    // ------------------------------------------------------------------

    @Transactional
    public void receive(Sku sku, String warehouse, int quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive: " + quantity);
        }
        change(sku, warehouse, quantity, Movement.RECEIVED);
    }

    @Transactional
    public Reservation reserve(Sku sku, String warehouse, int quantity) throws OutOfStockException {
        ensureOpen();
        lock.writeLock().lock();
        try {
            int free = available(sku, warehouse);
            if (free < quantity) {
                throw new OutOfStockException(sku, warehouse, quantity, free);
            }
            String id = java.util.UUID.randomUUID().toString();
            Reservation r = new Reservation(id, sku, warehouse, quantity, clock.instant());
            reservations.put(id, r);
            LOG.debug("reserved {}", r);
            return r;
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Transactional
    public void ship(String reservationId) {
        Reservation r = reservations.remove(reservationId);
        if (r == null) {
            throw new IllegalStateException("no such reservation: " + reservationId);
        }
        change(r.sku(), r.warehouse(), -r.quantity(), Movement.SHIPPED);
    }

    @Transactional
    public void transfer(Sku sku, String from, String to, int quantity) throws OutOfStockException {
        lock.writeLock().lock();
        try {
            int free = available(sku, from);
            if (free < quantity) {
                throw new OutOfStockException(sku, from, quantity, free);
            }
            change(sku, from, -quantity, Movement.TRANSFERRED);
            change(sku, to, quantity, Movement.TRANSFERRED);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Releases every reservation older than {@link #RESERVATION_TTL_SECONDS}.
     *
     * @return the number of reservations released
     */
    @Scheduled(fixedDelay = 60_000)
    public int expireReservations() {
        Instant now = clock.instant();
        int released = 0;
        for (var it = reservations.values().iterator(); it.hasNext(); ) {
            Reservation r = it.next();
            if (r.isExpired(now)) {
                it.remove();
                released++;
            }
        }
        if (released > 0) {
            LOG.info("released {} expired reservation(s)", released);
        }
        return released;
    }

    public void addListener(StockListener listener) {
        synchronized (listeners) {
            listeners.add(listener);
        }
    }

    private void change(Sku sku, String warehouse, int delta, Movement movement) {
        ensureOpen();
        int oldQuantity;
        int newQuantity;
        lock.writeLock().lock();
        try {
            Map<String, Integer> perWarehouse = stock.computeIfAbsent(sku, k -> new HashMap<>());
            oldQuantity = perWarehouse.getOrDefault(warehouse, 0);
            newQuantity = oldQuantity + delta;
            if (newQuantity < 0) {
                throw new IllegalStateException(sku + " would go negative in " + warehouse);
            }
            perWarehouse.put(warehouse, newQuantity);
        } finally {
            lock.writeLock().unlock();
        }
        List<StockListener> snapshot;
        synchronized (listeners) {
            snapshot = new ArrayList<>(listeners);
        }
        for (StockListener l : snapshot) {
            try {
                l.onChange(sku, warehouse, oldQuantity, newQuantity, movement);
            } catch (RuntimeException e) {
                LOG.warn("listener {} failed", l, e);
            }
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("inventory service is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
        reservations.clear();
    }

    /**
     * Thrown when a reservation or transfer asks for more than is available.
     */
    public static class OutOfStockException extends Exception {
        private static final long serialVersionUID = 1L;

        private final transient Sku sku;
        private final int requested;
        private final int available;

        public OutOfStockException(Sku sku, String warehouse, int requested, int available) {
            super(String.format("%s: requested %d in %s, only %d available", sku, requested, warehouse, available));
            this.sku = sku;
            this.requested = requested;
            this.available = available;
        }

        public Sku getSku() { return sku; }
        public int getRequested() { return requested; }
        public int getAvailable() { return available; }
    }
}
