//! A fixed-capacity ring buffer over a caller-provided slice.

const std = @import("std");
const assert = std.debug.assert;
const testing = std.testing;

pub const Error = error{ Full, Empty };

pub fn RingBuffer(comptime T: type) type {
    return struct {
        const Self = @This();

        items: []T,
        head: usize = 0,
        len: usize = 0,

        pub fn init(buffer: []T) Self {
            assert(buffer.len > 0);
            return .{ .items = buffer };
        }

        pub fn capacity(self: *const Self) usize {
            return self.items.len;
        }

        pub fn isFull(self: *const Self) bool {
            return self.len == self.items.len;
        }

        pub fn push(self: *Self, value: T) Error!void {
            if (self.isFull()) return error.Full;
            const tail = (self.head + self.len) % self.items.len;
            self.items[tail] = value;
            self.len += 1;
        }

        /// Pushes, overwriting the oldest item when full.
        pub fn pushOverwrite(self: *Self, value: T) void {
            if (self.isFull()) {
                self.items[self.head] = value;
                self.head = (self.head + 1) % self.items.len;
                return;
            }
            self.push(value) catch unreachable;
        }

        pub fn pop(self: *Self) Error!T {
            if (self.len == 0) return error.Empty;
            const value = self.items[self.head];
            self.head = (self.head + 1) % self.items.len;
            self.len -= 1;
            return value;
        }

        pub fn iterator(self: *const Self) Iterator {
            return .{ .ring = self, .index = 0 };
        }

        pub const Iterator = struct {
            ring: *const Self,
            index: usize,

            pub fn next(it: *Iterator) ?T {
                if (it.index >= it.ring.len) return null;
                const at = (it.ring.head + it.index) % it.ring.items.len;
                it.index += 1;
                return it.ring.items[at];
            }
        };
    };
}

fn sum(comptime T: type, ring: *const RingBuffer(T)) T {
    var total: T = 0;
    var it = ring.iterator();
    while (it.next()) |value| {
        total += value;
    }
    return total;
}

test "push and pop in order" {
    var storage: [3]u32 = undefined;
    var ring = RingBuffer(u32).init(&storage);
    try ring.push(1);
    try ring.push(2);
    try testing.expectEqual(@as(u32, 1), try ring.pop());
    try testing.expectEqual(@as(u32, 2), try ring.pop());
    try testing.expectError(error.Empty, ring.pop());
}

test "overwrite keeps the newest" {
    var storage: [2]i64 = undefined;
    var ring = RingBuffer(i64).init(&storage);
    ring.pushOverwrite(1);
    ring.pushOverwrite(2);
    ring.pushOverwrite(3);
    try testing.expectEqual(@as(i64, 5), sum(i64, &ring));
}
