/*
 * ringbuf.c - a byte ring buffer for a serial driver, with a line reader
 * that hands complete lines to a callback.
 *
 * The buffer never allocates after ringbuf_init: the storage is given by
 * the caller, and its size must be a power of two so that indices wrap
 * with a mask instead of a division.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ringbuf.h"

#define RB_MIN_SIZE 16u
#define RB_IS_POW2(n) (((n) & ((n) - 1u)) == 0u)

/* Line endings the reader accepts. */
enum line_ending {
	LE_LF = 1 << 0,
	LE_CRLF = 1 << 1,
	LE_CR = 1 << 2,
};

struct line_reader {
	struct ringbuf *rb;
	char *line;          /* assembled line, NUL-terminated */
	size_t cap;          /* size of line */
	size_t len;          /* bytes in line */
	bool saw_cr;         /* last byte was '\r' */
	bool overflowed;     /* the current line was too long */
	unsigned endings;    /* enum line_ending bits */
	line_cb cb;
	void *cb_arg;
	unsigned long lines; /* lines delivered */
	unsigned long dropped;
};

static inline size_t rb_used(const struct ringbuf *rb)
{
	return rb->head - rb->tail;
}

static inline size_t rb_free(const struct ringbuf *rb)
{
	return rb->size - rb_used(rb);
}

int ringbuf_init(struct ringbuf *rb, uint8_t *storage, size_t size)
{
	if (rb == NULL || storage == NULL)
		return -EINVAL;
	if (size < RB_MIN_SIZE || !RB_IS_POW2(size))
		return -EINVAL;
	rb->data = storage;
	rb->size = size;
	rb->mask = size - 1u;
	rb->head = 0;
	rb->tail = 0;
	return 0;
}

/*
 * Copies up to len bytes into the buffer and returns how many fit. The
 * copy is done in at most two memcpy calls: up to the end of the storage,
 * then from its start.
 */
size_t ringbuf_write(struct ringbuf *rb, const void *src, size_t len)
{
	const uint8_t *p = src;
	size_t n = len < rb_free(rb) ? len : rb_free(rb);
	size_t at = rb->head & rb->mask;
	size_t first = rb->size - at;

	if (first > n)
		first = n;
	memcpy(rb->data + at, p, first);
	memcpy(rb->data, p + first, n - first);
	rb->head += n;
	return n;
}

size_t ringbuf_read(struct ringbuf *rb, void *dst, size_t len)
{
	uint8_t *p = dst;
	size_t n = len < rb_used(rb) ? len : rb_used(rb);
	size_t at = rb->tail & rb->mask;
	size_t first = rb->size - at;

	if (first > n)
		first = n;
	memcpy(p, rb->data + at, first);
	memcpy(p + first, rb->data, n - first);
	rb->tail += n;
	return n;
}

/* Returns the byte at offset off from the tail without consuming it. */
int ringbuf_peek(const struct ringbuf *rb, size_t off)
{
	if (off >= rb_used(rb))
		return -1;
	return rb->data[(rb->tail + off) & rb->mask];
}

void ringbuf_discard(struct ringbuf *rb, size_t len)
{
	size_t used = rb_used(rb);

	rb->tail += len < used ? len : used;
}

static void deliver(struct line_reader *lr)
{
	lr->line[lr->len] = '\0';
	if (lr->overflowed) {
		/* A truncated line is worse than none: count it and move on. */
		lr->dropped++;
	} else {
		lr->cb(lr->line, lr->len, lr->cb_arg);
		lr->lines++;
	}
	lr->len = 0;
	lr->overflowed = false;
}

static void append(struct line_reader *lr, uint8_t c)
{
	if (lr->len + 1 < lr->cap)
		lr->line[lr->len++] = (char)c;
	else
		lr->overflowed = true;
}

/*
 * Drains the ring buffer into the line reader, calling the callback once
 * per complete line. A line ends at "\n", "\r\n" or a lone "\r", as
 * allowed by the reader's endings; the ending is not part of the line.
 * Returns the number of lines delivered, or a negative errno.
 *
 * The state machine has to remember a trailing '\r' across calls: the
 * '\n' of a CRLF may arrive in the next chunk of bytes from the UART.
 */
int line_reader_poll(struct line_reader *lr)
{
	uint8_t chunk[32];
	size_t n, i;
	int delivered = 0;

	if (lr == NULL || lr->rb == NULL || lr->cb == NULL)
		return -EINVAL;

	while ((n = ringbuf_read(lr->rb, chunk, sizeof(chunk))) > 0) {
		for (i = 0; i < n; i++) {
			uint8_t c = chunk[i];

			if (lr->saw_cr) {
				lr->saw_cr = false;
				if (c == '\n' && (lr->endings & LE_CRLF)) {
					deliver(lr);
					delivered++;
					continue;
				}
				if (lr->endings & LE_CR) {
					deliver(lr);
					delivered++;
				} else {
					append(lr, '\r');
				}
			}
			switch (c) {
			case '\r':
				if (lr->endings & (LE_CR | LE_CRLF))
					lr->saw_cr = true;
				else
					append(lr, c);
				break;
			case '\n':
				if (lr->endings & LE_LF) {
					deliver(lr);
					delivered++;
				} else {
					append(lr, c);
				}
				break;
			case '\0':
				/* Line noise on a serial link: drop it. */
				break;
			default:
				append(lr, c);
				break;
			}
		}
	}
	return delivered;
}

int line_reader_init(struct line_reader *lr, struct ringbuf *rb, char *line, size_t cap,
		     unsigned endings, line_cb cb, void *arg)
{
	if (lr == NULL || rb == NULL || line == NULL || cap < 2 || cb == NULL)
		return -EINVAL;
	if (endings == 0 || (endings & ~(unsigned)(LE_LF | LE_CRLF | LE_CR)) != 0)
		return -EINVAL;
	memset(lr, 0, sizeof(*lr));
	lr->rb = rb;
	lr->line = line;
	lr->cap = cap;
	lr->endings = endings;
	lr->cb = cb;
	lr->cb_arg = arg;
	return 0;
}

void line_reader_stats(const struct line_reader *lr, unsigned long *lines, unsigned long *dropped)
{
	if (lines != NULL)
		*lines = lr->lines;
	if (dropped != NULL)
		*dropped = lr->dropped;
}
