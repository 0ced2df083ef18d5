/**
 * A typed, in-process event bus with middleware, wildcard subscriptions and
 * replay of the last event per topic.
 *
 * @packageDocumentation
 */

import { EventEmitter } from "events";
import type { Logger } from "./logger";

export type Topic = `${string}.${string}`;

export interface EventMap {
  "user.created": { id: string; email: string; createdAt: Date };
  "user.deleted": { id: string; reason?: string };
  "order.placed": { orderId: string; userId: string; total: number; currency: Currency };
  "order.shipped": { orderId: string; carrier: string; trackingNumber: string };
}

export type Currency = "EUR" | "USD" | "GBP";

export type Handler<T> = (payload: T, meta: EventMeta) => void | Promise<void>;

export interface EventMeta {
  readonly topic: Topic;
  readonly id: number;
  readonly publishedAt: number;
  /** Set when the event is delivered from the replay buffer. */
  readonly replayed?: boolean;
}

export interface Subscription {
  readonly topic: Topic | "*";
  unsubscribe(): void;
}

export type Middleware = <K extends keyof EventMap>(
  topic: K,
  payload: EventMap[K],
  next: (payload: EventMap[K]) => Promise<void>,
) => Promise<void>;

export interface BusOptions {
  /** Keep the last event of each topic and deliver it to late subscribers. */
  replay?: boolean;
  /** Maximum number of handlers per topic before a warning is logged. */
  maxListeners?: number;
  logger?: Logger;
}

const DEFAULT_OPTIONS: Required<Omit<BusOptions, "logger">> = {
  replay: false,
  maxListeners: 50,
};

/**
 * Decorator: log every call of a method at debug level.
 */
export function traced(target: object, key: string, descriptor: PropertyDescriptor): PropertyDescriptor {
  const original = descriptor.value as (...args: unknown[]) => unknown;
  descriptor.value = function (this: { logger?: Logger }, ...args: unknown[]) {
    this.logger?.debug(`${String(key)}(${args.map((a) => JSON.stringify(a)).join(", ")})`);
    return original.apply(this, args);
  };
  return descriptor;
}

export class BusError extends Error {
  constructor(
    message: string,
    public readonly topic: Topic,
    public readonly causes: unknown[] = [],
  ) {
    super(message);
    this.name = "BusError";
  }
}

export class EventBus {
  private readonly handlers = new Map<Topic | "*", Set<Handler<any>>>();
  private readonly last = new Map<Topic, { payload: unknown; meta: EventMeta }>();
  private readonly middleware: Middleware[] = [];
  private readonly options: Required<Omit<BusOptions, "logger">>;
  private readonly logger?: Logger;
  private nextId = 1;

  constructor(options: BusOptions = {}) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    this.logger = options.logger;
  }

  use(mw: Middleware): this {
    this.middleware.push(mw);
    return this;
  }

  on<K extends keyof EventMap & Topic>(topic: K, handler: Handler<EventMap[K]>): Subscription;
  on(topic: "*", handler: Handler<unknown>): Subscription;
  @traced
  on(topic: Topic | "*", handler: Handler<any>): Subscription {
    let set = this.handlers.get(topic);
    if (!set) {
      set = new Set();
      this.handlers.set(topic, set);
    }
    set.add(handler);
    if (set.size > this.options.maxListeners) {
      this.logger?.warn(`topic ${topic} has ${set.size} handlers; possible leak`);
    }
    if (this.options.replay && topic !== "*") {
      const previous = this.last.get(topic);
      if (previous) {
        queueMicrotask(() => void handler(previous.payload, { ...previous.meta, replayed: true }));
      }
    }
    return {
      topic,
      unsubscribe: () => {
        set!.delete(handler);
        if (set!.size === 0) this.handlers.delete(topic);
      },
    };
  }

  once<K extends keyof EventMap & Topic>(topic: K): Promise<EventMap[K]> {
    return new Promise((resolve) => {
      const sub = this.on(topic, (payload) => {
        sub.unsubscribe();
        resolve(payload);
      });
    });
  }

  async publish<K extends keyof EventMap & Topic>(topic: K, payload: EventMap[K]): Promise<void> {
    const meta: EventMeta = { topic, id: this.nextId++, publishedAt: Date.now() };
    const deliver = async (p: EventMap[K]): Promise<void> => {
      if (this.options.replay) this.last.set(topic, { payload: p, meta });
      const targets = [...(this.handlers.get(topic) ?? []), ...(this.handlers.get("*") ?? [])];
      const results = await Promise.allSettled(targets.map((h) => h(p, meta)));
      const failures = results
        .filter((r): r is PromiseRejectedResult => r.status === "rejected")
        .map((r) => r.reason);
      if (failures.length > 0) {
        throw new BusError(`${failures.length} handler(s) failed for ${topic}`, topic, failures);
      }
    };
    const chain = this.middleware.reduceRight<(p: EventMap[K]) => Promise<void>>(
      (next, mw) => (p) => mw(topic, p, next),
      deliver,
    );
    await chain(payload);
  }

  listenerCount(topic?: Topic | "*"): number {
    if (topic) return this.handlers.get(topic)?.size ?? 0;
    let n = 0;
    for (const set of this.handlers.values()) n += set.size;
    return n;
  }

  clear(): void {
    this.handlers.clear();
    this.last.clear();
  }
}

export namespace Middlewares {
  /** Drop events whose payload fails a check. */
  export const validate =
    (check: (topic: string, payload: unknown) => boolean): Middleware =>
    async (topic, payload, next) => {
      if (check(topic, payload)) await next(payload);
    };

  /** Retry delivery with exponential backoff. */
  export function retry(attempts = 3, baseDelayMs = 50): Middleware {
    return async (topic, payload, next) => {
      let lastError: unknown;
      for (let i = 0; i < attempts; i++) {
        try {
          return await next(payload);
        } catch (err) {
          lastError = err;
          await new Promise((r) => setTimeout(r, baseDelayMs * 2 ** i));
        }
      }
      throw lastError;
    };
  }

  export namespace Timing {
    export interface Sample {
      topic: string;
      ms: number;
    }

    export function measure(sink: (s: Sample) => void): Middleware {
      return async (topic, payload, next) => {
        const t0 = performance.now();
        try {
          await next(payload);
        } finally {
          sink({ topic, ms: performance.now() - t0 });
        }
      };
    }
  }
}

/** Bridge the bus to a Node EventEmitter, for legacy consumers. */
export function toEmitter(bus: EventBus): EventEmitter {
  const emitter = new EventEmitter();
  bus.on("*", (payload, meta) => {
    emitter.emit(meta.topic, payload);
  });
  return emitter;
}

export const globalBus = new EventBus({ replay: true });

export default EventBus;
