/* ringbuf.h - byte ring buffer and line reader (see ringbuf.c). */
#ifndef RINGBUF_H
#define RINGBUF_H

#include <stddef.h>
#include <stdint.h>

struct ringbuf {
	uint8_t *data;
	size_t size; /* a power of two */
	size_t mask;
	size_t head; /* free-running write index */
	size_t tail; /* free-running read index */
};

/* Called once per complete line; line is NUL-terminated, len excludes it. */
typedef void (*line_cb)(const char *line, size_t len, void *arg);

struct line_reader;

int ringbuf_init(struct ringbuf *rb, uint8_t *storage, size_t size);
size_t ringbuf_write(struct ringbuf *rb, const void *src, size_t len);
size_t ringbuf_read(struct ringbuf *rb, void *dst, size_t len);
int ringbuf_peek(const struct ringbuf *rb, size_t off);
void ringbuf_discard(struct ringbuf *rb, size_t len);

int line_reader_init(struct line_reader *lr, struct ringbuf *rb, char *line, size_t cap,
		     unsigned endings, line_cb cb, void *arg);
int line_reader_poll(struct line_reader *lr);
void line_reader_stats(const struct line_reader *lr, unsigned long *lines,
		       unsigned long *dropped);

#endif /* RINGBUF_H */
